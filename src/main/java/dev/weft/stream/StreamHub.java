package dev.weft.stream;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change-stream engine's front and its lifecycle: subscriptions, access renewal, heartbeats,
 * cut-offs and shutdown. The work is split along its jobs:
 * <ul>
 * <li>{@link Dispatcher}: the live feed, one thread matching each commit's events once, in commit
 *     order, and queueing the frames on the subscribers;</li>
 * <li>{@link Matcher}: what a subscriber receives of an event, one function for replay and live;</li>
 * <li>{@link LiveIndex} and {@link Group}: who receives live events, by collection and by an
 *     equality of their filter, and the lock where replay and live meet (exactly once, in order);</li>
 * <li>{@link Replay}: a resuming subscriber's reading of the log before it joins;</li>
 * <li>{@link Fanout}: the writer threads, one per core; {@link Subscriber}: one client's bounded
 *     queue and its send pump (its fields are written only by its own methods).</li>
 * </ul>
 *
 * <p>Threads: the store's writer only hands each commit's events to the dispatcher's bounded
 * queue; one scheduler thread sends heartbeats, checks access and drops cut-off clients. No
 * thread waits per client. A resume token is only a position in the log; it grants nothing. A
 * {@code drop} of the collection ends every stream of it with {@code drop} and
 * {@code invalidate}; a token from before it is refused ({@link #check}).
 *
 * <p>Lock order: {@link LiveIndex}'s lock before a subscriber's, never after.
 */
public final class StreamHub implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamHub.class);
    private static final long CLOSE_GRACE_MS = 300;

    /** A running subscription; cancel it when the client goes away. */
    public interface Subscription {
        void cancel();
    }

    private final EventLog log;
    private final int clientQueue;
    /** {@code stream-cutoff-grace-ms}: how long a cut-off client may take to read up to its close frame. */
    private final long cutoffGraceMs;
    private final long accessCheckMs;
    private final LiveIndex index;
    private final Matcher matcher;
    private final Replay replay;
    private final Dispatcher dispatcher;
    private final Fanout fanout;
    private final Set<Subscriber> all = ConcurrentHashMap.newKeySet();
    /**
     * The subscribers whose credential expires, soonest first: the access check looks at the
     * head only, instead of every open stream four times a second (3% of Weft's CPU with 10,000
     * clients and nothing expiring).
     */
    private final ConcurrentSkipListSet<Subscriber> expiring = new ConcurrentSkipListSet<>(
            Comparator.comparingLong(Subscriber::expiresAtMs).thenComparingLong(Subscriber::serial));
    private final AtomicLong serials = new AtomicLong();
    private final AtomicLong cutOffs = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final ScheduledExecutorService scheduler;
    private volatile boolean closing;

    /** {@code policies}: what each collection lets leave the API (the users collection hides passwords). */
    public StreamHub(EventLog log, Json json, Settings settings, DocumentPolicy.Lookup policies) {
        this(log, json, settings, policies, Runtime.getRuntime().availableProcessors());
    }

    StreamHub(EventLog log, Json json, Settings settings, DocumentPolicy.Lookup policies, int fanoutThreads) {
        this.log = log;
        this.clientQueue = settings.streamClientQueue();
        this.cutoffGraceMs = settings.streamCutoffGraceMs();
        this.accessCheckMs = settings.streamAccessCheckMs();
        this.index = new LiveIndex(log.last());
        this.matcher = new Matcher(settings.streamMatchBudget());
        Function<ChangeEvent, EventView> views = e -> new EventView(e, json, policies.of(e.ns()));
        this.fanout = new Fanout(fanoutThreads);
        this.replay = new Replay(log, index, matcher, views, clientQueue, sent);
        long laneLag = (clientQueue - 1) / 2; // a client's queue then holds at most half its bound from lane lag alone
        this.dispatcher = new Dispatcher(log, index, matcher, views, fanout, this, sent, settings.streamDispatchQueue(),
                laneLag);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("weft-stream-timer").daemon(true).factory());
        long every = settings.streamHeartbeatMs() / 2;
        scheduler.scheduleAtFixedRate(() -> all.forEach(s -> s.heartbeat(false)), every, every, TimeUnit.MILLISECONDS);
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
        Subscriber s = new Subscriber(query, grant, outlet, this, clientQueue, fanout.assign(), serials.incrementAndGet());
        all.add(s);
        if (s.expiresAtMs() != Long.MAX_VALUE) {
            expiring.add(s);
        }
        if (query.resumeAfter().isEmpty()) {
            synchronized (index.lock) {
                index.join(s, index.lastDispatched());
            }
        } else {
            replay.start(s, query.resumeAfter().getAsLong());
        }
        s.heartbeat(true); // puts the stream on the wire now (SSE headers), unless an event already does
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
            for (Subscriber s; (s = firstExpiring()) != null && s.expire(now); ) {
                expiring.remove(s); // ended (its removal from the hub did it too, unless it had ended before)
            }
        }, accessCheckMs, accessCheckMs, TimeUnit.MILLISECONDS);
    }

    private Subscriber firstExpiring() {
        try {
            return expiring.first();
        } catch (java.util.NoSuchElementException e) {
            return null;
        }
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

    /** The last event the live feed dispatched (a stream opened now hears what comes after it). */
    long lastDispatched() {
        return index.lastDispatched();
    }

    /** Subscriber filters evaluated so far (shows that matching is not O(subscribers)). */
    long evaluations() {
        return matcher.evaluations();
    }

    /** {@code s} ended: forgotten by the live feed and the hub. */
    void remove(Subscriber s) {
        all.remove(s);
        expiring.remove(s);
        index.leave(s);
    }

    /** Ends every stream (the dispatcher fell behind the log's retention window). */
    void endAll(int code, String reason) {
        all.forEach(s -> s.end(code, reason));
    }

    /** A client whose queue filled: forgotten now, its connection dropped after {@code stream-cutoff-grace-ms}. */
    void cutOff(Subscriber s) {
        cutOffs.incrementAndGet();
        remove(s);
        if (!closing) {
            scheduler.schedule(s::abort, cutoffGraceMs, TimeUnit.MILLISECONDS);
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
        dispatcher.stopTaking();
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
        dispatcher.stop();
        fanout.close();
        scheduler.shutdownNow();
    }
}
