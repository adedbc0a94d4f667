package dev.weft.store;

import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Logs database failures without flooding the log while the database is down (PostgreSQL
 * unreachable, SQLite's disk full): the first failure
 * is logged at once, later ones at most once per interval, each such line counting the failures
 * it stands for. Under a write load an outage fails every request; one line per request would
 * bury everything else in the log and cost more than the requests themselves.
 *
 * <p>Thread-safe; {@link #warn} takes a lock only long enough to decide.
 */
public final class OutageLog {
    private final Logger log;
    private final long intervalNanos;
    private final LongSupplier clock;
    private long lastLogged;
    private boolean logged;
    private long suppressed;

    public OutageLog(Logger log, long intervalMs) {
        this(log, intervalMs, System::nanoTime);
    }

    OutageLog(Logger log, long intervalMs, LongSupplier clock) {
        this.log = log;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMs);
        this.clock = clock;
    }

    public void warn(String what, String cause) {
        line(what, cause).ifPresent(log::warn);
    }

    /** The line to log for this failure, or empty when it falls inside the quiet interval. */
    Optional<String> line(String what, String cause) {
        long skipped;
        synchronized (this) {
            long now = clock.getAsLong();
            if (logged && now - lastLogged < intervalNanos) {
                suppressed++;
                return Optional.empty();
            }
            logged = true;
            lastLogged = now;
            skipped = suppressed;
            suppressed = 0;
        }
        return Optional.of(skipped == 0 ? what + ": " + cause
                : what + ": " + cause + " (" + skipped + " more database failures since the last line)");
    }
}
