package dev.weft.stream;

import dev.weft.core.WeftException;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One subscriber's bounded queue and its send pump. No thread waits for a client: frames are
 * queued by the dispatcher ({@link #enqueue}; a resuming client's replay uses {@link #offer}) and
 * written by whichever thread finds the outlet idle (the subscriber's {@link Fanout} lane, the
 * replay thread, or the I/O thread completing the previous write), one write in flight at a time,
 * in queue order. A queue that reaches its bound means the client does not read fast enough: it
 * is cut off (close 1013, and the connection dropped after a grace period), so a slow client
 * costs at most {@code max} frame references, frames being shared between subscribers.
 *
 * <p>{@link #pumpDue} is true from the moment the dispatcher hands the subscriber to its lane
 * until the lane pumps it, so a subscriber waits in a lane at most once however many events it
 * gets meanwhile (a lane's backlog is bounded by its subscribers), and is not handed over while
 * a write is in flight (that write's completion drains the queue). {@link #wip} makes the pump
 * a trampoline: a write completing synchronously re-enters {@link #drain} and merely counts, so
 * the stack never grows with the queue.
 */
final class Subscriber implements StreamHub.Subscription {
    /**
     * What the subscriber asked for, with the access it has now: replaced whole when the access
     * is renewed ({@link #renew}), read once per event, so an event sees the old rule or the new
     * one, never a mix. The namespace and the filter (hence the index) never change.
     */
    private volatile StreamQuery query;
    private final Grant grant;
    private final Outlet outlet;
    private final StreamHub hub;
    private final int max;
    /** Unique in its hub: orders subscribers whose credentials expire at the same millisecond. */
    private final long serial;
    /** The fan-out lane that writes this subscriber's live events. */
    final Fanout.Lane lane;
    private final ArrayDeque<EventFrame> queue = new ArrayDeque<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final Consumer<Throwable> onSent = this::sent; // made once, not per write
    private boolean inFlight;
    private boolean pumpDue;
    private boolean ended;
    private int closeCode;
    private String closeReason;
    /**
     * Guarded by this: a frame was started since the last heartbeat tick ({@link #heartbeat}).
     * A flag set under the lock the write takes anyway, instead of a clock read and a volatile
     * store per write: the fan-out's per-notification work is what limits it.
     */
    private boolean wrote = true;
    /** Guarded by {@link LiveIndex}'s lock: true once the subscriber receives live events from the dispatcher. */
    private boolean live;
    /** Guarded by {@link LiveIndex}'s lock: live events up to this seq were replayed from the log instead. */
    private long from;
    /** Dispatcher only: the seq of the last event this subscriber was considered for (dedupes candidates). */
    private long seen = -1;

    Subscriber(StreamQuery query, Grant grant, Outlet outlet, StreamHub hub, int max, Fanout.Lane lane, long serial) {
        this.serial = serial;
        this.query = query;
        this.grant = grant;
        this.outlet = outlet;
        this.hub = hub;
        this.max = max;
        this.lane = lane;
    }

    /** What the subscriber asked for, with the access it has now (read once per event). */
    StreamQuery query() {
        return query;
    }

    /** Under {@link LiveIndex}'s lock: joins the live feed, which brings the events after {@code from}. */
    void joined(long from) {
        this.from = from;
        this.live = true;
    }

    /** Under {@link LiveIndex}'s lock: leaves the live feed; false if it was not in it. */
    boolean left() {
        boolean was = live;
        live = false;
        return was;
    }

    /** Under {@link LiveIndex}'s lock: live events up to this seq were replayed instead. */
    long from() {
        return from;
    }

    /** Dispatcher only: true the first time the event {@code seq} meets this subscriber (an event may reach it by two values). */
    boolean firstSight(long seq) {
        if (seen == seq) {
            return false;
        }
        seen = seq;
        return true;
    }

    /** What {@link #enqueue} did. */
    enum Queued {
        /** The subscriber had ended: nothing queued. */
        ENDED,
        /** Queued; a pump is already due (or a write in flight), nothing more to do. */
        QUEUED,
        /** Queued; the caller must have the subscriber pumped ({@link Fanout#add}). */
        PUMP,
        /** The queue was full: the subscriber has ended; the caller must {@link StreamHub#cutOff} it. */
        FULL
    }

    /**
     * Checks the access again (the rules or users changed): the new access applies to every
     * later event, or, when the user may no longer open the stream, the stream ends (1008).
     * False when the check itself failed (the store is out): it is to be tried again.
     */
    boolean renew() {
        if (ended()) {
            return true;
        }
        try {
            query = grant.renew(query);
        } catch (WeftException e) {
            if (e.status() != 401 && e.status() != 403 && e.status() != 404) {
                return false;
            }
            end(1008, "access revoked: " + e.getMessage());
        }
        return true;
    }

    long serial() {
        return serial;
    }

    /** When the credential the stream was opened with expires (epoch ms; {@link Long#MAX_VALUE}: never). */
    long expiresAtMs() {
        return grant.expiresAtMs();
    }

    /** Ends the stream when its credential expired by {@code nowMs}; true if it did (or had already ended). */
    boolean expire(long nowMs) {
        if (nowMs < grant.expiresAtMs()) {
            return false;
        }
        end(1008, "the credential expired; reconnect with a fresh one and resume with your last token");
        return true;
    }

    /** Queues a frame without writing it (the dispatcher: its lane writes). */
    synchronized Queued enqueue(EventFrame frame) {
        Queued q = add(frame);
        if (q != Queued.QUEUED || pumpDue || inFlight) {
            return q;
        }
        pumpDue = true;
        return Queued.PUMP;
    }

    /** Queues a frame and writes on this thread (replay); a full queue cuts the client off. False once ended. */
    boolean offer(EventFrame frame) {
        Queued q;
        synchronized (this) {
            q = add(frame);
        }
        if (q == Queued.FULL) {
            hub.cutOff(this); // outside this lock: LiveIndex's lock is taken before a subscriber's, never after
        }
        drain();
        return q == Queued.QUEUED;
    }

    private Queued add(EventFrame frame) {
        if (ended) {
            return Queued.ENDED;
        }
        if (queue.size() >= max) {
            endLocked(1013, "slow consumer: more than stream-client-queue (" + max + ") events unsent");
            return Queued.FULL;
        }
        queue.add(frame);
        return Queued.QUEUED;
    }

    /** Writes what is queued: the fan-out lane, after {@link Queued#PUMP}, or the dispatcher after a cut-off (the close). */
    void pump() {
        synchronized (this) {
            pumpDue = false;
        }
        drain();
    }

    /** Queued frames, for catch-up to wait on before reading more history. */
    synchronized int queued() {
        return queue.size();
    }

    synchronized boolean ended() {
        return ended;
    }

    /**
     * A heartbeat tick: sends a heartbeat when nothing was written since the previous tick (the
     * hub ticks every half {@code stream-heartbeat-ms}, so an idle stream gets one every
     * {@code stream-heartbeat-ms}, a busy one none), or at once when {@code now} (a new stream:
     * its headers go on the wire) and nothing is queued or in flight.
     */
    void heartbeat(boolean now) {
        synchronized (this) {
            boolean idle = !wrote || now;
            wrote = false;
            if (ended || inFlight || !queue.isEmpty() || !idle) {
                return;
            }
            queue.add(EventFrame.HEARTBEAT);
        }
        drain();
    }

    /**
     * Queues {@code last} and ends the stream with a close code once every queued frame is
     * written (a stream invalidated by its collection's drop ends with what it was told).
     */
    void finish(EventFrame last, int code, String reason) {
        synchronized (this) {
            if (ended) {
                return;
            }
            queue.add(last);
            ended = true; // takes no more frames; drain still writes the queued ones, then closes
            closeCode = code;
            closeReason = reason;
        }
        hub.remove(this);
        drain();
    }

    /** After its collection's drop event: {@code invalidate}, then the stream ends (close 1000). */
    void invalidate(EventFrame invalidate) {
        finish(invalidate, 1000, "invalidate: the collection was dropped"); // a close reason has 123 bytes at most
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
            EventFrame next = null;
            int code = 0;
            String reason = null;
            synchronized (this) {
                if (!inFlight) {
                    next = queue.poll(); // empty once ended, but after finish
                    inFlight = next != null;
                    wrote |= inFlight;
                    if (next == null && closeReason != null) {
                        code = closeCode;
                        reason = closeReason;
                        closeReason = null;
                    }
                }
            }
            if (reason != null) {
                outlet.close(code, reason);
            } else if (next != null) {
                outlet.send(next, onSent);
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
