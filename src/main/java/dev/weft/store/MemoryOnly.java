package dev.weft.store;

import java.util.function.BooleanSupplier;

/**
 * A read run where it must not block: on a Jetty selector thread, which serves every connection
 * of its selector. Inside {@link #attempt}, a store answers from what it holds in memory or gives
 * up by throwing {@link NotInMemory} at the first point where it would wait on anything (a pooled
 * connection, a database statement, a lock another thread may hold for long), before it has
 * handed out any document. The caller then runs the same read again where it may block (a
 * virtual thread): so this is never a second way of answering, only the same code run where it
 * is cheaper to run (a request handed to a virtual thread costs about as much CPU as Jetty's
 * whole request handling, docs/decisions/0001).
 *
 * <p>Invariant: code that may block calls {@link #refuse} first; nothing refused has side
 * effects a retry could see twice (the reads it guards write nothing).
 */
public final class MemoryOnly {
    /** When the read must give up: a {@link System#nanoTime} deadline. */
    private static final ScopedValue<Long> DEADLINE = ScopedValue.newInstance();
    private static final NotInMemory NOT_IN_MEMORY = new NotInMemory();

    private MemoryOnly() {}

    /** The read would have to wait: it is run again where it may. Thrown without a stack trace. */
    public static final class NotInMemory extends RuntimeException {
        private NotInMemory() {
            super("not answerable from memory", null, false, false);
        }
    }

    /** Whether the current thread runs a read that must not block. */
    public static boolean active() {
        return DEADLINE.isBound();
    }

    /** The {@link System#nanoTime} at which the current read must give up; 0 when it may block. */
    public static long deadlineNanos() {
        return DEADLINE.orElse(0L);
    }

    /** Called where a read may block: gives up the read when it must not. */
    public static void refuse() {
        if (DEADLINE.isBound()) {
            throw NOT_IN_MEMORY;
        }
    }

    /**
     * Runs {@code read} where it must not block, for at most {@code budgetNanos} of the queries'
     * time ({@link QueryTime} gives up past it): true when it answered, false when it gave up
     * ({@link NotInMemory}) or declined. Any other failure propagates.
     */
    public static boolean attempt(long budgetNanos, BooleanSupplier read) {
        try {
            return ScopedValue.where(DEADLINE, System.nanoTime() + budgetNanos).call(read::getAsBoolean);
        } catch (NotInMemory e) {
            return false;
        }
    }
}
