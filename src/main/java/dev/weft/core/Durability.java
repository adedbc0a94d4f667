package dev.weft.core;

import java.util.Locale;

/**
 * When a write is acknowledged, named as RethinkDB names its durability modes. {@link #HARD} (the
 * default): after its commit is durable (on PostgreSQL, flushed to the WAL, and to synchronous
 * standbys if the cluster has any). {@link #SOFT}: after it commits in memory; PostgreSQL runs
 * the transaction with {@code synchronous_commit = off}, so a crash of the database (not of Weft)
 * may lose the last few hundred milliseconds of soft writes, but never corrupts or reorders
 * anything. The SQLite store accepts {@code soft} and writes it as hard: its group commit already
 * shares one sync among every write waiting, so there is little to gain.
 */
public enum Durability {
    HARD, SOFT;

    /** {@code hard} or {@code soft} (any case); anything else is a 400 naming {@code what}. */
    public static Durability parse(String value, String what) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "hard" -> HARD;
            case "soft" -> SOFT;
            default -> throw WeftException.badRequest(what + " must be hard or soft, not " + value);
        };
    }

    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
