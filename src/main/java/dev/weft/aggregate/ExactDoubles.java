package dev.weft.aggregate;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A sum of doubles (and of the whole numbers added with them) kept exact and rounded once, when
 * read: the same whatever order the numbers came in, so that a {@code $sum} or {@code $avg} over
 * a scan read in parts, whose partial sums are added at the end, is exactly the one-range answer.
 * Added in order, 0.1 + 0.2 + 0.3 is 0.6000000000000001 while 0.1 + (0.2 + 0.3) is 0.6: which of
 * the two came out depended on where the scan was cut. MongoDB sums doubles in double-double
 * precision (about 106 bits), whose rounded result is this one but for extreme cancellations.
 *
 * <p>How: every finite double is a whole multiple of 2^-1074 below 2^1024, so the total is kept
 * as that multiple, a fixed-point number of {@link #WORDS} digits of 32 bits, each digit held in
 * a long so that a double's 53-bit mantissa is added into at most three digits without carrying
 * (a few nanoseconds, against ~400 for a BigDecimal addition); carries are settled every 2^30
 * additions, long before a digit could overflow, and when the total is read. Infinities and NaN
 * are counted apart (IEEE's rules: NaN, or both infinities, make NaN). Its size is fixed
 * ({@link #BYTES}), however many numbers are added.
 */
final class ExactDoubles {
    /** Digits of 32 bits from 2^-1074 up: 2,099 bits of finite doubles, and room for carries and the sign. */
    private static final int WORDS = 68;
    /** What one sum holds (its digits and the object), for the memory budget. */
    static final long BYTES = 8L * WORDS + 64;
    private static final long DIGIT = 0xffffffffL;
    private static final int ADDS_BETWEEN_CARRIES = 1 << 30;
    private static final BigDecimal UNIT = new BigDecimal(Double.MIN_VALUE); // 2^-1074, exactly

    private final long[] digits = new long[WORDS];
    private int adds;
    private boolean nan;
    private boolean positiveInfinity;
    private boolean negativeInfinity;

    void add(double v) {
        long bits = Double.doubleToRawLongBits(v);
        int exponent = (int) (bits >>> 52) & 0x7ff;
        if (exponent == 0x7ff) {
            if (Double.isNaN(v)) {
                nan = true;
            } else if (v > 0) {
                positiveInfinity = true;
            } else {
                negativeInfinity = true;
            }
            return;
        }
        long mantissa = bits & 0xfffffffffffffL;
        if (exponent != 0) {
            mantissa |= 1L << 52; // a normal double's hidden bit
        }
        if (mantissa == 0) {
            return;
        }
        int position = Math.max(exponent, 1) - 1; // of the mantissa's lowest bit, in units of 2^-1074
        int word = position >>> 5;
        int shift = position & 31;
        long low = (mantissa << shift) & DIGIT;
        long middle = (mantissa >>> (32 - shift)) & DIGIT;
        long high = shift == 0 ? 0 : mantissa >>> (64 - shift);
        if (bits < 0) {
            digits[word] -= low;
            digits[word + 1] -= middle;
            digits[word + 2] -= high;
        } else {
            digits[word] += low;
            digits[word + 1] += middle;
            digits[word + 2] += high;
        }
        if (++adds == ADDS_BETWEEN_CARRIES) {
            carry();
        }
    }

    /** Adds a whole number exactly: its two halves are doubles exactly. */
    void add(long v) {
        add((double) (v & DIGIT));
        add((double) (v >> 32) * 4294967296.0);
    }

    /** Adds {@code other}'s numbers (a sum over another part of the same inputs). */
    void merge(ExactDoubles other) {
        carry();
        other.carry();
        for (int i = 0; i < WORDS; i++) {
            digits[i] += other.digits[i];
        }
        adds = 1;
        nan |= other.nan;
        positiveInfinity |= other.positiveInfinity;
        negativeInfinity |= other.negativeInfinity;
    }

    /** Settles the carries: every digit but the top one back in [0, 2^32), the top one signed. */
    private void carry() {
        for (int i = 0; i < WORDS - 1; i++) {
            long c = digits[i] >> 32;
            digits[i] -= c << 32;
            digits[i + 1] += c;
        }
        adds = 0;
    }

    /** The total, rounded to the nearest double (ties to even; past the largest double, an infinity). */
    double value() {
        return plus(BigInteger.ZERO);
    }

    /** The total plus the whole number {@code whole}, rounded once as {@link #value} rounds. */
    double plus(BigInteger whole) {
        if (nan || positiveInfinity && negativeInfinity) {
            return Double.NaN;
        }
        if (positiveInfinity) {
            return Double.POSITIVE_INFINITY;
        }
        if (negativeInfinity) {
            return Double.NEGATIVE_INFINITY;
        }
        carry();
        BigInteger units = BigInteger.ZERO;
        for (int i = WORDS - 1; i >= 0; i--) {
            units = units.shiftLeft(32).add(BigInteger.valueOf(digits[i]));
        }
        units = units.add(whole.shiftLeft(1074)); // in units of 2^-1074
        return units.signum() == 0 ? 0.0 : new BigDecimal(units).multiply(UNIT).doubleValue();
    }
}
