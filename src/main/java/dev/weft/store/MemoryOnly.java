package dev.weft.store;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.BooleanSupplier;

/**
 * A read run where it must not block: on a Jetty selector thread, which serves every connection
 * of its selector. Inside {@link #attempt}, a store answers from what it holds in memory or gives
 * up by throwing {@link NotInMemory} at the first point where it would wait on anything (a pooled
 * connection, a database statement), before anything was sent, or once the read has used its CPU
 * budget ({@link #checkBudget}, where it counts rows). The caller then runs the same read again
 * where it may block (a virtual thread): so this is never a second way of answering, only the
 * same code run where it is cheaper to run (a request handed to a virtual thread costs about as
 * much CPU as Jetty's whole request handling, docs/decisions/0001).
 *
 * <p>The budget is the thread's CPU time, not the clock's: a selector thread the OS preempts
 * (a loaded machine) has done no more work, and the same read should not give up one time in a
 * hundred for it.
 *
 * <p>Invariant: code that may block calls {@link #refuse} first; nothing refused has side
 * effects a retry could see twice (the reads it guards write nothing).
 */
public final class MemoryOnly {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** The thread CPU time at which the current read gives up. */
    private static final ScopedValue<Long> CPU_DEADLINE = ScopedValue.newInstance();
    private static final NotInMemory WOULD_WAIT = new NotInMemory(Outcome.WOULD_WAIT);
    private static final NotInMemory OVER_BUDGET = new NotInMemory(Outcome.OVER_BUDGET);
    private static final NotInMemory NOT_NOW = new NotInMemory(Outcome.NOT_NOW);

    private MemoryOnly() {}

    /**
     * How an {@link #attempt} ended: answered; or gave up because the read needs what memory does
     * not hold (asked again, it needs it again), ran past its budget, or found a shared resource
     * passing in its way (a pooled connection in use, a planner count to refresh).
     */
    public enum Outcome { ANSWERED, WOULD_WAIT, OVER_BUDGET, NOT_NOW }

    /** The read would have to wait, or ran past its budget: it is run again where it may. No stack trace. */
    public static final class NotInMemory extends RuntimeException {
        private final Outcome outcome;

        private NotInMemory(Outcome outcome) {
            super("not answerable from memory: " + outcome, null, false, false);
            this.outcome = outcome;
        }
    }

    /** Whether the current thread runs a read that must not block. */
    public static boolean active() {
        return CPU_DEADLINE.isBound();
    }

    /** Called where a read may block: gives up the read when it must not. */
    public static void refuse() {
        if (CPU_DEADLINE.isBound()) {
            throw WOULD_WAIT;
        }
    }

    /** Called where a read would wait on something passing: a shared resource in use now, a remembered count to refresh (the next attempt may find neither). */
    public static void notNow() {
        if (CPU_DEADLINE.isBound()) {
            throw NOT_NOW;
        }
    }

    /** Called every few rows or documents: gives up a read that must not block once its CPU budget is spent. */
    public static void checkBudget() {
        if (CPU_DEADLINE.isBound() && THREADS.getCurrentThreadCpuTime() - CPU_DEADLINE.get() > 0) {
            throw OVER_BUDGET;
        }
    }

    /**
     * Runs {@code read} where it must not block, for at most {@code budgetNanos} of this thread's
     * CPU time: {@link Outcome#ANSWERED} when it returned true, else why it gave up (a read that
     * returns false declined before doing anything: {@link Outcome#WOULD_WAIT}). Any other failure
     * propagates.
     */
    public static Outcome attempt(long budgetNanos, BooleanSupplier read) {
        try {
            long deadline = THREADS.getCurrentThreadCpuTime() + budgetNanos;
            return ScopedValue.where(CPU_DEADLINE, deadline).call(read::getAsBoolean) ? Outcome.ANSWERED : Outcome.WOULD_WAIT;
        } catch (NotInMemory e) {
            return e.outcome;
        }
    }
}
