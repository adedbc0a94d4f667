package dev.weft.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoginGuardTest {
    final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void refusesAfterNFailuresUntilTheWindowEnds() {
        LoginGuard guard = new LoginGuard(3, 10_000, 100, now::get);
        guard.failed("a");
        guard.failed("a");
        assertThat(guard.refusedFor("a")).isEmpty();
        guard.failed("a");
        assertThat(guard.refusedFor("a")).hasValue(10);
        assertThat(guard.refusedFor("b")).isEmpty();
        now.addAndGet(9_500_000_000L);
        assertThat(guard.refusedFor("a")).hasValue(1);
        now.addAndGet(600_000_000L);
        assertThat(guard.refusedFor("a")).isEmpty();
        guard.failed("a");
        assertThat(guard.refusedFor("a")).isEmpty();
    }

    @Test
    void tracksABoundedNumberOfAddresses() {
        LoginGuard guard = new LoginGuard(1, 10_000, 50, now::get);
        for (int i = 0; i < 10_000; i++) {
            guard.failed("10.0." + (i / 256) + "." + (i % 256));
        }
        assertThat(guard.refusedFor("10.0.39.15")).isPresent(); // the newest is kept
        int refused = 0;
        for (int i = 0; i < 10_000; i++) {
            refused += guard.refusedFor("10.0." + (i / 256) + "." + (i % 256)).isPresent() ? 1 : 0;
        }
        assertThat(refused).isLessThanOrEqualTo(50);
    }

    @Test
    void zeroFailuresTurnsTheGuardOff() {
        LoginGuard guard = new LoginGuard(0, 10_000, 50, now::get);
        for (int i = 0; i < 100; i++) {
            guard.failed("a");
        }
        assertThat(guard.refusedFor("a")).isEmpty();
    }

    @Test
    void theAddressIsNotAskedWhileNoFailureIsOnRecord() {
        LoginGuard guard = new LoginGuard(1, 10_000, 50, now::get);
        AtomicInteger asked = new AtomicInteger();
        AuthRequest request = new AuthRequest() {
            public Optional<String> header(String name) {
                return Optional.empty();
            }

            public String remoteAddress() {
                asked.incrementAndGet();
                return "a";
            }

            public void setResponseHeader(String name, String value) {}
        };
        assertThat(guard.refusedFor(request)).isEmpty();
        assertThat(asked).hasValue(0);
        guard.failed("a");
        assertThat(guard.refusedFor(request)).hasValue(10);
        assertThat(asked).hasValue(1);
    }
}
