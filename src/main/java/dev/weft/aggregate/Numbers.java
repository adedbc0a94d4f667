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

    /** A running sum that keeps MongoDB's result type ({@code $add}, {@code $sum}). */
    static final class Sum {
        private long exact;
        private double approximate;
        private int kind;

        void add(JsonNode n) {
            int k = kind(n);
            if (k == 2 || kind == 2) {
                if (kind != 2) {
                    approximate = exact;
                    kind = 2;
                }
                approximate += n.doubleValue();
                return;
            }
            addIntegral(n.longValue(), k);
        }

        /** Adds an int ({@code k} 0) or a long (1), as {@link #add} adds a node holding it. */
        void addIntegral(long v, int k) {
            if (kind == 2) {
                approximate += v;
                return;
            }
            long r = exact + v;
            if (((exact ^ r) & (v ^ r)) < 0) {
                kind = 2;
                approximate = (double) exact + v;
                return;
            }
            exact = r;
            kind = Math.max(kind, k);
        }

        /** Adds {@code other}'s total (a sum over another part of the same inputs). */
        void merge(Sum other) {
            if (kind == 2 || other.kind == 2) {
                approximate = asDouble() + other.asDouble();
                kind = 2;
                return;
            }
            long r = exact + other.exact;
            if (((exact ^ r) & (other.exact ^ r)) < 0) {
                approximate = (double) exact + other.exact;
                kind = 2;
                return;
            }
            exact = r;
            kind = Math.max(kind, other.kind);
        }

        JsonNode value() {
            return kind == 2 ? of(approximate) : integral(exact, kind);
        }

        double asDouble() {
            return kind == 2 ? approximate : exact;
        }
    }

    static JsonNode multiply(JsonNode a, JsonNode b) {
        int k = Math.max(kind(a), kind(b));
        if (k == 2) {
            return of(a.doubleValue() * b.doubleValue());
        }
        try {
            return integral(Math.multiplyExact(a.longValue(), b.longValue()), k);
        } catch (ArithmeticException overflow) {
            return of(a.doubleValue() * b.doubleValue());
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
