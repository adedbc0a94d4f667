package dev.weft.query;

import java.util.Arrays;
import tools.jackson.databind.JsonNode;

/**
 * A set of encodings of one indexed field: every e with {@code low <= e < prefixUpperBound(high)}
 * (unsigned byte order). Bounds are full encodings or bracket/string prefixes, never extensions
 * of a full encoding; with prefix-free encodings that makes {@link #inverted} exact. A point is
 * a single full encoding ({@code low == high}), which lets compound keys continue after it.
 */
record Interval(byte[] low, byte[] high, boolean point) {

    static Interval point(JsonNode value) {
        byte[] e = KeyEncoding.encode(value);
        return new Interval(e, e, true);
    }

    /** Every value of one type bracket. */
    static Interval bracket(Values.Bracket bracket) {
        byte[] b = {KeyEncoding.bracketByte(bracket)};
        return new Interval(b, b, false);
    }

    /** Every value of {@code value}'s bracket at or above it. */
    static Interval atLeast(JsonNode value) {
        return new Interval(KeyEncoding.encode(value), new byte[] {KeyEncoding.bracketByte(Values.bracket(value))}, false);
    }

    /** Every value of {@code value}'s bracket at or below it. */
    static Interval atMost(JsonNode value) {
        byte[] e = KeyEncoding.encode(value);
        return new Interval(new byte[] {e[0]}, e, false);
    }

    /** Every encoding that starts with {@code prefix}. */
    static Interval prefix(byte[] prefix) {
        return new Interval(prefix, prefix, false);
    }

    boolean contains(byte[] encoding) {
        return Arrays.compareUnsigned(encoding, low) >= 0
                && Arrays.compareUnsigned(encoding, KeyEncoding.prefixUpperBound(high)) < 0;
    }

    /** The intersection, or null when it is empty. */
    Interval intersect(Interval other) {
        if (point) {
            return other.contains(low) ? this : null;
        }
        if (other.point) {
            return contains(other.low) ? other : null;
        }
        byte[] lo = Arrays.compareUnsigned(low, other.low) >= 0 ? low : other.low;
        byte[] hiBound = KeyEncoding.prefixUpperBound(high);
        byte[] otherHiBound = KeyEncoding.prefixUpperBound(other.high);
        int c = Arrays.compareUnsigned(hiBound, otherHiBound);
        byte[] hi = c <= 0 ? high : other.high;
        byte[] bound = c <= 0 ? hiBound : otherHiBound;
        return Arrays.compareUnsigned(lo, bound) < 0 ? new Interval(lo, hi, false) : null;
    }

    /** The same set after every encoding's bytes are inverted (a descending index field). */
    Interval inverted() {
        byte[] lo = high.clone();
        byte[] hi = low.clone();
        KeyEncoding.invert(lo);
        KeyEncoding.invert(hi);
        return new Interval(lo, hi, point);
    }

    @Override
    public String toString() {
        return (point ? "point " : "[") + java.util.HexFormat.of().formatHex(low)
                + (point ? "" : ", " + java.util.HexFormat.of().formatHex(high) + "*]");
    }
}
