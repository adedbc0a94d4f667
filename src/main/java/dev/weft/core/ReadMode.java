package dev.weft.core;

import java.util.Locale;

/**
 * Where a read may be served from, named as RethinkDB names its read modes. {@link #SINGLE} (the
 * default) reads the primary: the read sees every write acknowledged before it started.
 * {@link #OUTDATED} may read a replica, which can lag: the read sees a consistent but possibly
 * older state, and may miss writes acknowledged just before. Stores without replicas (SQLite,
 * PostgreSQL without {@code read-replica}) serve both from the primary.
 */
public enum ReadMode {
    SINGLE, OUTDATED;

    /** {@code single} or {@code outdated} (any case); anything else is a 400 naming {@code what}. */
    public static ReadMode parse(String value, String what) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "single" -> SINGLE;
            case "outdated" -> OUTDATED;
            default -> throw WeftException.badRequest(what + " must be single or outdated, not " + value);
        };
    }

    /** The name clients use. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
