package dev.weft.store;

import dev.weft.core.WeftException;
import java.util.regex.Pattern;

/**
 * A database name and, for collection-level operations, a collection name. Names are validated
 * here once, so that stores may use them in identifiers without further checks.
 */
public record Namespace(String db, String coll) {
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");

    public Namespace {
        checkName(db, "database");
        checkName(coll, "collection");
    }

    public static void checkName(String name, String what) {
        if (!NAME.matcher(name).matches() || name.contains("..")) {
            throw WeftException.badRequest("invalid " + what + " name: " + name
                    + " (letters, digits, '_', '-', '.', at most 63, not starting with '_')");
        }
    }

    @Override
    public String toString() {
        return db + "/" + coll;
    }
}
