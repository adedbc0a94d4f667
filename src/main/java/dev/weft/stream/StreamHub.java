package dev.weft.stream;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.MatchBudget;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import dev.weft.store.Namespace;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The change-stream engine: takes every commit's events from an {@link EventLog}, matches each
 * event once against the subscribers of its collection, and queues the frames on the
 * subscribers' {@link Outlet}s.
 *
 * <p>Threads: the store's writer only hands each commit's events to a bounded queue
 * ({@code stream-dispatch-queue}); one dispatcher thread matches them in commit order and queues
 * the frames on the subscribers; a few {@link Fanout} threads (one per core) write them, each
 * subscriber always by the same one, asynchronously ({@link Subscriber}); one scheduler thread
 * sends heartbeats and drops cut-off clients. No thread waits per client. If the dispatch queue
 * overflows, the dispatcher reads the missed events back from the log, so memory stays bounded
 * and nothing is skipped.
 *
 * <p>Matching is not O(subscribers): subscribers are grouped by collection, and within it
 * indexed by one equality predicate of their filter when it has one (path and value), so an
 * event only meets the subscribers whose value it carries, plus those with no usable equality.
 * Matching allocates nothing per subscriber: the dispatcher walks the group's sets in place (a
 * subscriber cut off meanwhile leaves them only after the walk), and shares one rendered frame
 * between every subscriber that receives the event unchanged.
 *
 * <p>Order and exactly-once: the dispatcher holds {@link #lock} while it dispatches an event and
 * advances {@link #lastDispatched}. A resuming subscriber first replays the log on its own virtual thread,
 * then, under the lock, replays up to {@code lastDispatched} and joins the index with
 * {@link Subscriber#from} set to where its replay stopped: every later event reaches it live
 * exactly once, in order.
 *
 * <p>What a subscriber receives of an event is decided by one function, {@link #match}, for the
 * replay and the live feed alike: the collection, the filter, the access rule (read filter,
 * projection) and the collection's document policy ({@link EventView}). A resume token is only a
 * position in the log; it grants nothing. A {@code drop} of the collection ends every stream of
 * it with {@code drop} and {@code invalidate}; a token from before it is refused ({@link #check}).
 */
public final class StreamHub implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamHub.class);
    private static final int REPLAY_BATCH = 512;
    private static final long ABORT_GRACE_MS = 2000;
    private static final long CLOSE_GRACE_MS = 300;
    /**
     * Value tests a subscriber's match may take in the first pass over an event; one that needs
     * more is matched again, with the whole budget, once every other subscriber's frame is
     * handed to the writers, so its cost delays the others' next event, not this one.
     */
    private static final long QUICK_TESTS = 10_000;
    /** What {@link #matchWithin} answers when the match ran out of value tests. */
    private static final EventFrame TOO_COSTLY = new EventFrame("", new byte[0]);

    /** A running subscription; cancel it when the client goes away. */
    public interface Subscription {
        void cancel();
    }

    /** The subscribers of one collection: indexed by an equality (path, then value key), or scanned. */
    private static final class Group {
        final Set<Subscriber> scan = new LinkedHashSet<>();
        final Map<String, Map<String, Set<Subscriber>>> byEquality = new HashMap<>();

        boolean isEmpty() {
            return scan.isEmpty() && byEquality.isEmpty();
        }
    }

    private final EventLog log;
    private final Json json;
    private final DocumentPolicy.Lookup policies;
    private final int clientQueue;
    private final long heartbeatNanos;
    private final long accessCheckMs;
    private final Object lock = new Object();
    private final Map<Namespace, Group> groups = new HashMap<>();
    private final Set<Subscriber> all = ConcurrentHashMap.newKeySet();
    private final BlockingQueue<List<ChangeEvent>> commits;
    private final AtomicBoolean overflowed = new AtomicBoolean();
    private final AtomicLong cutOffs = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong evaluations = new AtomicLong();
    private final Thread dispatcher;
    private final Fanout fanout;
    /** How many events the dispatcher may run ahead of the slowest lane ({@link Fanout#awaitLanes}). */
    private final long laneLag;
    /** Dispatcher only: subscribers whose queue filled during the current event, cut off after it. */
    private final List<Subscriber> full = new ArrayList<>();
    /** Value tests one event may cost one subscriber ({@code stream-match-budget}). */
    private final long matchBudget;
    /** Dispatcher only: the budget of the subscriber being matched, reset for each. */
    private final MatchBudget dispatchBudget;
    /** Dispatcher only: subscribers whose match ran past {@link #QUICK_TESTS}, matched after the others. */
    private final List<Subscriber> costly = new ArrayList<>();
    /** Dispatcher only: subscribers whose match ran past {@link #matchBudget}, ended after the event. */
    private final List<Subscriber> overBudget = new ArrayList<>();
    /** Dispatcher only: subscribers the current event (a drop) invalidated, ended after it. */
    private final List<Subscriber> invalidated = new ArrayList<>();
    private final ScheduledExecutorService scheduler;
    private volatile long lastDispatched;
    private volatile boolean closing;

    /** {@code policies}: what each collection lets leave the API (the users collection hides passwords). */
    public StreamHub(EventLog log, Json json, Settings settings, DocumentPolicy.Lookup policies) {
        this(log, json, settings, policies, Runtime.getRuntime().availableProcessors());
    }

    StreamHub(EventLog log, Json json, Settings settings, DocumentPolicy.Lookup policies, int fanoutThreads) {
        this.log = log;
        this.json = json;
        this.policies = policies;
        this.clientQueue = settings.streamClientQueue();
        this.heartbeatNanos = TimeUnit.MILLISECONDS.toNanos(settings.streamHeartbeatMs());
        this.accessCheckMs = settings.streamAccessCheckMs();
        this.matchBudget = settings.streamMatchBudget();
        this.dispatchBudget = MatchBudget.of(matchBudget);
        this.commits = new ArrayBlockingQueue<>(settings.streamDispatchQueue());
        this.lastDispatched = log.last();
        this.fanout = new Fanout(fanoutThreads);
        this.laneLag = (clientQueue - 1) / 2; // a client's queue then holds at most half its bound from lane lag alone
        log.addCommitListener((commit, events) -> {
            if (!commits.offer(events)) {
                overflowed.set(true);
            }
        });
        this.dispatcher = Thread.ofPlatform().name("weft-stream-dispatch").daemon(true).start(this::dispatchLoop);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("weft-stream-timer").daemon(true).factory());
        long every = settings.streamHeartbeatMs() / 2;
        scheduler.scheduleAtFixedRate(() -> all.forEach(s -> s.heartbeat(heartbeatNanos / 2)), every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * Refuses, before anything is sent, a resume position the log cannot serve: 410 too old, 400
     * unknown, 410 before a drop of the collection (its stream was invalidated there).
     */
    public void check(StreamQuery query) {
        if (query.resumeAfter().isPresent()) {
            long after = query.resumeAfter().getAsLong();
            log.after(after, 1);
            log.droppedAfter(query.ns(), after).ifPresent(drop -> {
                throw EventLog.invalidated(query.ns(), drop);
            });
        }
    }

    /** Starts delivering the events {@code query} selects to {@code outlet}, with access that never changes. */
    public Subscription subscribe(StreamQuery query, Outlet outlet) {
        return subscribe(query, Grant.UNCHANGING, outlet);
    }

    /**
     * Starts delivering the events {@code query} selects to {@code outlet}; {@code grant} renews
     * the query's access when {@link #watchAccess}'s version moves, and ends the stream at its
     * credential's expiry.
     */
    public Subscription subscribe(StreamQuery query, Grant grant, Outlet outlet) {
        if (closing) {
            throw new WeftException(503, "the server is stopping");
        }
        Subscriber s = new Subscriber(query, grant, outlet, this, clientQueue, fanout.assign());
        all.add(s);
        if (query.resumeAfter().isEmpty()) {
            synchronized (lock) {
                join(s, lastDispatched);
            }
        } else {
            long from = query.resumeAfter().getAsLong();
            Thread.ofVirtual().name("weft-stream-replay").start(() -> replay(s, from));
        }
        s.heartbeat(0); // puts the stream on the wire now (SSE headers), unless an event already does
        return s;
    }

    /**
     * Every {@code stream-access-check-ms}: when {@code accessVersion} (which grows with every
     * change of the access rules or users, on any node) moved, renews every open stream's access
     * on a virtual thread, ending those whose user may no longer open them; and ends the streams
     * whose credential expired. A check that fails (the store is out) is tried at the next tick.
     */
    public void watchAccess(LongSupplier accessVersion) {
        AtomicLong checked = new AtomicLong(accessVersion.getAsLong());
        AtomicBoolean renewing = new AtomicBoolean();
        scheduler.scheduleWithFixedDelay(() -> {
            long version = accessVersion.getAsLong();
            if (version != checked.get() && renewing.compareAndSet(false, true)) {
                Thread.ofVirtual().name("weft-stream-access").start(() -> {
                    try {
                        if (renewAll()) {
                            checked.set(version); // read before the renewals: a change meanwhile renews again
                        }
                    } finally {
                        renewing.set(false);
                    }
                });
            }
            long now = System.currentTimeMillis();
            all.forEach(s -> s.expire(now));
        }, accessCheckMs, accessCheckMs, TimeUnit.MILLISECONDS);
    }

    private boolean renewAll() {
        boolean done = true;
        for (Subscriber s : List.copyOf(all)) {
            try {
                done &= s.renew();
            } catch (RuntimeException e) {
                LOG.warn("stream access check failed; tried again at the next tick", e);
                done = false;
            }
        }
        return done;
    }

    /** Open subscriptions. */
    public int subscribers() {
        return all.size();
    }

    /** Clients disconnected because their queue filled. */
    public long cutOffs() {
        return cutOffs.get();
    }

    /** Frames queued to clients so far. */
    public long sent() {
        return sent.get();
    }

    /** Subscriber filters evaluated so far (shows that matching is not O(subscribers)). */
    long evaluations() {
        return evaluations.get();
    }

    // --- replay ------------------------------------------------------------------------------

    private void replay(Subscriber s, long from) {
        long position = from;
        MatchBudget budget = MatchBudget.of(matchBudget);
        try {
            while (!s.ended()) {
                while (s.queued() > clientQueue / 2 && !s.ended()) {
                    Thread.sleep(5); // replay waits for the client; live dispatch never does
                }
                List<ChangeEvent> batch = log.after(position, REPLAY_BATCH);
                if (batch.isEmpty()) {
                    break;
                }
                for (ChangeEvent e : batch) {
                    deliver(s, view(e), budget);
                    position = e.seq();
                }
            }
            synchronized (lock) {
                boolean more = true;
                while (more && position < lastDispatched && !s.ended()) {
                    List<ChangeEvent> batch = log.after(position, REPLAY_BATCH);
                    more = !batch.isEmpty();
                    for (ChangeEvent e : batch) {
                        if (e.seq() > lastDispatched) {
                            more = false;
                            break;
                        }
                        deliver(s, view(e), budget);
                        position = e.seq();
                    }
                }
                if (!s.ended()) {
                    join(s, Math.max(position, lastDispatched));
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

    // --- dispatch ----------------------------------------------------------------------------

    private void dispatchLoop() {
        while (!closing) {
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
                // closing
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
        synchronized (lock) {
            dispatch(e);
        }
    }

    /** Reads back from the log what the dispatch queue could not hold. */
    private void catchUp() throws InterruptedException {
        try {
            List<ChangeEvent> batch;
            while (!(batch = log.after(lastDispatched, REPLAY_BATCH)).isEmpty()) {
                batch.forEach(this::dispatchNext);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } catch (WeftException e) {
            LOG.error("stream dispatcher fell behind the retention window; ending every stream", e);
            all.forEach(s -> s.end(1013, "the server fell behind; resume with your last token"));
            synchronized (lock) {
                lastDispatched = log.last();
            }
        }
    }

    /**
     * Under {@link #lock}: matches {@code e} against its collection's subscribers and queues it on
     * those it goes to; their lanes write it. Per-subscriber order holds because the queue is the
     * subscriber's and events are queued in commit order.
     */
    private void dispatch(ChangeEvent e) {
        if (e.seq() <= lastDispatched) {
            return;
        }
        Group g = groups.get(e.ns());
        if (g != null) {
            EventView v = view(e);
            for (Subscriber s : g.scan) {
                consider(s, v);
            }
            if (!g.byEquality.isEmpty()) {
                g.byEquality.forEach((path, byKey) -> {
                    if (v.isDrop()) {
                        byKey.values().forEach(subs -> subs.forEach(s -> consider(s, v)));
                        return;
                    }
                    considerAt(byKey, v.after(), path, v);
                    considerAt(byKey, v.before(), path, v);
                });
            }
            fanout.flush();
            if (!costly.isEmpty()) {
                for (Subscriber s : costly) {
                    consider(s, v, matchBudget);
                }
                costly.clear();
                fanout.flush();
            }
            for (Subscriber s : full) {
                cutOff(s);
                s.pump(); // writes the close 1013
            }
            full.clear();
            for (Subscriber s : overBudget) {
                s.end(1008, overBudgetReason(v));
            }
            overBudget.clear();
            invalidated.forEach(s -> invalidate(s, v));
            invalidated.clear();
        }
        lastDispatched = e.seq();
    }

    private EventView view(ChangeEvent e) {
        return new EventView(e, json, policies.of(e.ns()));
    }

    /** The subscribers indexed under a value {@code doc} has at {@code path}, each once per event. */
    private void considerAt(Map<String, Set<Subscriber>> byKey, JsonNode doc, String path, EventView v) {
        if (doc == null) {
            return;
        }
        long seq = v.event.seq();
        for (String key : Keys.at(doc, path)) {
            Set<Subscriber> subs = byKey.get(key);
            if (subs != null) {
                for (Subscriber s : subs) {
                    if (s.seen != seq) {
                        s.seen = seq;
                        consider(s, v);
                    }
                }
            }
        }
    }

    /** Dispatcher, first pass: queues {@code v} on {@code s} if it has not replayed it and it matches. */
    private void consider(Subscriber s, EventView v) {
        if (v.event.seq() <= s.from) {
            return;
        }
        if (v.isDrop() && s.query.ns().equals(v.event.ns())) {
            invalidated.add(s); // ended after the walk of the group, which it leaves
        }
        consider(s, v, Math.min(matchBudget, QUICK_TESTS));
    }

    /**
     * Dispatcher: queues {@code v} on {@code s} if it matches within {@code tests} value tests.
     * Past them, a first pass leaves {@code s} to the second ({@link #costly}); past the whole
     * budget, {@code s} is ended after the event.
     */
    private void consider(Subscriber s, EventView v, long tests) {
        EventFrame frame = matchWithin(s, v, dispatchBudget, tests);
        if (frame == TOO_COSTLY) {
            (tests < matchBudget ? costly : overBudget).add(s);
            return;
        }
        if (frame == null) {
            return;
        }
        switch (s.enqueue(frame)) {
            case PUMP -> {
                fanout.add(s);
                sent.incrementAndGet();
            }
            case QUEUED -> sent.incrementAndGet();
            case FULL -> full.add(s);
            case ENDED -> { }
        }
    }

    /** Replay: sends {@code v} to {@code s} on this thread if it matches; ends {@code s} past the budget. */
    private void deliver(Subscriber s, EventView v, MatchBudget budget) {
        EventFrame frame = matchWithin(s, v, budget, matchBudget);
        if (frame == TOO_COSTLY) {
            s.end(1008, overBudgetReason(v));
        } else if (frame != null && s.offer(frame)) {
            sent.incrementAndGet();
        }
        if (v.isDrop() && s.query.ns().equals(v.event.ns())) {
            invalidate(s, v);
        }
    }

    /** After its collection's drop event: {@code invalidate}, then the stream ends (close 1000). */
    private static void invalidate(Subscriber s, EventView v) {
        s.finish(v.invalidate(), 1000, "invalidate: the collection was dropped"); // a close reason has 123 bytes at most
    }

    /** {@link #match} within {@code tests} value tests of {@code budget}; {@link #TOO_COSTLY} past them. */
    private EventFrame matchWithin(Subscriber s, EventView v, MatchBudget budget, long tests) {
        budget.reset(tests);
        try {
            return match(s, v, budget);
        } catch (MatchBudget.Exceeded x) {
            return TOO_COSTLY;
        }
    }

    private String overBudgetReason(EventView v) {
        return "the stream's filter and access rule cost more than stream-match-budget (" + matchBudget
                + " value tests) on event " + v.frame().token() + "; narrow the filter, or resume after that event";
    }

    /**
     * What {@code s} is to receive of {@code v}, or null; the one place that decides it, for the
     * replay and the live feed. Nothing of another collection. Else the event itself when the
     * filter and the access rule pass; otherwise, for a subscriber that asked for leaves, a leave
     * event when the document matched (and was visible) before this change. On a document filter
     * a delete is judged by the deleted document. A drop has no document: a document filter lets
     * it through, an event filter ({@code $match}) judges it as MongoDB does.
     */
    private EventFrame match(Subscriber s, EventView v, MatchBudget budget) {
        evaluations.incrementAndGet();
        StreamQuery q = s.query;
        if (!q.ns().equals(v.event.ns())) {
            return null;
        }
        if (v.isDrop()) {
            return q.onDocument() || q.filter().matches(v.eventNode()) ? v.frame() : null;
        }
        boolean delete = v.event.operation() == ChangeEvent.Operation.DELETE;
        JsonNode doc = delete ? v.before() : v.after();
        JsonNode now = q.onDocument() ? doc : v.eventNode();
        if (now != null && q.filter().matches(now, budget) && allowed(q, doc, budget)) {
            return q.projection().isPresent() ? v.projected(q.projection().get()) : v.frame();
        }
        if (q.leaves() && v.before() != null && !(q.onDocument() && delete)) {
            JsonNode was = q.onDocument() ? v.before() : v.beforeNode();
            if (q.filter().matches(was, budget) && allowed(q, v.before(), budget)) {
                return v.leave();
            }
        }
        return null;
    }

    private static boolean allowed(StreamQuery q, JsonNode doc, MatchBudget budget) {
        return q.readFilter().isEmpty() || doc != null && q.readFilter().get().matches(doc, budget);
    }

    // --- membership --------------------------------------------------------------------------

    /** Under {@link #lock}: the subscriber receives live events after {@code from}. */
    private void join(Subscriber s, long from) {
        s.from = from;
        s.live = true;
        Group g = groups.computeIfAbsent(s.query.ns(), ns -> new Group());
        if (s.query.index().isPresent()) {
            StreamQuery.Equality eq = s.query.index().get();
            g.byEquality.computeIfAbsent(eq.path(), p -> new HashMap<>())
                    .computeIfAbsent(eq.key(), k -> new LinkedHashSet<>()).add(s);
        } else {
            g.scan.add(s);
        }
    }

    void remove(Subscriber s) {
        all.remove(s);
        synchronized (lock) {
            if (!s.live) {
                return;
            }
            s.live = false;
            Group g = groups.get(s.query.ns());
            if (g == null) {
                return;
            }
            if (s.query.index().isPresent()) {
                StreamQuery.Equality eq = s.query.index().get();
                Map<String, Set<Subscriber>> byKey = g.byEquality.get(eq.path());
                Set<Subscriber> subs = byKey == null ? null : byKey.get(eq.key());
                if (subs != null && subs.remove(s) && subs.isEmpty()) {
                    byKey.remove(eq.key());
                    if (byKey.isEmpty()) {
                        g.byEquality.remove(eq.path());
                    }
                }
            } else {
                g.scan.remove(s);
            }
            if (g.isEmpty()) {
                groups.remove(s.query.ns());
            }
        }
    }

    /** A client whose queue filled: forgotten now, its connection dropped after a grace period. */
    void cutOff(Subscriber s) {
        cutOffs.incrementAndGet();
        remove(s);
        if (!closing) {
            scheduler.schedule(s::abort, ABORT_GRACE_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Ends every stream (close 1001), drops after a short grace the connections whose client
     * was not reading (an open SSE response would otherwise hold the server's graceful stop),
     * and stops the threads.
     */
    @Override
    public void close() {
        closing = true;
        List<Subscriber> open = new ArrayList<>(all);
        open.forEach(s -> s.end(1001, "the server is stopping"));
        if (!open.isEmpty()) {
            try {
                Thread.sleep(CLOSE_GRACE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            open.forEach(Subscriber::abort);
        }
        dispatcher.interrupt();
        try {
            dispatcher.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        fanout.close();
        scheduler.shutdownNow();
    }
}
