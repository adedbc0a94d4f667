package dev.weft.query;

import tools.jackson.databind.JsonNode;

/**
 * The {@code $type} names and numbers of MongoDB. JSON numbers map by their parsed form: an
 * integer that fits 32 bits is "int", a larger one "long", a fraction "double", a decimal node
 * "decimal". Types JSON cannot hold (binData, regex, timestamp...) are accepted and never match.
 */
enum BsonType {
    DOUBLE("double", 1, Values.Bracket.NUMBER),
    STRING("string", 2, Values.Bracket.STRING),
    OBJECT("object", 3, Values.Bracket.OBJECT),
    ARRAY("array", 4, Values.Bracket.ARRAY),
    BIN_DATA("binData", 5, null),
    UNDEFINED("undefined", 6, null),
    OBJECT_ID("objectId", 7, Values.Bracket.OBJECT_ID),
    BOOL("bool", 8, Values.Bracket.BOOLEAN),
    DATE("date", 9, Values.Bracket.DATE),
    NULL("null", 10, Values.Bracket.NULL),
    REGEX("regex", 11, null),
    JAVASCRIPT("javascript", 13, null),
    INT("int", 16, Values.Bracket.NUMBER),
    TIMESTAMP("timestamp", 17, null),
    LONG("long", 18, Values.Bracket.NUMBER),
    DECIMAL("decimal", 19, Values.Bracket.NUMBER),
    MIN_KEY("minKey", -1, null),
    MAX_KEY("maxKey", 127, null),
    NUMBER("number", Integer.MIN_VALUE, Values.Bracket.NUMBER);

    private final String alias;
    private final int code;
    private final Values.Bracket bracket;

    BsonType(String alias, int code, Values.Bracket bracket) {
        this.alias = alias;
        this.code = code;
        this.bracket = bracket;
    }

    /** The bracket every value of this type is in; null for types JSON cannot hold. */
    Values.Bracket bracket() {
        return bracket;
    }

    static BsonType of(JsonNode spec) {
        for (BsonType t : values()) {
            if (spec.isString() ? t.alias.equals(spec.stringValue())
                    : spec.isNumber() && t != NUMBER && spec.doubleValue() == t.code) {
                return t;
            }
        }
        return null;
    }

    boolean matches(JsonNode value) {
        return switch (this) {
            case DOUBLE -> value.isDouble() || value.isFloat();
            case INT -> value.isInt() || value.isShort();
            case LONG -> value.isLong() || value.isBigInteger();
            case DECIMAL -> value.isBigDecimal();
            case NUMBER -> value.isNumber();
            case NULL -> value.isNull();
            case BIN_DATA, UNDEFINED, REGEX, JAVASCRIPT, TIMESTAMP, MIN_KEY, MAX_KEY -> false;
            default -> Values.bracket(value) == bracket;
        };
    }
}
