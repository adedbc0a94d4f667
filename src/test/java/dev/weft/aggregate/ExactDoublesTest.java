package dev.weft.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ExactDoubles} against the exact sum BigDecimal makes of the same numbers, rounded once:
 * doubles of every exponent (subnormals, the largest), both signs, whole numbers, cancellations,
 * and any split of the inputs into two sums merged.
 */
class ExactDoublesTest {
    @Test
    void theSumIsTheExactSumRoundedOnceInAnyOrderAndAnySplit() {
        SplittableRandom random = new SplittableRandom(21);
        for (int round = 0; round < 3000; round++) {
            List<Object> numbers = new ArrayList<>();
            for (int i = random.nextInt(1, 40); i > 0; i--) {
                numbers.add(number(random));
            }
            BigDecimal exact = BigDecimal.ZERO;
            for (Object n : numbers) {
                exact = exact.add(n instanceof Double d ? new BigDecimal(d) : BigDecimal.valueOf((Long) n));
            }
            double expected = exact.doubleValue();
            int cut = random.nextInt(numbers.size() + 1);
            ExactDoubles whole = new ExactDoubles();
            ExactDoubles first = new ExactDoubles();
            ExactDoubles second = new ExactDoubles();
            for (int i = 0; i < numbers.size(); i++) {
                add(whole, numbers.get(i));
                add(i < cut ? first : second, numbers.get(i));
            }
            first.merge(second);
            assertThat(whole.value()).as(numbers.toString()).isEqualTo(expected);
            assertThat(first.value()).as(numbers + " cut at " + cut).isEqualTo(expected);
        }
    }

    @Test
    void inOrderTheNaiveSumDiffersButThisDoesNot() {
        ExactDoubles sum = new ExactDoubles();
        sum.add(0.1);
        sum.add(0.2);
        sum.add(0.3);
        assertThat(0.1 + 0.2 + 0.3).isEqualTo(0.6000000000000001);
        assertThat(sum.value()).isEqualTo(0.6);
    }

    @Test
    void cancellationsAndTheEdgesOfTheRange() {
        assertThat(sum(1e308, 1e308, -1e308)).isEqualTo(1e308); // in order the first two make an infinity
        assertThat(sum(1e308, 1e308)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(sum(Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE)).isEqualTo(Double.MIN_VALUE);
        assertThat(sum(1e16, 1.0, -1e16)).isEqualTo(1.0);
        assertThat(sum(Double.MIN_VALUE, Double.MIN_VALUE)).isEqualTo(2 * Double.MIN_VALUE);
        assertThat(sum(-0.0)).isEqualTo(0.0);
        assertThat(sum()).isEqualTo(0.0);
        assertThat(sum(-5.5, 2.25)).isEqualTo(-3.25);
        assertThat(sum(1.0, Double.POSITIVE_INFINITY)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(sum(Double.NEGATIVE_INFINITY, 1e308)).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(sum(Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY)).isNaN();
        assertThat(sum(1.0, Double.NaN)).isNaN();
        ExactDoubles longs = new ExactDoubles();
        longs.add(Long.MAX_VALUE);
        longs.add(Long.MIN_VALUE);
        longs.add(-1L);
        assertThat(longs.value()).isEqualTo(-2.0);
    }

    private static double sum(double... values) {
        ExactDoubles sum = new ExactDoubles();
        for (double v : values) {
            sum.add(v);
        }
        return sum.value();
    }

    private static void add(ExactDoubles sum, Object n) {
        if (n instanceof Double d) {
            sum.add(d);
        } else {
            sum.add((long) (Long) n);
        }
    }

    /** A finite double of any exponent and sign, a decimal-looking one, or a whole number. */
    private static Object number(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0 -> {
                double d;
                do {
                    d = Double.longBitsToDouble(random.nextLong());
                } while (!Double.isFinite(d));
                yield d;
            }
            case 1 -> Double.longBitsToDouble(random.nextLong(0, 1L << 52)) * (random.nextBoolean() ? 1 : -1); // subnormal
            case 2 -> Math.round(random.nextDouble() * 1e6) / 1000.0 * (random.nextBoolean() ? 1 : -1);
            case 3 -> random.nextDouble() * Math.pow(10, random.nextInt(-20, 20));
            case 4 -> random.nextLong();
            default -> (double) random.nextLong(-1000, 1000);
        };
    }
}
