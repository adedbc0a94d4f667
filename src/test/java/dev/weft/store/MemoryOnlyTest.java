package dev.weft.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import org.junit.jupiter.api.Test;

class MemoryOnlyTest {
    @Test
    void aReadThatWouldWaitGivesUpInsideAnAttemptAndRunsOutsideOne() {
        assertThat(MemoryOnly.active()).isFalse();
        MemoryOnly.refuse(); // outside an attempt: a read may wait
        int[] ran = {0};
        assertThat(MemoryOnly.attempt(1_000_000_000L, () -> {
            ran[0]++;
            assertThat(MemoryOnly.active()).isTrue();
            MemoryOnly.refuse();
            ran[0]++;
            return true;
        })).isEqualTo(MemoryOnly.Outcome.WOULD_WAIT);
        assertThat(ran[0]).isEqualTo(1);
        assertThat(MemoryOnly.attempt(1_000_000_000L, () -> true)).isEqualTo(MemoryOnly.Outcome.ANSWERED);
        assertThat(MemoryOnly.active()).isFalse();
    }

    @Test
    void otherFailuresPropagate() {
        assertThatThrownBy(() -> MemoryOnly.attempt(1_000_000_000L, () -> {
            throw WeftException.badRequest("bad filter");
        })).isInstanceOf(WeftException.class).hasMessageContaining("bad filter");
    }

    @Test
    void aQueryPastTheAttemptsCpuBudgetGivesUpWhereItLooksAtTheClock() {
        assertThat(MemoryOnly.attempt(0, () -> {
            QueryTime time = QueryTime.start(60_000);
            long spin = System.nanoTime() + 5_000_000; // 5 ms of this thread's CPU
            while (System.nanoTime() - spin < 0) {
                Thread.onSpinWait();
            }
            for (int i = 0; i < 1_000; i++) {
                time.row();
            }
            return true;
        })).isEqualTo(MemoryOnly.Outcome.OVER_BUDGET);
        assertThat(MemoryOnly.attempt(60_000_000_000L, () -> {
            QueryTime time = QueryTime.start(60_000);
            for (int i = 0; i < 1_000; i++) {
                time.row();
            }
            return true;
        })).isEqualTo(MemoryOnly.Outcome.ANSWERED);
        QueryTime outside = QueryTime.start(60_000); // no attempt: only the query's own limit
        for (int i = 0; i < 1_000; i++) {
            outside.row();
        }
    }
}
