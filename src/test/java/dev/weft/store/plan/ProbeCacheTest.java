package dev.weft.store.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.KeyRange;
import dev.weft.store.MemoryOnly;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProbeCacheTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicLong counted = new AtomicLong();
    private static final List<KeyRange> A = List.of(new KeyRange(new byte[] {1}, new byte[] {2}));
    private static final List<KeyRange> B = List.of(new KeyRange(new byte[] {1}, new byte[] {3}));

    private ProbeCache cache(long ttlMs, int entries) {
        return new ProbeCache(ttlMs, entries, now::get);
    }

    /** The counter of a miss: counts how often the database would have been asked, answers {@code value}. */
    private ProbeCache.Counter answering(long value) {
        return () -> {
            counted.incrementAndGet();
            return value;
        };
    }

    @Test
    void aCountIsReusedForTheSameTableRangesAndCapUntilItsTimeIsUp() throws Exception {
        ProbeCache cache = cache(1000, 100);
        assertThat(cache.count(1, "i1", A, 10, answering(4))).isEqualTo(4);
        now.addAndGet(999_000_000L);
        assertThat(cache.count(1, "i1", A, 10, answering(7))).isEqualTo(4);
        assertThat(counted).hasValue(1);
        now.addAndGet(1_000_000L);
        assertThat(cache.count(1, "i1", A, 10, answering(7))).isEqualTo(7);
        assertThat(counted).hasValue(2);
    }

    @Test
    void otherRangesCapsOrTablesAreCountedAfresh() throws Exception {
        ProbeCache cache = cache(1000, 100);
        cache.count(1, "i1", A, 10, answering(4));
        assertThat(cache.count(1, "i1", List.of(new KeyRange(new byte[] {1}, new byte[] {2})), 10, answering(9)))
                .as("equal ranges in another list").isEqualTo(4);
        assertThat(cache.count(1, "i1", B, 10, answering(5))).isEqualTo(5);
        assertThat(cache.count(1, "i1", A, 20, answering(6))).isEqualTo(6);
        assertThat(cache.count(1, "i2", A, 10, answering(8))).isEqualTo(8);
        assertThat(cache.count(1, "i1", List.of(new KeyRange(new byte[] {1, 2}, new byte[0])), 10, answering(3)))
                .as("bounds split elsewhere are other ranges").isEqualTo(3);
        assertThat(counted).hasValue(5);
    }

    @Test
    void forgettingACollectionDropsItsCountsOnly() throws Exception {
        ProbeCache cache = cache(1000, 100);
        cache.count(1, "d1", A, 10, answering(4));
        cache.count(1, "i1", A, 10, answering(4));
        cache.count(2, "d2", A, 10, answering(4));
        cache.forget(1);
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.count(1, "i1", A, 10, answering(6))).isEqualTo(6);
        assertThat(cache.count(2, "d2", A, 10, answering(6))).isEqualTo(4);
    }

    @Test
    void aFullCacheStartsOver() throws Exception {
        ProbeCache cache = cache(1000, 2);
        cache.count(1, "i1", A, 10, answering(1));
        cache.count(1, "i1", B, 10, answering(2));
        cache.count(1, "i2", A, 10, answering(3));
        assertThat(cache.size()).isEqualTo(1);
        assertThat(cache.count(1, "i2", A, 10, answering(9))).isEqualTo(3);
    }

    @Test
    void rangesLongerThanTheBoundAreCountedEveryTime() throws Exception {
        ProbeCache cache = cache(1000, 100);
        List<KeyRange> many = new java.util.ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.add(new KeyRange(new byte[] {(byte) i, 0}, new byte[] {(byte) i, 1}));
        }
        cache.count(1, "i1", many, 10, answering(1));
        assertThat(cache.count(1, "i1", many, 10, answering(2))).isEqualTo(2);
        assertThat(cache.size()).isZero();
    }

    @Test
    void aTimeOfZeroCountsEveryProbe() throws Exception {
        ProbeCache cache = cache(0, 100);
        cache.count(1, "i1", A, 10, answering(1));
        assertThat(cache.count(1, "i1", A, 10, answering(2))).isEqualTo(2);
        assertThat(cache.size()).isZero();
    }

    /** Counted (or not) under {@link MemoryOnly}: how the attempt ended. */
    private MemoryOnly.Outcome inMemory(ProbeCache cache) {
        return MemoryOnly.attempt(1_000_000_000L, () -> {
            try {
                return cache.count(1, "i1", A, 10, answering(5)) == 5;
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @Test
    void aReadThatMustNotBlockUsesACountStillFreshAndLeavesACountToRefreshToTheNextRead() throws Exception {
        ProbeCache cache = cache(1000, 100);
        assertThat(inMemory(cache)).isEqualTo(MemoryOnly.Outcome.NOT_NOW);
        assertThat(counted).hasValue(0);
        assertThat(cache.count(1, "i1", A, 10, answering(5))).isEqualTo(5); // where it may wait
        assertThat(inMemory(cache)).isEqualTo(MemoryOnly.Outcome.ANSWERED);
        now.addAndGet(1_000_000_000L);
        assertThat(inMemory(cache)).isEqualTo(MemoryOnly.Outcome.NOT_NOW);
        assertThat(counted).hasValue(1);
    }
}
