package dev.weft.query;

import java.math.BigDecimal;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Hash keys of scalar values under MongoDB's equality as {@link Values#compare} decides it, so
 * that {@code $in} finds a value among its operands in one lookup: two values that have keys
 * compare equal exactly when their keys are equal, and a value without a key never compares
 * equal to one with a key.
 *
 * <p>Keys: a string is itself; a boolean itself; a number its exact value, a {@link Long} when
 * it is an integer in the long range, else a {@link BigDecimal} without trailing zeros (so
 * {@code 1}, {@code 1.0} and {@code 1.00} share one key, and a double is taken as the exact
 * binary value the evaluator compares: {@code 0.1} the double is not {@code 0.1} the decimal);
 * an ObjectId its hex digits in lower case; a date its instant. No key: null and missing (which
 * equal each other), NaN, infinities and decimals too large for a double (the evaluator has its
 * own rules for those), objects, arrays and binary.
 */
public final class EqualityKeys {
    private EqualityKeys() {}

    private record ObjectId(String hex) {}

    private record Date(long millis) {}

    private static final double TWO_TO_63 = 0x1p63;
    private static final BigDecimal MAX_DOUBLE = new BigDecimal(Double.MAX_VALUE);

    /**
     * The key of {@code value} as text (a type letter, then the value), for indexes keyed by
     * strings (the change-stream subscriber index); empty when it has none.
     */
    public static Optional<String> text(JsonNode value) {
        return switch (of(value)) {
            case null -> Optional.empty();
            case String s -> Optional.of("s" + s);
            case Boolean b -> Optional.of(b ? "bt" : "bf");
            case Long l -> Optional.of("n" + l);
            case BigDecimal d -> Optional.of("n" + d.toPlainString());
            case ObjectId o -> Optional.of("o" + o.hex());
            case Date d -> Optional.of("d" + d.millis());
            default -> throw new IllegalStateException("no text for key " + of(value));
        };
    }

    /** The key of {@code value}, or null when it has none. */
    static Object of(JsonNode value) {
        if (value == null) {
            return null;
        }
        return switch (value.getNodeType()) {
            case STRING -> value.stringValue();
            case BOOLEAN -> value.booleanValue();
            case NUMBER -> number(value);
            case OBJECT -> switch (Values.bracket(value)) {
                case OBJECT_ID -> new ObjectId(Values.objectIdHex(value).toLowerCase(java.util.Locale.ROOT));
                case DATE -> new Date(Values.dateMillis(value));
                default -> null;
            };
            default -> null;
        };
    }

    private static Object number(JsonNode n) {
        if (n.isInt() || n.isLong() || n.isShort()) {
            return n.longValue();
        }
        if (n.isDouble() || n.isFloat()) {
            double d = n.doubleValue();
            if (!Double.isFinite(d)) {
                return null;
            }
            if (d == Math.rint(d) && Math.abs(d) < TWO_TO_63) {
                return (long) d;
            }
            return exact(new BigDecimal(d));
        }
        BigDecimal x = n.decimalValue();
        return x.abs().compareTo(MAX_DOUBLE) > 0 ? null : exact(x);
    }

    private static Object exact(BigDecimal value) {
        try {
            return value.longValueExact();
        } catch (ArithmeticException e) {
            return value.stripTrailingZeros();
        }
    }
}
