package dev.weft.core;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.NumericNode;
import tools.jackson.databind.node.ValueNode;

/**
 * The JSON values both stores can hold and the query engine can compare, enforced where JSON is
 * parsed ({@link Json}) so that no entry (body, ndjson line, filter, update operand, rule) can
 * forget it, and a stored document can always be compared, sorted and indexed.
 *
 * <ul>
 *   <li>Numbers, MongoDB's way: an integer that fits 64 bits is a long; a larger one, or a
 *       decimal, is a double; one beyond the double range ({@code 1e999}, a 400-digit integer)
 *       is refused. Jackson would otherwise make a BigInteger or an infinity, which the key
 *       encoding cannot order and the writer turns into the string {@code "Infinity"}.
 *   <li>Strings and field names without U+0000 or an unpaired UTF-16 surrogate: PostgreSQL's
 *       {@code jsonb} refuses both, SQLite would keep them, so the stores would disagree.
 * </ul>
 */
final class Storable {
    private Storable() {}

    /** A value the stores cannot hold; {@link Json} adds what was being parsed. */
    static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** Jackson's node factory with the number rule: its parser builds every number through it. */
    static final class Numbers extends JsonNodeFactory {
        private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
        private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

        @Override
        public ValueNode numberNode(BigInteger v) {
            if (v == null) {
                return nullNode();
            }
            if (v.compareTo(LONG_MIN) >= 0 && v.compareTo(LONG_MAX) <= 0) {
                return numberNode(v.longValue());
            }
            return finite(v.doubleValue());
        }

        @Override
        public ValueNode numberNode(BigDecimal v) {
            return v == null ? nullNode() : finite(v.doubleValue());
        }

        @Override
        public NumericNode numberNode(double v) {
            return finite(v);
        }

        @Override
        public NumericNode numberNode(float v) {
            return finite(v);
        }

        private NumericNode finite(double v) {
            if (!Double.isFinite(v)) {
                throw new Refused("holds a number beyond the range of a double (about ±1.8e308);"
                        + " numbers are stored as 64-bit integers or doubles");
            }
            return super.numberNode(v);
        }
    }

    /**
     * Whether {@code json} may hold a string the stores refuse: only through an escape
     * ({@code \u0000}, {@code \ud800}) or a non-ASCII byte (Jackson decodes the overlong
     * {@code C0 80} as U+0000), so plain ASCII text is cleared by one pass over its bytes.
     */
    static boolean mayHoldUnstorableStrings(byte[] json) {
        for (byte b : json) {
            if (b == '\\' || b < 0) {
                return true;
            }
        }
        return false;
    }

    static boolean mayHoldUnstorableStrings(String json) {
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (c == '\\' || Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** Throws {@link Refused} for the first field name or string the stores cannot hold. */
    static void checkStrings(JsonNode node) {
        if (node.isString()) {
            check(node.stringValue());
        } else if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                check(field.getKey());
                checkStrings(field.getValue());
            }
        } else if (node.isArray()) {
            for (JsonNode element : node) {
                checkStrings(element);
            }
        }
    }

    static void check(String s) {
        String problem = problem(s);
        if (problem != null) {
            throw new Refused("holds " + problem + " in a string or field name, which cannot be stored");
        }
    }

    /** What makes {@code s} unstorable, or null. */
    static String problem(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                return "U+0000";
            }
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return "an unpaired UTF-16 surrogate (\\u" + Integer.toHexString(c) + ")";
            }
        }
        return null;
    }
}
