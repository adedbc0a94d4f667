package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ParallelScanTest {
    /** The ranges are ordered, adjacent and cover every key from the smallest to the largest. */
    @Test
    void cutRangesCoverTheKeysInOrder() {
        Random random = new Random(3);
        for (int i = 0; i < 5000; i++) {
            byte[] a = bytes(random);
            byte[] b = bytes(random);
            if (Arrays.compareUnsigned(a, b) > 0) {
                byte[] t = a;
                a = b;
                b = t;
            }
            int parts = 1 + random.nextInt(5);
            List<ParallelScan.Range> ranges = ParallelScan.cut(a, b, parts);
            assertThat(ranges).hasSizeBetween(1, parts);
            assertThat(ranges.get(0).low()).isNull();
            assertThat(ranges.get(ranges.size() - 1).high()).isNull();
            for (int r = 1; r < ranges.size(); r++) {
                byte[] cut = ranges.get(r).low();
                assertThat(cut).isEqualTo(ranges.get(r - 1).high());
                assertThat(Arrays.compareUnsigned(cut, a)).isGreaterThan(0);
                assertThat(Arrays.compareUnsigned(cut, b)).isLessThanOrEqualTo(0);
                if (r > 1) {
                    assertThat(Arrays.compareUnsigned(cut, ranges.get(r - 1).low())).isGreaterThan(0);
                }
            }
        }
        // ObjectId-like keys a million apart split evenly
        byte[] lo = {7, 0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        byte[] hi = {7, 0x65, 0, 0, 0, 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40};
        assertThat(ParallelScan.cut(lo, hi, 4)).hasSize(4);
    }

    private static byte[] bytes(Random random) {
        byte[] b = new byte[random.nextInt(12)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (random.nextInt(3) == 0 ? 0 : random.nextInt(256));
        }
        return b;
    }
}
