package dev.weft.aggregate;

import java.math.BigDecimal;

/**
 * A sum of doubles (and of the whole numbers added with them) kept exact and rounded once, when
 * read: the same whatever order the numbers came in, so that a {@code $sum} or {@code $avg} over
 * a scan read in parts, whose partial sums are added at the end, is exactly the one-range answer.
 * Added in order, 0.1 + 0.2 + 0.3 is 0.6000000000000001 while 0.1 + (0.2 + 0.3) is 0.6: which of
 * the two came out depended on where the scan was cut. MongoDB sums doubles in double-double
 * precision (about 106 bits), whose rounded result is this one but for extreme cancellations.
 *
 * <p>Infinities and NaN are counted apart (IEEE's rules: NaN, or both infinities, make NaN).
 * Bounded: a finite double is a binary fraction of at most 1,074 places below the point and 309
 * digits above it, so the exact total never has more than about 1,400 digits ({@link #MAX_BYTES})
 * however many numbers are added, and one addition costs at most that many digits' work.
 */
final class ExactDoubles {
    /** What the exact total can hold at most (its digits as a BigInteger's words, and the objects). */
    static final long MAX_BYTES = 700;

    private BigDecimal finite = BigDecimal.ZERO;
    private boolean nan;
    private boolean positiveInfinity;
    private boolean negativeInfinity;

    void add(double v) {
        if (Double.isNaN(v)) {
            nan = true;
        } else if (v == Double.POSITIVE_INFINITY) {
            positiveInfinity = true;
        } else if (v == Double.NEGATIVE_INFINITY) {
            negativeInfinity = true;
        } else if (v != 0) {
            finite = finite.add(new BigDecimal(v));
        }
    }

    void add(long v) {
        if (v != 0) {
            finite = finite.add(BigDecimal.valueOf(v));
        }
    }

    /** Adds {@code other}'s numbers (a sum over another part of the same inputs). */
    void merge(ExactDoubles other) {
        finite = finite.add(other.finite);
        nan |= other.nan;
        positiveInfinity |= other.positiveInfinity;
        negativeInfinity |= other.negativeInfinity;
    }

    /** The total, rounded to the nearest double (ties to even; past the largest double, an infinity). */
    double value() {
        if (nan || positiveInfinity && negativeInfinity) {
            return Double.NaN;
        }
        if (positiveInfinity) {
            return Double.POSITIVE_INFINITY;
        }
        if (negativeInfinity) {
            return Double.NEGATIVE_INFINITY;
        }
        return finite.doubleValue();
    }
}
