package dev.weft.store.postgres;

import dev.weft.core.WeftException;
import dev.weft.store.WriterQueues;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The loop of a group writer or reader thread: take the next task, gather what else waits (at
 * most {@code max} in all), run them as one group. A group that throws is answered as a whole
 * with the failure, so no task is left waiting; the loop ends once closing and drained.
 */
final class GroupLoop {
    private GroupLoop() {}

    static <T> void serve(BlockingQueue<T> queue, BooleanSupplier closing, GroupGather gather, int max,
            Consumer<List<T>> run, BiConsumer<List<T>, WeftException> fail, String what) {
        List<T> group = new ArrayList<>();
        while (true) {
            T first = WriterQueues.next(queue, closing);
            if (first == null) {
                return;
            }
            group.add(first);
            gather.await(queue);
            queue.drainTo(group, max - 1);
            try {
                run.accept(group);
            } catch (RuntimeException e) {
                fail.accept(group, e instanceof WeftException w ? w : new WeftException(500, what + " failed: " + e.getMessage()));
            }
            group.clear();
        }
    }

    /** Waits for the loop threads to drain their queues and end, each at most 5 s. */
    static void join(List<Thread> threads) {
        for (Thread t : threads) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
