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
        })).isFalse();
        assertThat(ran[0]).isEqualTo(1);
        assertThat(MemoryOnly.attempt(1_000_000_000L, () -> true)).isTrue();
        assertThat(MemoryOnly.active()).isFalse();
    }

    @Test
    void otherFailuresPropagate() {
        assertThatThrownBy(() -> MemoryOnly.attempt(1_000_000_000L, () -> {
            throw WeftException.badRequest("bad filter");
        })).isInstanceOf(WeftException.class).hasMessageContaining("bad filter");
    }

    @Test
    void aQueryPastTheAttemptsBudgetGivesUpWhereItLooksAtTheClock() {
        assertThat(MemoryOnly.attempt(0, () -> {
            QueryTime time = QueryTime.start(60_000);
            for (int i = 0; i < 1_000; i++) {
                time.row();
            }
            return true;
        })).isFalse();
        assertThat(MemoryOnly.attempt(60_000_000_000L, () -> {
            QueryTime time = QueryTime.start(60_000);
            for (int i = 0; i < 1_000; i++) {
                time.row();
            }
            return true;
        })).isTrue();
        QueryTime outside = QueryTime.start(60_000); // no attempt: only the query's own limit
        for (int i = 0; i < 1_000; i++) {
            outside.row();
        }
    }
}
