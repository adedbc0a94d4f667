package dev.weft.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class OutageLogTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final OutageLog outages = new OutageLog(LoggerFactory.getLogger(OutageLogTest.class), 5000, now::get);

    private void advanceMs(long ms) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Test
    void firstFailureIsLoggedAtOnce() {
        assertEquals(Optional.of("write failed: refused"), outages.line("write failed", "refused"));
    }

    @Test
    void failuresInsideTheIntervalAreCountedNotLogged() {
        outages.line("write failed", "refused");
        for (int i = 0; i < 3; i++) {
            advanceMs(1000);
            assertEquals(Optional.empty(), outages.line("write failed", "refused"));
        }
        advanceMs(2000);
        assertEquals(Optional.of("read failed: refused (3 more database failures since the last line)"),
                outages.line("read failed", "refused"));
        assertEquals(Optional.empty(), outages.line("read failed", "refused"));
    }

    @Test
    void aFailureAfterAQuietIntervalIsLoggedWithoutACount() {
        outages.line("write failed", "refused");
        advanceMs(6000);
        assertEquals(Optional.of("write failed: timeout"), outages.line("write failed", "timeout"));
    }
}
