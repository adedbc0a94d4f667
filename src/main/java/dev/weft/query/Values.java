package dev.weft.query;

import tools.jackson.databind.JsonNode;

/**
 * MongoDB's view of JSON values: type brackets ({@code {"$oid"}} is an ObjectId, {@code {"$date"}}
 * a date) and the total cross-type order null &lt; numbers &lt; strings &lt; objects &lt; arrays &lt;
 * ObjectId &lt; booleans &lt; dates. The in-memory evaluator and {@link KeyEncoding} agree on it.
 */
public final class Values {
    private Values() {}

    /** The type bracket of a value; a Java null or missing node is {@link Bracket#MISSING}. */
    public static Bracket bracket(JsonNode value) {
        throw new UnsupportedOperationException("stub");
    }

    /** MongoDB's total order over single values (arrays compare element-wise, as BSON does). */
    public static int compare(JsonNode a, JsonNode b) {
        throw new UnsupportedOperationException("stub");
    }

    /** Type brackets in sort order; MISSING sorts with NULL. */
    public enum Bracket { MISSING, NULL, NUMBER, STRING, OBJECT, ARRAY, OBJECT_ID, BOOLEAN, DATE }
}
