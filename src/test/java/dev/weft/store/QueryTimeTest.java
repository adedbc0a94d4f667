package dev.weft.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class QueryTimeTest {

    private static String limitUnder(OptionalLong maxTimeMs, long settingMs) throws Exception {
        AtomicReference<String> message = new AtomicReference<>();
        QueryTime.limitedTo(maxTimeMs, () -> message.set(QueryTime.start(settingMs).exceeded().getMessage()));
        return message.get();
    }

    @Test
    void aRequestMayLowerTheSettingButNeverRaiseIt() throws Exception {
        assertThat(limitUnder(OptionalLong.of(5), 100)).contains("longer than 5 ms (its maxTimeMS)");
        assertThat(limitUnder(OptionalLong.of(500), 100)).contains("longer than 100 ms (the setting query-timeout-ms)");
        assertThat(limitUnder(OptionalLong.of(0), 100)).contains("longer than 100 ms (the setting query-timeout-ms)");
        assertThat(limitUnder(OptionalLong.empty(), 100)).contains("longer than 100 ms (the setting query-timeout-ms)");
        assertThat(QueryTime.start(100).exceeded().getMessage()).as("outside any request")
                .contains("longer than 100 ms (the setting query-timeout-ms)");
    }

    @Test
    void theParameterIsAWholeNumberOfMillisecondsFromZero() {
        assertThat(QueryTime.parse(Optional.empty())).isEmpty();
        assertThat(QueryTime.parse(Optional.of("0"))).hasValue(0);
        assertThat(QueryTime.parse(Optional.of("250"))).hasValue(250);
        for (String bad : new String[] {"-1", "", "1e3", "x", "99999999999999999999"}) {
            assertThatThrownBy(() -> QueryTime.parse(Optional.of(bad))).as(bad)
                    .isInstanceOfSatisfying(WeftException.class, e -> assertThat(e.status()).isEqualTo(400));
        }
    }

    @Test
    void timeWhileResultsAreHandedOutIsNotCounted() throws Exception {
        QueryTime time = QueryTime.start(50);
        time.pause();
        Thread.sleep(120);
        time.resume();
        time.checkNow();
        assertThat(time.expired()).isFalse();
        Thread.sleep(120);
        assertThat(time.expired()).isTrue();
        assertThatThrownBy(time::checkNow).isInstanceOfSatisfying(WeftException.class, e -> {
            assertThat(e.status()).isEqualTo(503);
            assertThat(e.getMessage()).startsWith("operation exceeded time limit");
        });
    }

    @Test
    void rowsLookAtTheClockEveryFewRows() throws Exception {
        QueryTime time = QueryTime.start(1);
        Thread.sleep(5);
        assertThatThrownBy(() -> {
            for (int i = 0; i < 32; i++) {
                time.row();
            }
        }).isInstanceOf(WeftException.class);
    }
}
