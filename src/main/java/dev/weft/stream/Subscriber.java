package dev.weft.stream;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One subscriber's bounded queue and its send pump. No thread waits for a client: frames are
 * queued by the dispatcher and written by whichever thread finds the outlet idle (the dispatcher,
 * or the I/O thread completing the previous write), one write in flight at a time. A queue that
 * reaches its bound means the client does not read fast enough: it is cut off (close 1013, and
 * the connection dropped after a grace period), so a slow client costs at most {@code max}
 * frame references, frames being shared between subscribers.
 *
 * <p>{@link #wip} makes the pump a trampoline: a write completing synchronously re-enters
 * {@link #drain} and merely counts, so the stack never grows with the queue.
 */
final class Subscriber implements StreamHub.Subscription {
    final StreamQuery query;
    private final Outlet outlet;
    private final StreamHub hub;
    private final int max;
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    private final AtomicInteger wip = new AtomicInteger();
    private boolean inFlight;
    private boolean ended;
    private int closeCode;
    private String closeReason;
    private volatile long lastWrite = System.nanoTime();
    /** Guarded by the hub's lock: true once the subscriber receives live events from the dispatcher. */
    boolean live;
    /** Guarded by the hub's lock: live events up to this seq were replayed from the log instead. */
    long from;
    /** Dispatcher-only: the seq of the last event this subscriber was considered for (dedupes candidates). */
    long seen = -1;

    Subscriber(StreamQuery query, Outlet outlet, StreamHub hub, int max) {
        this.query = query;
        this.outlet = outlet;
        this.hub = hub;
        this.max = max;
    }

    /** Queues a frame; a full queue cuts the client off. False once the subscriber has ended. */
    boolean offer(Frame frame) {
        boolean full;
        synchronized (this) {
            if (ended) {
                return false;
            }
            full = queue.size() >= max;
            if (full) {
                endLocked(1013, "slow consumer: more than stream-client-queue (" + max + ") events unsent");
            } else {
                queue.add(frame);
            }
        }
        if (full) {
            hub.cutOff(this); // outside this lock: the hub's lock is taken before a subscriber's, never after
        }
        drain();
        return !full;
    }

    /** Queued frames, for catch-up to wait on before reading more history. */
    synchronized int queued() {
        return queue.size();
    }

    synchronized boolean ended() {
        return ended;
    }

    /** Sends a heartbeat when nothing was written for {@code idleNanos}. */
    void heartbeat(long idleNanos) {
        synchronized (this) {
            if (ended || inFlight || !queue.isEmpty() || System.nanoTime() - lastWrite < idleNanos) {
                return;
            }
            queue.add(Frame.HEARTBEAT);
        }
        drain();
    }

    /** Ends the stream with a close code once what is in flight is written; queued frames are dropped. */
    void end(int code, String reason) {
        synchronized (this) {
            if (ended) {
                return;
            }
            endLocked(code, reason);
        }
        hub.remove(this);
        drain();
    }

    private void endLocked(int code, String reason) {
        ended = true;
        queue.clear();
        closeCode = code;
        closeReason = reason;
    }

    /** The client went away (or a write failed): forget it and release its connection. */
    @Override
    public void cancel() {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            queue.clear();
        }
        hub.remove(this);
        outlet.abort();
    }

    private void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        do {
            Frame next = null;
            int code = 0;
            String reason = null;
            synchronized (this) {
                if (!inFlight) {
                    if (closeReason != null) {
                        code = closeCode;
                        reason = closeReason;
                        closeReason = null;
                    } else if (!ended) {
                        next = queue.poll();
                        inFlight = next != null;
                    }
                }
            }
            if (reason != null) {
                outlet.close(code, reason);
            } else if (next != null) {
                lastWrite = System.nanoTime();
                outlet.send(next, this::sent);
            }
        } while (wip.decrementAndGet() != 0);
    }

    private void sent(Throwable failure) {
        synchronized (this) {
            inFlight = false;
        }
        if (failure != null) {
            cancel();
            return;
        }
        drain();
    }

    void abort() {
        outlet.abort();
    }
}
