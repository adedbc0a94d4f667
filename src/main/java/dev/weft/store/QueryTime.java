package dev.weft.store;

import dev.weft.core.WeftException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The time one query (a find, a count, the search of a bulk write) may run: {@code query-timeout-ms}, or less when the
 * request asked for less with {@code maxTimeMS} (a larger one does not raise it; 0 means no
 * request limit, as in MongoDB). Only the time the store spends reading and evaluating counts:
 * the time a slow client takes to receive what was already found is paused out, so a long
 * export to a slow client is not cut off for the client's sake.
 *
 * <p>The request's {@code maxTimeMS} reaches the store as a scoped value bound around the
 * endpoint ({@link #limitedTo}), so that no read signature has to carry it. Past the limit
 * the query stops and answers 503 with MongoDB's wording ({@link #exceeded}): the same status
 * as a PostgreSQL statement past {@code pg-statement-timeout-ms}, on both stores.
 *
 * <p>Used by one thread at a time.
 */
public final class QueryTime {
    public static final String PARAMETER = "maxTimeMS";
    private static final ScopedValue<Long> REQUESTED_MS = ScopedValue.newInstance();
    /** Rows between two looks at the clock: a look costs about as much as testing a small document. */
    private static final int CHECK_EVERY = 32;

    private final long limitMs;
    private final boolean requested;
    private final long budgetNanos;
    private long spentNanos;
    private long runningSince;
    private int rows;
    /** A read that must not block ({@link MemoryOnly}): its CPU budget is looked at with the clock. */
    private final boolean memoryOnly = MemoryOnly.active();

    private QueryTime(long limitMs, boolean requested) {
        this.limitMs = limitMs;
        this.requested = requested;
        this.budgetNanos = limitMs * 1_000_000;
        this.runningSince = System.nanoTime();
    }

    /** What runs under a request's limit (an endpoint, the ops of a write). */
    @FunctionalInterface
    public interface Limited<X extends Exception> {
        void run() throws X;
    }

    /** Runs {@code op} with {@code maxTimeMs} as the limit of the queries it runs (when lower than the setting). */
    public static <X extends Exception> void limitedTo(OptionalLong maxTimeMs, Limited<X> op) throws X {
        if (maxTimeMs.isEmpty() || maxTimeMs.getAsLong() == 0) {
            op.run();
            return;
        }
        ScopedValue.where(REQUESTED_MS, maxTimeMs.getAsLong()).call(() -> {
            op.run();
            return null;
        });
    }

    /** The request's {@code maxTimeMS} in force here, for work handed to another thread (the SQLite writer). */
    public static OptionalLong requested() {
        return REQUESTED_MS.isBound() ? OptionalLong.of(REQUESTED_MS.get()) : OptionalLong.empty();
    }

    /** The {@code maxTimeMS} parameter: absent, or a whole number of milliseconds from 0; anything else is a 400. */
    public static OptionalLong parse(Optional<String> raw) {
        if (raw.isEmpty()) {
            return OptionalLong.empty();
        }
        try {
            long ms = Long.parseLong(raw.get().trim());
            if (ms >= 0) {
                return OptionalLong.of(ms);
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw WeftException.badRequest("parameter " + PARAMETER + " must be a whole number of milliseconds, 0 or more");
    }

    /** Starts the clock of one query, limited by the setting and by the request's {@code maxTimeMS}, if lower. */
    public static QueryTime start(long settingMs) {
        long asked = REQUESTED_MS.orElse(0L);
        return asked > 0 && asked < settingMs ? new QueryTime(asked, true) : new QueryTime(settingMs, false);
    }

    /**
     * A clock for one part of this query read on another thread at the same time: the time left
     * now, the same wording past it (a QueryTime is used by one thread at a time).
     */
    public QueryTime part() {
        QueryTime part = new QueryTime(limitMs, requested);
        part.spentNanos = spentNanos + System.nanoTime() - runningSince;
        return part;
    }

    /** Stops counting (the results are being handed out). */
    public void pause() {
        spentNanos += System.nanoTime() - runningSince;
    }

    /** Counts again; then throws if the limit has passed meanwhile. */
    public void resume() {
        runningSince = System.nanoTime();
        if (spentNanos > budgetNanos) {
            throw exceeded();
        }
    }

    /** After a row was read: throws once the limit has passed (looks at the clock every few rows). */
    public void row() {
        if (++rows % CHECK_EVERY == 0) {
            checkNow();
        }
    }

    public void checkNow() {
        if (memoryOnly) {
            MemoryOnly.checkBudget(); // long for a selector thread: again on a thread of its own
        }
        if (expired()) {
            throw exceeded();
        }
    }

    public boolean expired() {
        return spentNanos + System.nanoTime() - runningSince > budgetNanos;
    }

    /** Milliseconds left, at least 1 (for a database's own statement timeout). */
    public long remainingMs() {
        return Math.max(1, (budgetNanos - spentNanos - (System.nanoTime() - runningSince)) / 1_000_000);
    }

    /** The instant (of {@link System#nanoTime}) the limit passes if the clock keeps running. */
    public long deadlineNanos() {
        return runningSince + budgetNanos - spentNanos;
    }

    public WeftException exceeded() {
        return new WeftException(503, "operation exceeded time limit: the query ran longer than " + limitMs + " ms ("
                + (requested ? "its " + PARAMETER : "the setting query-timeout-ms") + "); narrow its filter, use an index,"
                + (requested ? " or allow it more time" : " or ask the operator for a larger query-timeout-ms"));
    }
}
