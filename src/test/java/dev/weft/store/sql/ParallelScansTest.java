package dev.weft.store.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cuts between a split scan's ranges: increasing, strictly inside the keys' span, at most
 * ranges - 1; and the runs an unordered split hands out: every range once, shrinking to single ranges.
 */
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

    @Test
    void runsTakeEveryRangeOnceAndEndOnSingleRanges() {
        int ranges = 64;
        int readers = 2;
        List<Integer> runs = new java.util.ArrayList<>();
        for (int from = 0; from < ranges; ) {
            int length = ParallelScans.runLength(ranges - from, readers);
            assertThat(length).isBetween(1, ranges - from);
            runs.add(length);
            from += length;
        }
        assertThat(runs.stream().mapToInt(Integer::intValue).sum()).isEqualTo(ranges);
        assertThat(runs.getFirst()).isEqualTo(16); // a quarter of the ranges: each reader starts on a large run
        assertThat(runs.subList(runs.size() - 4, runs.size())).containsOnly(1); // and the last ones are single
        assertThat(runs).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        assertThat(runs.size()).isLessThan(20); // a statement per run: a few, not one per range
    }

    /**
     * Ids {@code "user" + n} (as the store encodes a string: a type byte, the UTF-8, two zero
     * bytes) fill only the digits' part of each byte's span, so most interpolated ranges are empty
     * and the others dense: the largest range read by one statement is what one reader may be
     * left reading alone at the end of an unordered scan.
     */
    @Test
    void noRangeOfAnUnorderedSplitHoldsMoreThanAFewHundredthsOfDecimalCounterIds() {
        int ids = 1_000_000;
        byte[] min = counterId(0);
        byte[] max = counterId(ids - 1);
        List<byte[]> cuts = ParallelScans.cut(min, max, 2 * ParallelScans.UNORDERED_RANGES_PER_READER);
        int[] rows = new int[cuts.size() + 1];
        for (int n = 0; n < ids; n++) {
            rows[rangeOf(cuts, counterId(n))]++;
        }
        int largest = Arrays.stream(rows).max().orElseThrow();
        assertThat(largest).isLessThanOrEqualTo(ids / 50); // with 128 ranges per reader: 111,110 (11%)
    }

    @Test
    void anUnorderedSplitOfTwoReadersRunsAFewDozenStatements() {
        int ranges = 2 * ParallelScans.UNORDERED_RANGES_PER_READER;
        int runs = 0;
        for (int from = 0; from < ranges; runs++) {
            from += ParallelScans.runLength(ranges - from, 2);
        }
        assertThat(runs).isLessThan(40);
    }

    private static byte[] counterId(int n) {
        byte[] text = ("user" + n).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] key = new byte[text.length + 3];
        key[0] = 0x30;
        System.arraycopy(text, 0, key, 1, text.length);
        return key;
    }

    /** The range {@code key} falls in: the number of cuts at or below it. */
    private static int rangeOf(List<byte[]> cuts, byte[] key) {
        int low = 0;
        int high = cuts.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Arrays.compareUnsigned(cuts.get(mid), key) <= 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    @Test
    void anOrderedSplitTakesOneRangeAtATime() {
        assertThat(ParallelScans.runLength(8, 0)).isEqualTo(1);
        assertThat(ParallelScans.runLength(1, 0)).isEqualTo(1);
    }
}
