package dev.weft.store.pages;

import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.AfterPosition;
import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.query.SortPosition;
import dev.weft.store.ChangeEvent;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.plan.QueryPlanner;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deep pages at O(log n): an unfiltered page of a sort that {@code _id} or an index serves, past
 * {@code position-index-min-skip}, starts at the block of a {@link PositionIndex} that holds its
 * first document (read as an {@link AfterPosition} filter, which the planner turns into a walk
 * from that key) and skips fewer than a block's documents, instead of walking every document
 * before it. Everything else (filtered pages, other sorts, shallow pages) runs as asked.
 *
 * <p>An index per (collection, sort) is built lazily, by one walk of the collection in that order
 * on a background thread (one build at a time); the page that asked runs as asked meanwhile.
 * It is kept current from the store's commit events (queued by the listener, applied by the next
 * page that uses it) and is used only while it has seen every write: its {@code validAt} equals
 * {@link Store#version}, which every commit moves. On SQLite the events of a commit are delivered
 * on the writer before the write is acknowledged, so a page read after a write uses the index
 * with that write counted. On PostgreSQL a write by this or another node reaches the index once
 * the event log reader reads it (within {@code stream-poll-ms}); until then the version differs
 * and pages run as asked (exact, at the cost of the walk). A version that moved without events
 * (a catalog change) or an index whose blocks grew lopsided makes the next deep page rebuild it.
 *
 * <p>A build is kept only when no commit to the collection landed during its walk (the version
 * is the same before and after) and the last version change was delivered as events, or was
 * seen at least a settling time (three event polls) before the walk: so no commit is both in the
 * walk and applied again from its event. Bounded by {@code position-index-orders} indexes (least
 * recently used dropped) and {@code position-index-pending} queued events per collection.
 */
public final class DeepPages {
    private static final Logger LOG = LoggerFactory.getLogger(DeepPages.class);
    /** After a failed or refused build, how long until the same order is tried again. */
    private static final long RETRY_MS = 5_000;
    /**
     * A build reads the collection in finds of this many documents, each a query of its own
     * under {@code query-timeout-ms} (one walk of millions of documents would not fit it); the
     * version check around the whole build makes the segments one consistent walk.
     */
    private static final long BUILD_SEGMENT = 250_000;

    private final Store store;
    private final Json json = Json.standard();
    private final long minSkip;
    private final int block;
    private final int maxOrders;
    private final int maxPending;
    private final long settleMs;
    private final Semaphore building = new Semaphore(1);
    private final java.util.concurrent.atomic.LongAdder started = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder builds = new java.util.concurrent.atomic.LongAdder();
    private final Map<Key, Order> orders;
    private final ConcurrentHashMap<Namespace, Feed> feeds = new ConcurrentHashMap<>();

    private record Key(Namespace ns, Sort sort) {}

    /** What the listener last saw of a collection's version, and when a page first saw its current one. */
    private static final class Feed {
        final List<Order> orders = new java.util.concurrent.CopyOnWriteArrayList<>();
        long deliveredVersion = -1;
        volatile long seenVersion = -1;
        volatile long seenAt;
    }

    /** The index of one order, the events it has yet to apply (guarded by its feed), or why there is none. */
    private static final class Order {
        final List<ChangeEvent> pending = new ArrayList<>();
        boolean overflowed;
        PositionIndex index;
        long validAt;
        long retryAt;
    }

    private DeepPages(Store store, long minSkip, int block, int maxOrders, int maxPending, long settleMs) {
        this.store = store;
        this.minSkip = minSkip;
        this.block = block;
        this.maxOrders = maxOrders;
        this.maxPending = maxPending;
        this.settleMs = settleMs;
        this.orders = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Order> eldest) {
                if (size() <= maxOrders) {
                    return false;
                }
                Feed feed = feeds.get(eldest.getKey().ns());
                if (feed != null) {
                    feed.orders.remove(eldest.getValue());
                }
                return true;
            }
        };
        store.eventLog().addCommitListener((commit, events) -> events.forEach(this::delivered));
    }

    public static DeepPages of(Store store, Settings settings) {
        return new DeepPages(store, settings.positionIndexMinSkip(), settings.positionIndexBlock(),
                settings.positionIndexOrders(), settings.positionIndexPending(), Math.max(1000, 3 * settings.streamPollMs()));
    }

    /** On the store's commit thread: queue the event for the indexes of its collection, quickly. */
    private void delivered(ChangeEvent e) {
        Feed feed = feeds.get(e.ns());
        if (feed == null) {
            return;
        }
        synchronized (feed) {
            for (Order order : feed.orders) {
                if (e.operation() == ChangeEvent.Operation.DROP || order.pending.size() >= maxPending) {
                    order.overflowed = true;
                    order.pending.clear();
                } else if (!order.overflowed) {
                    order.pending.add(e);
                }
            }
            feed.deliveredVersion = store.version(e.ns());
        }
    }

    /**
     * {@code query} as it is best run: a deep unfiltered page of an order with a current index
     * starts at its block; any other query comes back unchanged.
     */
    public FindQuery rewrite(Namespace ns, FindQuery query) {
        if (maxOrders == 0 || query.skip() < minSkip || query.filter() != Filter.all() || query.hint().isPresent()
                || !servedByAnIndex(ns, query.sort())) {
            return query;
        }
        Key key = new Key(ns, query.sort());
        Feed feed = feeds.computeIfAbsent(ns, n -> new Feed());
        long version = store.version(ns);
        if (feed.seenVersion != version) {
            feed.seenVersion = version;
            feed.seenAt = System.currentTimeMillis();
        }
        Order order;
        synchronized (orders) {
            order = orders.get(key);
            if (order == null) {
                order = new Order();
                orders.put(key, order);
                feed.orders.add(order);
            }
        }
        PositionIndex.Start start;
        synchronized (order) {
            catchUp(query.sort(), feed, order);
            if (order.index == null || order.validAt != version) {
                maybeBuild(key, feed, order);
                return query;
            }
            start = order.index.locate(query.skip());
        }
        if (start.start() == null) {
            return query;
        }
        started.increment();
        return new FindQuery(new AfterPosition(Filter.all(), query.sort(), start.start(), true), query.sort(),
                start.offset(), query.limit(), Optional.empty());
    }

    /** Pages that started at a position index's block instead of walking every skipped document. */
    public long started() {
        return started.sum();
    }

    /** Position indexes built (and kept). */
    public long builds() {
        return builds.sum();
    }

    /** True when {@code _id} or an index holding every document has the sort's order. */
    private boolean servedByAnIndex(Namespace ns, Sort sort) {
        try {
            for (IndexSpec spec : store.indexes(ns)) {
                if (!spec.selective() && spec.ordered() && QueryPlanner.direction(sort.fields(), spec.fields()) != null) {
                    return true;
                }
            }
            return false;
        } catch (WeftException e) {
            return false; // no such collection: the find answers that
        }
    }

    /** Applies the order's queued events to its index (under the order's lock); a missed event drops the index. */
    private void catchUp(Sort sort, Feed feed, Order order) {
        List<ChangeEvent> events;
        long delivered;
        synchronized (feed) {
            events = List.copyOf(order.pending);
            order.pending.clear();
            delivered = feed.deliveredVersion;
            if (order.overflowed) {
                order.overflowed = false;
                order.index = null;
            }
        }
        if (order.index == null) {
            return;
        }
        for (ChangeEvent e : events) {
            apply(order.index, sort, e);
        }
        if (order.index.broken() || order.index.lopsided()) {
            order.index = null;
        } else if (!events.isEmpty()) {
            order.validAt = delivered;
        }
    }

    private void apply(PositionIndex index, Sort sort, ChangeEvent e) {
        if (e.previousDocument() != null) {
            index.delete(SortPosition.of(json.parse(e.previousDocument(), "event document"), sort));
        }
        if (e.fullDocument() != null) {
            index.insert(SortPosition.of(json.parse(e.fullDocument(), "event document"), sort));
        }
    }

    /** Starts a background build of {@code key}'s index unless one runs or it failed lately. */
    private void maybeBuild(Key key, Feed feed, Order order) {
        long now = System.currentTimeMillis();
        if (now < order.retryAt || !settled(feed, store.version(key.ns())) || !building.tryAcquire()) {
            return;
        }
        order.retryAt = now + RETRY_MS;
        Thread.ofVirtual().name("weft-position-index").start(() -> {
            try {
                build(key, feed, order);
            } catch (RuntimeException ex) {
                LOG.info("position index of {} sorted {} not built: {}", key.ns(), QueryPlanner.describe(key.sort()),
                        ex.getMessage());
            } finally {
                building.release();
            }
        });
    }

    /**
     * Whether every commit up to {@code version} has been delivered as events: its last change
     * was a delivery, or a page saw it long enough ago that any event of it has arrived (or it
     * was a catalog change, which has none).
     */
    private boolean settled(Feed feed, long version) {
        synchronized (feed) {
            return feed.deliveredVersion == version
                    || (feed.seenVersion == version && System.currentTimeMillis() - feed.seenAt >= settleMs);
        }
    }

    private void build(Key key, Feed feed, Order order) {
        long before = store.version(key.ns());
        if (!settled(feed, before)) {
            return;
        }
        synchronized (feed) {
            // events delivered from here on are checked for after the walk (none may land during it)
            order.pending.clear();
            order.overflowed = false;
        }
        PositionIndex.Builder builder = new PositionIndex.Builder(block);
        long[] read = {0};
        for (long segment = 0; read[0] == segment * BUILD_SEGMENT; segment++) {
            store.find(key.ns(), new FindQuery(Filter.all(), key.sort(), read[0], BUILD_SEGMENT, Optional.empty()),
                    ReadMode.SINGLE, doc -> {
                        read[0]++;
                        builder.next(() -> SortPosition.of(json.parse(doc.json(), "stored document"), key.sort()));
                    });
        }
        PositionIndex index = builder.build();
        synchronized (order) {
            synchronized (feed) {
                if (store.version(key.ns()) != before || !order.pending.isEmpty() || order.overflowed) {
                    return; // written meanwhile: the next deep page tries again
                }
            }
            order.index = index;
            order.validAt = before;
            order.retryAt = 0;
        }
        builds.increment();
        LOG.info("position index of {} sorted {}: {} documents in {} blocks", key.ns(),
                QueryPlanner.describe(key.sort()), index.size(), index.blocks());
    }
}
