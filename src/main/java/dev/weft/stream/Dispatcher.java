package dev.weft.stream;

import dev.weft.core.WeftException;
import dev.weft.query.ArrayKeys;
import dev.weft.query.MatchBudget;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live feed: one platform thread takes each commit's events in commit order from a bounded
 * queue ({@code stream-dispatch-queue}), matches each event once against its collection's
 * {@link Group}, and queues the frames on the subscribers, whose {@link Fanout} lanes write them.
 * If the queue overflows, the missed events are read back from the log ({@link #catchUp}), so
 * memory stays bounded and nothing is skipped.
 *
 * <p>Fields marked "dispatcher only" are touched by the dispatcher thread alone: the subscribers
 * to cut off, end or invalidate after the current event (never during the walk of a group,
 * which they leave), and those whose match is costly, matched again after the others' frames
 * were handed to the writers.
 */
final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    /**
     * Value tests a subscriber's match may take in the first pass over an event; one that needs
     * more is matched again, with the whole budget, once every other subscriber's frame is
     * handed to the writers, so its cost delays the others' next event, not this one.
     */
    private static final long QUICK_TESTS = 10_000;

    private final EventLog log;
    private final LiveIndex index;
    private final Matcher matcher;
    private final Function<ChangeEvent, EventView> views;
    private final Fanout fanout;
    private final StreamHub hub;
    private final AtomicLong sent;
    /** How many events the dispatcher may run ahead of the slowest lane ({@link Fanout#awaitLanes}). */
    private final long laneLag;
    private final BlockingQueue<List<ChangeEvent>> commits;
    private final AtomicBoolean overflowed = new AtomicBoolean();
    private final Thread thread;
    private volatile boolean stopping;
    /** Dispatcher only: the budget of the subscriber being matched, reset for each. */
    private final MatchBudget budget;
    /**
     * Dispatcher only: the first pass's bound on the access rule's own tests, reset for each
     * match; past it the subscriber waits for the second pass, where the rule is unbounded.
     */
    private final MatchBudget ruleTests;
    /**
     * Dispatcher only: the second pass's access rule, unbounded (it never ends a stream). It,
     * {@link #budget} and {@link #ruleTests} look large arrays of the current event up in
     * {@link #arrays}, so a rule naming an array (each subscriber a class of her own when it holds
     * {@code @user}) walks a writer's huge array once per event, not once per subscriber.
     */
    private final MatchBudget ruleUnbounded;
    /** Dispatcher only: the current event's large arrays, forgotten after it. */
    private final ArrayKeys arrays = ArrayKeys.remembering();
    /** Dispatcher only: subscribers whose queue filled during the current event, cut off after it. */
    private final List<Subscriber> full = new ArrayList<>();
    /** Dispatcher only: subscribers whose match ran past {@link #QUICK_TESTS}, matched after the others. */
    private final List<Subscriber> costly = new ArrayList<>();
    /** Dispatcher only: subscribers whose match ran past the whole budget, ended after the event. */
    private final java.util.Map<Subscriber, EventFrame> overBudget = new java.util.LinkedHashMap<>();
    /** Dispatcher only: each class of subscribers' answer in the current pass over the current event. */
    private final Answers answers = new Answers();
    /** Dispatcher only: frames queued for the current event, added to {@link #sent} once after it. */
    private long queued;
    /** Dispatcher only: subscribers the current event (a drop) invalidated, ended after it. */
    private final List<Subscriber> invalidated = new ArrayList<>();

    Dispatcher(EventLog log, LiveIndex index, Matcher matcher, Function<ChangeEvent, EventView> views, Fanout fanout,
               StreamHub hub, AtomicLong sent, int dispatchQueue, long laneLag) {
        this.log = log;
        this.index = index;
        this.matcher = matcher;
        this.views = views;
        this.fanout = fanout;
        this.hub = hub;
        this.sent = sent;
        this.laneLag = laneLag;
        this.budget = MatchBudget.of(matcher.budget, arrays);
        this.ruleTests = MatchBudget.of(QUICK_TESTS, arrays);
        this.ruleUnbounded = MatchBudget.of(Long.MAX_VALUE, arrays);
        this.commits = new ArrayBlockingQueue<>(dispatchQueue);
        log.addCommitListener((commit, events) -> {
            if (!commits.offer(events)) {
                overflowed.set(true);
            }
        });
        this.thread = Thread.ofPlatform().name("weft-stream-dispatch").daemon(true).start(this::run);
    }

    /** Takes no more commits (the server is stopping); {@link #stop} then ends the thread. */
    void stopTaking() {
        stopping = true;
    }

    /** Stops the thread (after the event it is dispatching). */
    void stop() {
        stopping = true;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (!stopping) {
            List<ChangeEvent> batch;
            try {
                batch = commits.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                continue;
            }
            try {
                if (overflowed.getAndSet(false)) {
                    catchUp();
                }
                if (batch != null) {
                    batch.forEach(this::dispatchNext);
                }
            } catch (RuntimeException e) {
                LOG.error("stream dispatch failed", e);
            } catch (InterruptedException e) {
                // stopping
            }
        }
    }

    /**
     * Dispatches one event under the lock, once no lane is more than {@link #laneLag} events
     * behind. The wait is outside the lock (a lane may need it to forget a client); it bounds
     * how many frames a client's queue gathers while its lane is busy, so a client is cut off
     * for reading too slowly, never for the server writing too slowly.
     */
    private void dispatchNext(ChangeEvent e) {
        try {
            fanout.awaitLanes(laneLag);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return;
        }
        synchronized (index.lock) {
            dispatch(e);
        }
    }

    /** Reads back from the log what the dispatch queue could not hold. */
    private void catchUp() throws InterruptedException {
        try {
            List<ChangeEvent> batch;
            while (!(batch = Replay.batch(log, index.lastDispatched())).isEmpty()) {
                batch.forEach(this::dispatchNext);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } catch (WeftException e) {
            LOG.error("stream dispatcher fell behind the retention window; ending every stream", e);
            hub.endAll(1013, "the server fell behind; resume with your last token");
            synchronized (index.lock) {
                index.dispatched(log.last());
            }
        }
    }

    /**
     * Under the lock: matches {@code e} against its collection's subscribers and queues it on
     * those it goes to; their lanes write it. Per-subscriber order holds because the queue is the
     * subscriber's and events are queued in commit order.
     */
    private void dispatch(ChangeEvent e) {
        if (e.seq() <= index.lastDispatched()) {
            return;
        }
        Group g = index.group(e.ns());
        if (g != null) {
            EventView v = views.apply(e);
            answers.clear();
            g.candidates(v, s -> consider(s, v));
            fanout.flush();
            if (!costly.isEmpty()) {
                answers.clear(); // the second pass has the whole budget
                for (Subscriber s : costly) {
                    ruleUnbounded.reset(Long.MAX_VALUE);
                    consider(s, v, matcher.budget, ruleUnbounded);
                }
                costly.clear();
                fanout.flush();
            }
            for (Subscriber s : full) {
                hub.cutOff(s);
                s.pump(); // writes the close 1013
            }
            full.clear();
            overBudget.forEach((s, why) -> s.end(1008, matcher.endReason(why, v)));
            overBudget.clear();
            invalidated.forEach(s -> s.invalidate(v.invalidate()));
            invalidated.clear();
            answers.clear(); // no frame outlives its event here
            arrays.forget();
            sent.addAndGet(queued);
            queued = 0;
        }
        index.dispatched(e.seq());
    }

    /** First pass: queues {@code v} on {@code s} if it has not replayed it and it matches. */
    private void consider(Subscriber s, EventView v) {
        if (v.event.seq() <= s.from()) {
            return;
        }
        if (Matcher.drops(s, v)) {
            invalidated.add(s); // ended after the walk of the group, which it leaves
        }
        ruleTests.reset(QUICK_TESTS);
        consider(s, v, Math.min(matcher.budget, QUICK_TESTS), ruleTests);
    }

    /**
     * Queues {@code v} on {@code s} if it matches with its filter within {@code tests} value tests
     * and its access rule within {@code rule}, matched once per class of equal queries
     * ({@link Answers}). Past them, a first pass leaves {@code s} to the second ({@link #costly});
     * past the whole budget, {@code s} is ended after the event (its rule never ends it).
     */
    private void consider(Subscriber s, EventView v, long tests, MatchBudget rule) {
        StreamQuery q = s.query();
        EventFrame frame = answers.get(q);
        if (frame == Answers.UNKNOWN) {
            frame = matcher.matchWithin(q, v, budget, tests, rule);
            answers.put(q, frame);
        }
        if (frame == Matcher.RULE_DEFERRED || frame == Matcher.TOO_COSTLY && tests < matcher.budget) {
            costly.add(s);
            return;
        }
        if (Matcher.ends(frame)) {
            overBudget.put(s, frame);
            return;
        }
        if (frame == null) {
            return;
        }
        switch (s.enqueue(frame)) {
            case PUMP -> {
                fanout.add(s);
                queued++;
            }
            case QUEUED -> queued++;
            case FULL -> full.add(s);
            case ENDED -> { }
        }
    }
}
