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
        Progress p = new Progress(s, from, MatchBudget.of(matcher.budget));
        try {
            do {
                readUnlocked(p);
            } while (!joinedOrEnded(p));
        } catch (WeftException e) {
            s.end(e.status() == 410 ? 1008 : 1011, e.getMessage());
        } catch (InterruptedException e) {
            s.end(1001, "the server is stopping");
        } catch (RuntimeException e) {
            LOG.error("stream replay failed", e);
            s.end(1011, "replay failed; the server log has the details");
        }
    }

    /** Where one replay stands: the last event it read, and the unlocked rounds it spent. */
    private static final class Progress {
        final Subscriber s;
        final MatchBudget budget;
        long position;
        int rounds;

        Progress(Subscriber s, long from, MatchBudget budget) {
            this.s = s;
            this.position = from;
            this.budget = budget;
        }

        /** Spends one of the {@value Replay#UNLOCKED_ROUNDS} reads that catch up with the feed outside the lock. */
        boolean roundLeft() {
            return ++rounds <= UNLOCKED_ROUNDS;
        }
    }

    /**
     * Reads the log outside the lock until the replay reached the live feed's last dispatched
     * event (as seen without the lock) or spent its unlocked rounds; waits for the client as it
     * goes (replay waits, live dispatch never does).
     */
    private void readUnlocked(Progress p) throws InterruptedException {
        while (!p.s.ended()) {
            while (p.s.queued() > clientQueue / 2 && !p.s.ended()) {
                Thread.sleep(5);
            }
            List<ChangeEvent> batch = batch(log, p.position);
            if (batch.isEmpty()) {
                if (p.position >= index.lastDispatched() || !p.roundLeft()) {
                    return;
                }
                continue;
            }
            for (ChangeEvent e : batch) {
                deliver(p.s, views.apply(e), p.budget);
                p.position = e.seq();
            }
        }
    }

    /**
     * Under {@link LiveIndex#lock}: joins the live feed when the replay caught up, reading here
     * only what is left once the unlocked rounds are spent; or answers false, without joining,
     * when the feed dispatched more between {@link #readUnlocked}'s check and the lock and rounds
     * are left to read that gap outside the lock.
     */
    private boolean joinedOrEnded(Progress p) {
        synchronized (index.lock) {
            if (p.s.ended()) {
                return true;
            }
            if (p.position < index.lastDispatched() && p.roundLeft()) {
                return false;
            }
            readUnderLock(p);
            if (!p.s.ended()) {
                index.join(p.s, Math.max(p.position, index.lastDispatched()));
            }
            return true;
        }
    }

    /** Reads up to the live feed's last dispatched event; the caller holds {@link LiveIndex#lock}. */
    private void readUnderLock(Progress p) {
        boolean more = true;
        while (more && p.position < index.lastDispatched() && !p.s.ended()) {
            List<ChangeEvent> batch = batch(log, p.position);
            more = !batch.isEmpty();
            for (ChangeEvent e : batch) {
                if (e.seq() > index.lastDispatched()) {
                    more = false;
                    break;
                }
                deliver(p.s, views.apply(e), p.budget);
                p.position = e.seq();
            }
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
