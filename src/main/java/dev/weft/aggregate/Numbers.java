package dev.weft.aggregate;

import dev.weft.core.Json;
import tools.jackson.databind.JsonNode;

/**
 * MongoDB's numeric results: int op int stays an int while it fits, else becomes a long, a long
 * that overflows becomes a double, and anything with a double (or decimal) is a double.
 */
final class Numbers {
    private Numbers() {}

    /** The widest of two kinds: 0 int, 1 long, 2 double. */
    static int kind(JsonNode n) {
        if (n.isInt() || n.isShort()) {
            return 0;
        }
        if (n.isLong() || n.isBigInteger()) {
            return 1;
        }
        return 2;
    }

    static JsonNode integral(long value, int kind) {
        if (kind == 0 && value == (int) value) {
            return Json.NODES.numberNode((int) value);
        }
        return Json.NODES.numberNode(value);
    }

    static JsonNode of(double value) {
        return Json.NODES.numberNode(value);
    }

    /**
     * {@code $add}'s running sum, as MongoDB's: whole numbers added as a long while it does not
     * overflow; from the first double, or from the long that overflows, a double for good, added
     * in order (MongoDB's {@code ExpressionAdd}). The accumulators sum exactly instead
     * ({@link ExactSum}).
     */
    static final class Sum {
        private long exact;
        private double approximate;
        private int kind;

        void add(JsonNode n) {
            int k = kind(n);
            if (k == 2 || kind == 2) {
                toDouble();
                approximate += n.doubleValue();
                return;
            }
            long v = n.longValue();
            long r = exact + v;
            if (((exact ^ r) & (v ^ r)) < 0) {
                toDouble();
                approximate += v;
                return;
            }
            exact = r;
            kind = Math.max(kind, k);
        }

        /** From now on a double, starting from the whole number summed so far. */
        private void toDouble() {
            if (kind != 2) {
                kind = 2;
                approximate = exact;
            }
        }

        JsonNode value() {
            return kind == 2 ? of(approximate) : integral(exact, kind);
        }

        double asDouble() {
            return kind == 2 ? approximate : exact;
        }
    }

    /**
     * {@code $multiply}'s running product, as MongoDB's {@code ExpressionMultiply}: a long product
     * and a double product of the same factors kept side by side; the long one while every factor
     * is whole and it does not overflow, else the double one, whose factors were all multiplied
     * as doubles in order (not the last exact long times the rest).
     */
    static final class Product {
        private long whole = 1;
        private double approximate = 1;
        private int kind;

        void multiply(JsonNode n) {
            kind = Math.max(kind, kind(n));
            approximate *= n.doubleValue();
            if (kind < 2) {
                try {
                    whole = Math.multiplyExact(whole, n.longValue());
                } catch (ArithmeticException overflow) {
                    kind = 2;
                }
            }
        }

        JsonNode value() {
            return kind == 2 ? of(approximate) : integral(whole, kind);
        }
    }

    static JsonNode subtract(JsonNode a, JsonNode b) {
        int k = Math.max(kind(a), kind(b));
        if (k == 2) {
            return of(a.doubleValue() - b.doubleValue());
        }
        try {
            return integral(Math.subtractExact(a.longValue(), b.longValue()), k);
        } catch (ArithmeticException overflow) {
            return of(a.doubleValue() - b.doubleValue());
        }
    }

    /** A double that holds a whole number, as the smallest integral kind that holds it. */
    static JsonNode whole(double v, int kind) {
        if (kind == 2 || Double.isNaN(v) || Double.isInfinite(v)) {
            return of(v);
        }
        return integral((long) v, kind);
    }
}
