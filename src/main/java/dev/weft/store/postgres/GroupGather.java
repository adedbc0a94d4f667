package dev.weft.store.postgres;

import java.util.concurrent.BlockingQueue;

/**
 * For tests of the group writers and readers: makes the next group wait until a given number of
 * tasks is queued (or a deadline passed), so that requests sent at once are known to share it.
 * Unset, it costs one volatile read per group.
 */
final class GroupGather {
    private volatile int count;
    private volatile long until;

    /** The next group starts once {@code tasks} tasks wait (its first included), or after {@code maxMs}. */
    void gather(int tasks, long maxMs) {
        until = System.currentTimeMillis() + maxMs;
        count = tasks;
    }

    /** Waits as asked, once; {@code queue} holds the tasks after the group's first. */
    void await(BlockingQueue<?> queue) {
        while (count > 0 && queue.size() + 1 < count && System.currentTimeMillis() < until) {
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                break;
            }
        }
        count = 0;
    }
}
