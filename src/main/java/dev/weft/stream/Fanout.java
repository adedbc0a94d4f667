package dev.weft.stream;

import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writers of a fan-out: a few platform threads (one per core by default), each owning a lane
 * of subscribers, that write the frames the dispatcher queued. Writing one event to thousands of
 * clients costs a socket write each, most of it in the kernel; done here, those writes run on
 * every core while the dispatcher only matches.
 *
 * <p>A subscriber belongs to one lane for its whole life ({@link #assign}, round robin). The
 * dispatcher queues a frame on the subscriber itself ({@link Subscriber#enqueue}), whose queue is
 * the ordering point, and adds the subscriber to its lane ({@link #add}) only when nobody is
 * already due to write it; lanes receive subscribers in chunks of {@link #CHUNK}, each as soon as
 * it is full and the last at {@link #flush} (end of the event), so a lane starts writing while
 * the dispatcher is still matching. A subscriber waits in its lane at most once at a time
 * ({@link Subscriber}), so a lane's backlog is bounded by its subscribers; and the dispatcher
 * does not run more than a set number of events ahead of any lane ({@link #awaitLanes}), so the
 * frames a client's queue gathers while its lane is busy stay under half the queue's bound.
 * Whichever thread then writes (the lane, or the I/O thread that completes the previous write)
 * takes frames from the subscriber's queue in order, one write in flight: per-subscriber order
 * does not depend on which thread runs. No thread waits for a client: writes are asynchronous.
 */
final class Fanout implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Fanout.class);
    static final int CHUNK = 256;

    private final Lane[] lanes;
    private final AtomicInteger next = new AtomicInteger();

    Fanout(int threads) {
        lanes = new Lane[Math.max(1, threads)];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane("weft-stream-fanout-" + i);
        }
    }

    /** The lane a new subscriber will always be written by. */
    Lane assign() {
        return lanes[Math.floorMod(next.getAndIncrement(), lanes.length)];
    }

    /** Dispatcher only: {@code s} has frames and nobody due to write them; its lane will. */
    void add(Subscriber s) {
        s.lane.collect(s);
    }

    /** Dispatcher only, at the end of each event: hands every lane what it collected. */
    void flush() {
        for (Lane lane : lanes) {
            lane.handOver();
        }
    }

    /**
     * Dispatcher only: waits while a lane has work left from more than {@code lag} events, so
     * that no subscriber waiting in a lane has more than {@code lag + 1} frames queued once the
     * next event is. Lanes never wait for clients, so this wait is short.
     */
    void awaitLanes(long lag) throws InterruptedException {
        for (Lane lane : lanes) {
            while (lane.handed - lane.done > lag) {
                LockSupport.parkNanos(50_000);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }
    }

    @Override
    public void close() {
        for (Lane lane : lanes) {
            lane.thread.interrupt();
        }
        for (Lane lane : lanes) {
            try {
                lane.thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Subscribers to pump; {@code last}: the last chunk of an event. */
    private record Chunk(Subscriber[] subscribers, boolean last) {}

    private static final Subscriber[] NONE = new Subscriber[0];

    /** One writer thread and the chunks of subscribers waiting for it. */
    static final class Lane {
        private final BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
        private final Thread thread;
        private Subscriber[] collecting = new Subscriber[CHUNK]; // dispatcher only
        private int collected; // dispatcher only
        private boolean midEvent; // dispatcher only: a chunk of the current event was handed over
        /** Dispatcher only: events this lane was given work for. */
        private long handed;
        /** Events whose work this lane has done. */
        private volatile long done;

        private Lane(String name) {
            thread = Thread.ofPlatform().name(name).daemon(true).start(this::run);
        }

        private void collect(Subscriber s) {
            collecting[collected++] = s;
            if (collected == CHUNK) {
                chunks.add(new Chunk(collecting, false));
                midEvent = true;
                collecting = new Subscriber[CHUNK];
                collected = 0;
            }
        }

        /**
         * Ends an event: hands over what was collected, and counts the event if the lane has any
         * work outstanding, even none new: a subscriber already waiting in the lane had a frame
         * queued by it. So {@code handed - done} bounds the frames any waiting subscriber has.
         */
        private void handOver() {
            if (collected > 0 || midEvent || handed != done) {
                chunks.add(new Chunk(collected == 0 ? NONE : Arrays.copyOf(collecting, collected), true));
                handed++;
                Arrays.fill(collecting, 0, collected, null);
                collected = 0;
                midEvent = false;
            }
        }

        private void run() {
            while (true) {
                Chunk chunk;
                try {
                    chunk = chunks.take();
                } catch (InterruptedException e) {
                    return;
                }
                for (Subscriber s : chunk.subscribers) {
                    try {
                        s.pump();
                    } catch (RuntimeException e) {
                        LOG.error("stream write failed", e);
                        s.cancel();
                    }
                }
                if (chunk.last) {
                    done++; // only this thread writes it
                }
            }
        }
    }
}
