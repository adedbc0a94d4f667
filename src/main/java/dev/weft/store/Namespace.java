package dev.weft.store;

import dev.weft.core.WeftException;

/**
 * A database name and, for collection-level operations, a collection name. Names are validated
 * here once, so that stores may use them in identifiers without further checks.
 */
public record Namespace(String db, String coll) {
    private static final int MAX_NAME = 63;
    /** The one name starting with '_': a database's JSON Schema store, as RESTHeart names it. */
    public static final String SCHEMAS = "_schemas";

    public Namespace {
        checkName(db, "database");
        checkName(coll, "collection");
    }

    /** Every request names one: a loop over the chars, not a regex and its matcher. */
    public static void checkName(String name, String what) {
        if (!validName(name) && !(what.equals("collection") && name.equals(SCHEMAS))) {
            throw WeftException.badRequest("invalid " + what + " name: " + name
                    + " (letters, digits, '_', '-', '.', at most 63, not starting with '_' but " + SCHEMAS + ")");
        }
    }

    /** Letters and digits, then also '_', '-' and '.' (never two dots in a row), at most 63. */
    static boolean validName(String name) {
        int n = name.length();
        if (n == 0 || n > MAX_NAME || !letterOrDigit(name.charAt(0))) {
            return false;
        }
        for (int i = 1; i < n; i++) {
            char c = name.charAt(i);
            boolean dot = c == '.';
            if (!(letterOrDigit(c) || c == '_' || c == '-' || dot) || (dot && name.charAt(i - 1) == '.')) {
                return false;
            }
        }
        return true;
    }

    private static boolean letterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    @Override
    public String toString() {
        return db + "/" + coll;
    }
}
