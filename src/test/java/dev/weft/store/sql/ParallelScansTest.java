package dev.weft.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The cuts between a split scan's ranges: increasing, strictly inside the keys' span, at most ranges - 1. */
class ParallelScansTest {
    private static byte[] key(int... bytes) {
        byte[] out = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[i] = (byte) bytes[i];
        }
        return out;
    }

    private static void assertCutsInside(List<byte[]> cuts, byte[] min, byte[] max, int ranges) {
        assertThat(cuts.size()).isLessThanOrEqualTo(ranges - 1);
        byte[] previous = min;
        for (byte[] cut : cuts) {
            assertThat(Arrays.compareUnsigned(cut, previous)).isPositive();
            assertThat(Arrays.compareUnsigned(cut, max)).isNegative();
            previous = cut;
        }
    }

    @Test
    void cutsAnObjectIdLikeSpanEvenly() {
        byte[] min = key(0x60, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        byte[] max = key(0x60, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        List<byte[]> cuts = ParallelScans.cut(min, max, 8);
        assertThat(cuts).hasSize(7);
        assertCutsInside(cuts, min, max, 8);
        assertThat(cuts.get(3)).startsWith(key(0x60, 0x18));
    }

    @Test
    void keysOfOtherLengthsAndTypesStillGetCutsInsideTheirSpan() {
        byte[] min = key(0x20, 0x80, 0, 0, 0, 0, 0, 0, 1);
        byte[] max = key(0x60, 0x61);
        List<byte[]> cuts = ParallelScans.cut(min, max, 5);
        assertCutsInside(cuts, min, max, 5);
        assertThat(cuts).isNotEmpty();
    }

    @Test
    void oneKeyOrAdjacentKeysAreNotCut() {
        assertThat(ParallelScans.cut(key(1, 2, 3), key(1, 2, 3), 4)).isEmpty();
        assertCutsInside(ParallelScans.cut(key(1, 2, 3), key(1, 2, 3, 0), 4), key(1, 2, 3), key(1, 2, 3, 0), 4);
    }
}
