package dev.weft.aggregate;

import dev.weft.query.Values;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A {@code $group} key as a hash map key: equal exactly when MongoDB's equality holds
 * ({@link Values#compare} is 0: {@code 1}, {@code 1L} and {@code 1.0} are one key, null and
 * missing are one), with a hash that agrees with it, so a group is found in one lookup instead of
 * a tree's comparisons of whole keys. Keys whose hashes collide (made so on purpose, say) share a
 * bin that the map keeps as a tree ordered by {@link #compareTo}: a lookup then costs what the
 * tree's did, never a walk of every colliding key.
 */
final class GroupKey implements Comparable<GroupKey> {
    final JsonNode value;
    private final int hash;

    GroupKey(JsonNode value) {
        this.value = value;
        this.hash = hash(value);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof GroupKey k) || k.hash != hash) {
            return false;
        }
        if (value != null && value.isString() && k.value != null && k.value.isString()) {
            return value.stringValue().equals(k.value.stringValue()); // what compare says, without its code point walk
        }
        return Values.compare(k.value, value) == 0;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public int compareTo(GroupKey other) {
        return Values.compare(value, other.value);
    }

    /**
     * Whether every key equal to {@code v} is written exactly as it is (a string, true, false,
     * null, missing): then which input named the group first does not matter, and a group need
     * not compare positions to keep the first spelling (as it must for {@code 1} and {@code 1.0},
     * an ObjectId's hex case, or an object holding such).
     */
    static boolean spelledOneWay(JsonNode v) {
        return v == null || v.isString() || v.isBoolean() || v.isNull() || v.isMissingNode();
    }

    /**
     * Equal values hash alike: a number by its double (compare's equal numbers have equal doubles,
     * and -0.0 is 0), an ObjectId by its hex digits in lower case (compared case-blind), an object
     * or array by its parts in order (both compare in order).
     */
    static int hash(JsonNode v) {
        return switch (Values.bracket(v)) {
            case MISSING, NULL -> 1;
            case NUMBER -> {
                double d = v.doubleValue();
                yield Double.hashCode(d == 0 ? 0.0 : d);
            }
            case STRING -> v.asString().hashCode();
            case BOOLEAN -> Boolean.hashCode(v.booleanValue());
            case OBJECT_ID -> v.get("$oid").stringValue().toLowerCase(java.util.Locale.ROOT).hashCode();
            case DATE -> Long.hashCode(Values.dateMillis(v));
            case OBJECT -> {
                int h = 7;
                for (Map.Entry<String, JsonNode> e : v.properties()) {
                    h = 31 * (31 * h + e.getKey().hashCode()) + hash(e.getValue());
                }
                yield h;
            }
            case ARRAY -> {
                int h = 11;
                for (JsonNode e : v) {
                    h = 31 * h + hash(e);
                }
                yield h;
            }
        };
    }
}
