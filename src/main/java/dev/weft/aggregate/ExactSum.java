package dev.weft.aggregate;

import java.math.BigInteger;
import tools.jackson.databind.JsonNode;

/**
 * The running total of the {@code $sum} and {@code $avg} accumulators, as MongoDB's
 * {@code AccumulatorSum} keeps it: the whole numbers summed exactly and the widest type seen
 * (int, long, double) kept beside the total, so the result depends on the inputs and never on
 * their order or on where a scan was cut. MongoDB sums in double-double precision and returns an
 * int or long when every input was one and the total fits, else a double
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/, "Result Data Type"):
 * {@code [MAX_LONG, 1, -1]} is the long {@code MAX_LONG} in any order, {@code [MAX_LONG, 1]} the
 * double 2^63.
 *
 * <p>Invariants: the whole numbers' total is the 128-bit two's-complement number
 * {@code high:low} (2^64 longs cannot overflow it); the doubles' total is {@link #doubles}, made
 * with the first double (a whole-number sum holds none); the total is rounded once, when read.
 * Merging another part's sum gives exactly the sum of both parts' inputs.
 */
final class ExactSum {
    private long low;
    private long high;
    /** The widest input: 0 int, 1 long, 2 double ({@link Numbers#kind}). */
    private int kind;
    private ExactDoubles doubles;

    void add(JsonNode n) {
        int k = Numbers.kind(n);
        if (k == 2) {
            kind = 2;
            doubles().add(n.doubleValue());
        } else {
            addIntegral(n.longValue(), k);
        }
    }

    /** Adds an int ({@code k} 0) or a long (1), as {@link #add} adds a node holding it. */
    void addIntegral(long v, int k) {
        addWhole(v >> 63, v);
        kind = Math.max(kind, k);
    }

    /** Adds {@code other}'s total (a sum over another part of the same inputs). */
    void merge(ExactSum other) {
        addWhole(other.high, other.low);
        kind = Math.max(kind, other.kind);
        if (other.doubles != null) {
            doubles().merge(other.doubles);
        }
    }

    private void addWhole(long h, long l) {
        long sum = low + l;
        high += h + (Long.compareUnsigned(sum, low) < 0 ? 1 : 0);
        low = sum;
    }

    private ExactDoubles doubles() {
        if (doubles == null) {
            doubles = new ExactDoubles();
        }
        return doubles;
    }

    /** Whether a double was added (so the sum holds up to {@link ExactDoubles#BYTES}). */
    boolean isDouble() {
        return kind == 2;
    }

    /** MongoDB's result: an int or a long when every input was one and the total fits, else a double. */
    JsonNode value() {
        if (kind < 2 && fitsLong()) {
            return Numbers.integral(low, kind);
        }
        return Numbers.of(asDouble());
    }

    /** The total rounded once to a double ({@code $avg} divides it by the count, as MongoDB does). */
    double asDouble() {
        if (doubles != null) {
            return doubles.plus(whole());
        }
        return fitsLong() ? (double) low : whole().doubleValue();
    }

    private boolean fitsLong() {
        return high == low >> 63;
    }

    private BigInteger whole() {
        return BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low)));
    }
}
