package dev.weft.store;

import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * MongoDB's TTL monitor: every {@code ttl-interval-ms}, for each index with
 * {@code expireAfterSeconds}, deletes the documents whose indexed field holds a date (or an array
 * with a date) older than that many seconds, at most {@code ttl-batch} documents per pass over all
 * collections (the rest wait for the next pass, so a backlog never makes one long write). It uses
 * only the {@link Store} contract: expired documents are found with the index's field as the
 * filter, then deleted by {@code _id} with the expiry condition again, as ordinary
 * {@link WriteOp.DeleteMany}s, so a document renewed meanwhile stays, caches are invalidated and
 * change streams get their delete events. Every node of a cluster may run one; a document deleted
 * by another node is simply no longer found.
 */
public final class TtlReaper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TtlReaper.class);
    /** Filters built here hold no regex and are shallow. */
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    private final Store store;
    private final Json json;
    private final long intervalMs;
    private final int batch;
    private final LongSupplier clockMs;
    private Thread thread;

    public TtlReaper(Store store, Json json, long intervalMs, int batch, LongSupplier clockMs) {
        this.store = store;
        this.json = json;
        this.intervalMs = intervalMs;
        this.batch = batch;
        this.clockMs = clockMs;
    }

    public synchronized void start() {
        thread = Thread.ofPlatform().daemon().name("weft-ttl").start(this::run);
    }

    private void run() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(intervalMs);
                pass();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("TTL pass failed; the next pass retries: {}", e.toString());
            }
        }
    }

    /** One pass over every TTL index; the number of documents deleted, at most {@code ttl-batch}. */
    public long pass() {
        long budget = batch;
        for (String db : store.databases()) {
            for (String coll : store.collections(db)) {
                Namespace ns = new Namespace(db, coll);
                for (IndexSpec index : store.indexes(ns)) {
                    if (index.expireAfterSeconds().isPresent() && budget > 0) {
                        budget -= reap(ns, index.fields().getFirst(), index.expireAfterSeconds().get(), budget);
                    }
                }
            }
        }
        return batch - budget;
    }

    private long reap(Namespace ns, IndexField field, long seconds, long limit) {
        ObjectNode expired = Json.NODES.objectNode();
        expired.putObject(field.path()).putObject("$lt").put("$date", clockMs.getAsLong() - seconds * 1000);
        ArrayNode ids = Json.NODES.arrayNode();
        Sort oldestFirst = new Sort(List.of(new IndexField(field.path(), 1)));
        store.find(ns, new FindQuery(Filter.parse(expired, LIMITS), oldestFirst, 0, limit, Optional.empty()),
                doc -> ids.add(json.parse(doc.json(), "expired document").get("_id")));
        if (ids.isEmpty()) {
            return 0;
        }
        ObjectNode byId = Json.NODES.objectNode();
        byId.putObject("_id").set("$in", ids);
        ObjectNode both = Json.NODES.objectNode();
        both.putArray("$and").add(byId).add(expired);
        WriteResult result = store.write(new WriteOp.DeleteMany(ns, Filter.parse(both, LIMITS)), Durability.HARD);
        return result.ok() ? result.count() : 0;
    }

    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
