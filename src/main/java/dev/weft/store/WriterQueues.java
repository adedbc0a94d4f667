package dev.weft.store;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The wait of a store's writer thread for its next task (SQLite's single writer, PostgreSQL's
 * group writers). A writer ends only once it is closing and its queue is drained, so that every
 * task accepted before {@code close()} is run and answered; an interrupt does not end it.
 */
public final class WriterQueues {
    private WriterQueues() {}

    /** The next task, waiting for one; null once {@code closing} holds and the queue is empty. */
    public static <T> T next(BlockingQueue<T> queue, BooleanSupplier closing) {
        while (true) {
            T first;
            try {
                first = queue.poll(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                continue; // only close() ends the loop, after the queue is drained
            }
            if (first != null) {
                return first;
            }
            if (closing.getAsBoolean() && queue.isEmpty()) {
                return null;
            }
        }
    }
}
