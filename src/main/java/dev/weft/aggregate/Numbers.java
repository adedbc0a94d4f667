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
     * A running sum that keeps MongoDB's result type ({@code $add}, {@code $sum}, {@code $avg}).
     * Whole numbers are added exactly as a long; once a double comes (or a long overflows), the sum
     * is a double: added in order for {@code $add}, or kept exact and rounded once
     * ({@link ExactDoubles}) for the accumulators, whose partial sums over a scan read in parts
     * must add up to the one-range answer.
     */
    static final class Sum {
        private long exact;
        private double approximate;
        private int kind;
        /** Whether doubles are added exactly (an accumulator's sum) rather than in order ({@code $add}'s). */
        private final boolean exactDoubles;
        /** The exact sum once this sum is a double (made then: a whole-number sum holds none). */
        private ExactDoubles doubles;

        /** {@code $add}'s sum: doubles added in order. */
        Sum() {
            this(false);
        }

        /** With {@code exactDoubles}, an accumulator's sum: doubles added exactly, rounded when read. */
        Sum(boolean exactDoubles) {
            this.exactDoubles = exactDoubles;
        }

        void add(JsonNode n) {
            int k = kind(n);
            if (k == 2 || kind == 2) {
                toDouble();
                if (doubles != null) {
                    doubles.add(n.doubleValue());
                } else {
                    approximate += n.doubleValue();
                }
                return;
            }
            addIntegral(n.longValue(), k);
        }

        /** Adds an int ({@code k} 0) or a long (1), as {@link #add} adds a node holding it. */
        void addIntegral(long v, int k) {
            if (kind == 2) {
                addToDouble(v);
                return;
            }
            long r = exact + v;
            if (((exact ^ r) & (v ^ r)) < 0) {
                toDouble();
                addToDouble(v);
                return;
            }
            exact = r;
            kind = Math.max(kind, k);
        }

        /** From now on a double, starting from the whole number summed so far. */
        private void toDouble() {
            if (kind == 2) {
                return;
            }
            kind = 2;
            if (exactDoubles) {
                doubles = new ExactDoubles();
                doubles.add(exact);
            } else {
                approximate = exact;
            }
        }

        private void addToDouble(long v) {
            if (doubles != null) {
                doubles.add(v);
            } else {
                approximate += v;
            }
        }

        /** Adds {@code other}'s total (a sum over another part of the same inputs; both accumulators' sums). */
        void merge(Sum other) {
            if (kind == 2 || other.kind == 2) {
                toDouble();
                if (other.kind == 2) {
                    doubles.merge(other.doubles);
                } else {
                    doubles.add(other.exact);
                }
                return;
            }
            long r = exact + other.exact;
            if (((exact ^ r) & (other.exact ^ r)) < 0) {
                toDouble();
                doubles.add(other.exact);
                return;
            }
            exact = r;
            kind = Math.max(kind, other.kind);
        }

        /** Whether the sum is a double (so it may hold up to {@link ExactDoubles#BYTES}). */
        boolean isDouble() {
            return kind == 2;
        }

        JsonNode value() {
            return kind == 2 ? of(asDouble()) : integral(exact, kind);
        }

        double asDouble() {
            if (kind != 2) {
                return exact;
            }
            return doubles != null ? doubles.value() : approximate;
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
