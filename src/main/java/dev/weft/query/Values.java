package dev.weft.query;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * MongoDB's view of JSON values: type brackets ({@code {"$oid"}} is an ObjectId, {@code {"$date"}}
 * a date) and the total cross-type order null &lt; numbers &lt; strings &lt; objects &lt; arrays &lt;
 * ObjectId &lt; booleans &lt; dates. The in-memory evaluator and {@link KeyEncoding} agree on it.
 *
 * <p>Within a bracket: numbers compare by value whatever their JSON representation (int, long,
 * double, decimal; NaN is below every other number, -0.0 equals 0.0); strings by Unicode code
 * point, which is the order of their UTF-8 bytes; objects as BSON does, field by field comparing
 * the value's bracket, then the field name, then the value; arrays element by element (bracket,
 * then value); ObjectIds by their 12 bytes; false before true; dates by instant.
 */
public final class Values {
    private Values() {}

    /** The type bracket of a value; a Java null or missing node is {@link Bracket#MISSING}. */
    public static Bracket bracket(JsonNode value) {
        if (value == null) {
            return Bracket.MISSING;
        }
        return switch (value.getNodeType()) {
            case MISSING -> Bracket.MISSING;
            case NULL -> Bracket.NULL;
            case NUMBER -> Bracket.NUMBER;
            case STRING, BINARY -> Bracket.STRING;
            case BOOLEAN -> Bracket.BOOLEAN;
            case ARRAY -> Bracket.ARRAY;
            case OBJECT, POJO -> objectBracket(value);
        };
    }

    private static Bracket objectBracket(JsonNode object) {
        if (object.size() != 1) {
            return Bracket.OBJECT;
        }
        JsonNode oid = object.get("$oid");
        if (oid != null) {
            return oid.isString() && isHex24(oid.stringValue()) ? Bracket.OBJECT_ID : Bracket.OBJECT;
        }
        JsonNode date = object.get("$date");
        if (date != null) {
            return dateMillisOrNull(date) != null ? Bracket.DATE : Bracket.OBJECT;
        }
        return Bracket.OBJECT;
    }

    /** True for an Extended JSON ObjectId {@code {"$oid": "<24 hex>"}}. */
    public static boolean isObjectId(JsonNode value) {
        return value != null && value.isObject() && objectBracket(value) == Bracket.OBJECT_ID;
    }

    /** True for an Extended JSON date {@code {"$date": ...}}. */
    public static boolean isDate(JsonNode value) {
        return value != null && value.isObject() && objectBracket(value) == Bracket.DATE;
    }

    /** The instant of a value whose bracket is {@link Bracket#DATE}, in epoch milliseconds. */
    public static long dateMillis(JsonNode date) {
        Long millis = dateMillisOrNull(date.get("$date"));
        if (millis == null) {
            throw new IllegalArgumentException("not an Extended JSON date: " + date);
        }
        return millis;
    }

    /** The 24 hex digits of a value whose bracket is {@link Bracket#OBJECT_ID}. */
    static String objectIdHex(JsonNode oid) {
        return oid.get("$oid").stringValue();
    }

