package dev.weft.stream;

import dev.weft.core.WeftException;
import dev.weft.query.MatchBudget;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A resuming subscriber's way into the live feed: reads the log after its token on its own
 * virtual thread, sending what {@link Matcher} lets through and waiting for the client (replay
 * waits, live dispatch never does), then, under {@link LiveIndex}'s lock, replays up to the last
 * dispatched event and joins there: no gap, no duplicate.
 */
final class Replay {
    private static final Logger LOG = LoggerFactory.getLogger(Replay.class);
    private static final int BATCH = 512;

    private final EventLog log;
    private final LiveIndex index;
    private final Matcher matcher;
    private final Function<ChangeEvent, EventView> views;
    private final int clientQueue;
    private final AtomicLong sent;

    Replay(EventLog log, LiveIndex index, Matcher matcher, Function<ChangeEvent, EventView> views, int clientQueue,
           AtomicLong sent) {
        this.log = log;
        this.index = index;
        this.matcher = matcher;
        this.views = views;
        this.clientQueue = clientQueue;
        this.sent = sent;
    }

    /** Starts replaying the log after {@code from} to {@code s}, then joins it to the live feed. */
    void start(Subscriber s, long from) {
        Thread.ofVirtual().name("weft-stream-replay").start(() -> run(s, from));
    }

    /** Reads the log in batches of {@value #BATCH} after {@code from} (the scale of {@code EventLog#catchUp}). */
    static List<ChangeEvent> batch(EventLog log, long from) {
        return log.after(from, BATCH);
    }

    /**
     * Reads of the log, once the replay reached its end, to catch up with what the live feed
     * dispatched meanwhile before taking {@link LiveIndex#lock}: a read under the lock holds up
     * every live event of the node for as long as the database takes, and a thousand streams
     * resuming at once (their node died) would each do one. Past these rounds the rest is read
     * under the lock (a feed faster than the reads).
     */
    private static final int UNLOCKED_ROUNDS = 8;

    private void run(Subscriber s, long from) {
        long position = from;
        int rounds = 0;
        MatchBudget budget = MatchBudget.of(matcher.budget);
        try {
            while (true) {
                while (!s.ended()) {
                    while (s.queued() > clientQueue / 2 && !s.ended()) {
                        Thread.sleep(5); // replay waits for the client; live dispatch never does
                    }
                    List<ChangeEvent> batch = batch(log, position);
                    if (batch.isEmpty()) {
                        // what the live feed dispatched meanwhile is read here too, not under the lock
                        if (position >= index.lastDispatched() || ++rounds > UNLOCKED_ROUNDS) {
                            break;
                        }
                        continue;
                    }
                    for (ChangeEvent e : batch) {
                        deliver(s, views.apply(e), budget);
                        position = e.seq();
                    }
                }
                synchronized (index.lock) {
                    // the feed may have dispatched between the check above and the lock: read that
                    // gap outside the lock too, while unlocked rounds are left
                    if (!s.ended() && position < index.lastDispatched() && ++rounds <= UNLOCKED_ROUNDS) {
                        continue;
                    }
                }
                break;
            }
            synchronized (index.lock) {
                boolean more = true;
                while (more && position < index.lastDispatched() && !s.ended()) {
                    List<ChangeEvent> batch = batch(log, position);
                    more = !batch.isEmpty();
                    for (ChangeEvent e : batch) {
                        if (e.seq() > index.lastDispatched()) {
                            more = false;
                            break;
                        }
                        deliver(s, views.apply(e), budget);
                        position = e.seq();
                    }
                }
                if (!s.ended()) {
                    index.join(s, Math.max(position, index.lastDispatched()));
                }
            }
        } catch (WeftException e) {
            s.end(e.status() == 410 ? 1008 : 1011, e.getMessage());
        } catch (InterruptedException e) {
            s.end(1001, "the server is stopping");
        } catch (RuntimeException e) {
            LOG.error("stream replay failed", e);
            s.end(1011, "replay failed; the server log has the details");
        }
    }

    /** Sends {@code v} to {@code s} on this thread if it matches; ends {@code s} past the budget. */
    private void deliver(Subscriber s, EventView v, MatchBudget budget) {
        EventFrame frame = matcher.matchWithin(s, v, budget, matcher.budget);
        if (Matcher.ends(frame)) {
            s.end(1008, matcher.endReason(frame, v));
        } else if (frame != null && s.offer(frame)) {
            sent.incrementAndGet();
        }
        if (Matcher.drops(s, v)) {
            s.invalidate(v.invalidate());
        }
    }
}
