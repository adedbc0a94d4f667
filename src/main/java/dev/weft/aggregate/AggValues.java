package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Values;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/** MongoDB's rules for values inside aggregation expressions (Java null is "missing"). */
final class AggValues {
    private AggValues() {}

    static boolean isNullish(JsonNode v) {
        return v == null || v.isNull() || v.isMissingNode();
    }

    /** Truthiness of {@code $cond}, {@code $and}...: false, null, missing and every zero are false. */
    static boolean truthy(JsonNode v) {
        if (isNullish(v)) {
            return false;
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isNumber()) {
            return v.doubleValue() != 0;
        }
        return true;
    }

    /**
     * Aggregation comparison ({@code $eq}, {@code $lt}, {@code $cmp}, {@code $sort} of results):
     * {@link Values#compare}, except that missing is below null, as MongoDB's expressions
     * compare them.
     */
    static int compare(JsonNode a, JsonNode b) {
        boolean am = a == null || a.isMissingNode();
        boolean bm = b == null || b.isMissingNode();
        if (am || bm) {
            if (am && bm) {
                return 0;
            }
            if (am) {
                return b.isNull() ? -1 : Values.compare(null, b);
            }
            return a.isNull() ? 1 : Values.compare(a, null);
        }
        return Values.compare(a, b);
    }

    /** {@code $type}'s name of a value. */
    static String typeName(JsonNode v) {
        if (v == null || v.isMissingNode()) {
            return "missing";
        }
        if (v.isNull()) {
            return "null";
        }
        if (v.isInt() || v.isShort()) {
            return "int";
        }
        if (v.isLong() || v.isBigInteger()) {
            return "long";
        }
        if (v.isBigDecimal()) {
            return "decimal";
        }
        if (v.isNumber()) {
            return "double";
        }
        if (v.isString()) {
            return "string";
        }
        if (v.isBoolean()) {
            return "bool";
        }
        if (v.isArray()) {
            return "array";
        }
        if (Values.isDate(v)) {
            return "date";
        }
        if (Values.isObjectId(v)) {
            return "objectId";
        }
        if (v.isObject() && v.size() == 1 && v.has("$timestamp")) {
            return "timestamp";
        }
        return "object";
    }

    /** A value for an array being built: missing becomes null, as MongoDB does in array literals. */
    static JsonNode orNull(JsonNode v) {
        return v == null || v.isMissingNode() ? Json.NODES.nullNode() : v;
    }

    static JsonNode date(long millis) {
        return Json.NODES.objectNode().put("$date", millis);
    }

    static ArrayNode array() {
        return Json.NODES.arrayNode();
    }

    static WeftException error(String operator, String message) {
        return WeftException.badRequest(operator + ": " + message);
    }

    /** 400 "{op} requires ... not {type}". */
    static WeftException typeError(String operator, String wanted, JsonNode got) {
        return error(operator, "requires " + wanted + ", not " + typeName(got));
    }

    /**
     * What a field path reads in an aggregation expression: objects step into the named field,
     * an array maps the rest of the path over its elements (keeping arrays, dropping elements
     * where the field is missing), a scalar before the end is missing. Unlike a filter's path,
     * a numeric segment is a field name, never an array position.
     */
    static JsonNode path(JsonNode value, String[] fields, int from) {
        for (int i = from; i < fields.length; i++) {
            if (value == null) {
                return null;
            }
            if (value.isObject()) {
                value = value.get(fields[i]);
            } else if (value.isArray()) {
                ArrayNode out = array();
                for (JsonNode element : value) {
                    if (element.isObject() || element.isArray()) {
                        JsonNode reached = path(element, fields, i);
                        if (reached != null) {
                            out.add(reached);
                        }
                    }
                }
                return out;
            } else {
                return null;
            }
        }
        return value;
    }
}