    private static Long dateMillisOrNull(JsonNode inner) {
        if (inner.isIntegralNumber() && inner.canConvertToLong()) {
            return inner.longValue();
        }
        if (inner.isString()) {
            try {
                return Instant.parse(inner.stringValue()).toEpochMilli();
            } catch (DateTimeParseException | ArithmeticException e) {
                return null;
            }
        }
        if (inner.isObject() && inner.size() == 1) {
            JsonNode text = inner.get("$numberLong");
            if (text != null && text.isString()) {
                try {
                    return Long.parseLong(text.stringValue());
                } catch (NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }

    private static boolean isHex24(String s) {
        if (s.length() != 24) {
            return false;
        }
        for (int i = 0; i < 24; i++) {
            if (Character.digit(s.charAt(i), 16) < 0) {
                return false;
            }
        }
        return true;
    }

    /** MongoDB's total order over single values (arrays compare element-wise, as BSON does). */
    public static int compare(JsonNode a, JsonNode b) {
        Bracket ba = sortBracket(bracket(a));
        Bracket bb = sortBracket(bracket(b));
        if (ba != bb) {
            return ba.compareTo(bb);
        }
        return switch (ba) {
            case MISSING, NULL -> 0;
            case NUMBER -> compareNumbers(a, b);
            case STRING -> compareStrings(a.asString(), b.asString());
            case OBJECT -> compareObjects(a, b);
            case ARRAY -> compareArrays(a, b);
            case OBJECT_ID -> compareHex(objectIdHex(a), objectIdHex(b));
            case BOOLEAN -> Boolean.compare(a.booleanValue(), b.booleanValue());
            case DATE -> Long.compare(dateMillis(a), dateMillis(b));
        };
    }

    /** True when MongoDB's equality holds: same bracket (null and missing are one) and equal value. */
    public static boolean equal(JsonNode a, JsonNode b) {
        return compare(a, b) == 0;
    }

    /** MISSING and NULL are one bracket for ordering and equality. */
    static Bracket sortBracket(Bracket b) {
        return b == Bracket.MISSING ? Bracket.NULL : b;
    }

    static int compareNumbers(JsonNode a, JsonNode b) {
        boolean aIntegral = a.isInt() || a.isLong() || a.isShort();
        boolean bIntegral = b.isInt() || b.isLong() || b.isShort();
        if (aIntegral && bIntegral) {
            return Long.compare(a.longValue(), b.longValue());
        }
        double da = a.doubleValue();
        double db = b.doubleValue();
        if (Double.isNaN(da) || Double.isNaN(db)) {
            // NaN is one value, below every other number (MongoDB's order).
            return Boolean.compare(!Double.isNaN(da), !Double.isNaN(db));
        }
        // doubleValue() is monotone, so a strict difference of the doubles is the true order.
        if (da < db) {
            return -1;
        }
        if (da > db) {
            return 1;
        }
        boolean aFloating = a.isDouble() || a.isFloat();
        boolean bFloating = b.isDouble() || b.isFloat();
        if (aFloating && bFloating) {
            return 0;
        }
        if (Double.isInfinite(da)) {
            // A real infinity is beyond any decimal or integer that merely rounds to it.
            if (aFloating == bFloating) {
                return 0;
            }
            int sign = da > 0 ? 1 : -1;
            return aFloating ? sign : -sign;
        }
        return exact(a).compareTo(exact(b));
    }

    private static BigDecimal exact(JsonNode n) {
        if (n.isDouble() || n.isFloat()) {
            return new BigDecimal(n.doubleValue());
        }
        return n.decimalValue();
    }

    /** Code point order (the order of UTF-8 bytes), not Java's UTF-16 code unit order. */
    static int compareStrings(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char ca = a.charAt(i);
            char cb = b.charAt(i);
            if (ca != cb) {
                if (ca >= 0xD800 && cb >= 0xD800) {
                    return Integer.compare(codePointRank(ca), codePointRank(cb));
                }
                return ca - cb;
            }
        }
        return a.length() - b.length();
    }

    /** Moves surrogates above U+E000..U+FFFF, as their code points (>= U+10000) are. */
    private static int codePointRank(char c) {
        if (c >= 0xE000) {
            return c - 0x800;
        }
        return c + 0x2000;
    }

    private static int compareHex(String a, String b) {
        for (int i = 0; i < 24; i++) {
            int d = Character.digit(a.charAt(i), 16) - Character.digit(b.charAt(i), 16);
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    private static int compareObjects(JsonNode a, JsonNode b) {
        Iterator<Map.Entry<String, JsonNode>> ia = a.properties().iterator();
        Iterator<Map.Entry<String, JsonNode>> ib = b.properties().iterator();
        while (ia.hasNext() && ib.hasNext()) {
            Map.Entry<String, JsonNode> ea = ia.next();
            Map.Entry<String, JsonNode> eb = ib.next();
            int c = bracket(ea.getValue()).compareTo(bracket(eb.getValue()));
            if (c == 0) {
                c = compareStrings(ea.getKey(), eb.getKey());
            }
            if (c == 0) {
                c = compare(ea.getValue(), eb.getValue());
            }
            if (c != 0) {
                return c;
            }
        }
        return Boolean.compare(ia.hasNext(), ib.hasNext());
    }

    private static int compareArrays(JsonNode a, JsonNode b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            int c = compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** Type brackets in sort order; MISSING sorts with NULL. */
    public enum Bracket { MISSING, NULL, NUMBER, STRING, OBJECT, ARRAY, OBJECT_ID, BOOLEAN, DATE }
}
