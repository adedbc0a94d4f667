package dev.weft.http;

import dev.weft.aggregate.Definitions;
import dev.weft.core.Json;
import dev.weft.schema.JsonSchemas;
import dev.weft.store.MemoryOnly;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import dev.weft.store.WriteOp;
import dev.weft.stream.StreamQuery;
import java.io.ByteArrayOutputStream;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /{db}/{coll}}: list documents (a page, or every match as ndjson), insert (one, an
 * array, or an ndjson stream), create and drop the collection, and {@code _size}.
 */
final class CollectionEndpoints {
    static final String NDJSON = "application/x-ndjson";
    /** The response header carrying the cursor token of a page's end. */
    static final String NEXT = "Weft-Next";

    private final Api api;
    private final NdjsonIngest ingest;
    private final NdjsonExport export;
    private final AbsoluteUrls urls;
    private final long selectorBudgetNanos;
    private final Map<MemoryOnly.Outcome, LongAdder> heldAttempts = new EnumMap<>(MemoryOnly.Outcome.class);
    /**
     * The lists (by principal, path and query) whose last memory attempt gave up, and until when
     * they go straight to a virtual thread: a read that needs the table or more than the budget
     * needs it again when asked again, and a novel one costs at most one attempt. Bounded: past
     * {@link #GAVE_UP_ENTRIES} it starts over.
     */
    private final ConcurrentHashMap<String, Long> gaveUp = new ConcurrentHashMap<>();
    static final int GAVE_UP_ENTRIES = 1024;
    /** How long a list that gave up is not tried on the selector again (a probe count remembered meanwhile may let it). */
    static final long GAVE_UP_NANOS = 10_000_000_000L;

    CollectionEndpoints(Api api) {
        this.api = api;
        this.selectorBudgetNanos = api.settings().selectorReadBudgetUs() * 1_000;
        for (MemoryOnly.Outcome outcome : MemoryOnly.Outcome.values()) {
            heldAttempts.put(outcome, new LongAdder());
        }
        this.urls = AbsoluteUrls.of(api.settings());
        this.ingest = new NdjsonIngest(api);
        this.export = new NdjsonExport(api);
    }

    void list(Exchange ex) throws Exception {
        Namespace ns = api.namespace(ex);
        if (ex.header("Accept").map(a -> a.contains(NDJSON)).orElse(false)) {
            export.stream(ex, ns);
            return;
        }
        long version = api.store().version(ns);
        // the key is made once, and not at all without a cache: it is as long as the query
        Optional<String> cacheKey = api.cache().enabled() ? Optional.of(ReadParams.cacheKey(ex, ns)) : Optional.empty();
        if (cacheKey.isPresent() && answerFromCache(ex, cacheKey.get(), version)) {
            return;
        }
        FindPlan plan = FindPlan.of(ex, api, ns);
        ReadParams params = plan.params();
        if (params.count()) {
            long total = plan.count();
            ex.setHeader("X-Total-Count", Long.toString(total));
            long pages = params.pageSize() == 0 ? 0 : (total + params.pageSize() - 1) / params.pageSize();
            ex.setHeader("X-Total-Pages", Long.toString(pages));
        }
        api.requireCollection(ns);
        PageBytes out = new PageBytes();
        Optional<String> next = page(plan, out);
        cacheKey.ifPresent(key -> api.cache().put(key, version, new ResultCache.Answer(out.toByteArray(), Optional.empty(), next)));
        sendPage(ex, out.bytes(), out.size(), next);
    }

    /** A page's JSON as it is written, sent from its own buffer: no copy unless the cache keeps it. */
    private static final class PageBytes extends ByteArrayOutputStream {
        PageBytes() {
            super(4096);
        }

        byte[] bytes() {
            return buf;
        }
    }

    /**
     * A page (the first {@code length} bytes of {@code body}), with the cursor token of its end
     * ({@code Weft-Next}, and as a {@code Link}) when more may follow.
     */
    private static void sendPage(Exchange ex, byte[] body, int length, Optional<String> next) {
        next.ifPresent(token -> {
            ex.setHeader(NEXT, token);
            ex.setHeader("Link", "<" + ex.path() + "?" + NextLink.query(ex.queryString(), token) + ">; rel=\"next\"");
        });
        ex.sendJson(200, body, length);
    }

    /**
     * A page answered from memory alone, on the thread that parsed the request (a {@link MemoryRead}):
     * from the result cache, else by the list read itself when the store holds the collection in
     * memory ({@link MemoryOnly}: the same code as on a virtual thread, given up at its first wait or
     * past {@code selector-read-budget-us}, and then run there). Only a filtered page: an
     * unfiltered one reads the table in {@code _id} order, and {@code count} counts in the table.
     */
    boolean answerFromMemory(Exchange ex) {
        if (ex.header("Accept").map(a -> a.contains(NDJSON)).orElse(false)) {
            return false;
        }
        Namespace ns = api.namespace(ex);
        if (api.cache().enabled() && answerFromCache(ex, ReadParams.cacheKey(ex, ns), api.store().version(ns))) {
            return true;
        }
        if (selectorBudgetNanos == 0 || !ex.hasParam("filter") || ex.hasParam("count") || !api.store().answersFromMemory(ns)) {
            return false;
        }
        String attempt = ex.principal().name() + " " + ex.path() + "?" + ex.queryString();
        Long skipUntil = gaveUp.get(attempt);
        long now = System.nanoTime();
        if (skipUntil != null && now - skipUntil < 0) {
            return false;
        }
        OptionalLong maxTime = QueryTime.parse(ex.param(QueryTime.PARAMETER));
        MemoryOnly.Outcome outcome = MemoryOnly.attempt(selectorBudgetNanos, () -> {
            try {
                QueryTime.limitedTo(maxTime, () -> list(ex));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e); // the stages run it again and answer it
            }
            return true;
        });
        heldAttempts.get(outcome).increment();
        if (outcome == MemoryOnly.Outcome.ANSWERED) {
            return true;
        }
        if (outcome == MemoryOnly.Outcome.NOT_NOW) {
            return false; // a moment's contention: the next request of this list tries again
        }
        if (gaveUp.size() >= GAVE_UP_ENTRIES) {
            gaveUp.clear();
        }
        gaveUp.put(attempt, now + GAVE_UP_NANOS);
        return false;
    }

    /** List reads {@link #answerFromMemory} tried on held rows, by how the attempt ended. */
    long heldAttempts(MemoryOnly.Outcome outcome) {
        return heldAttempts.get(outcome).sum();
    }

    private boolean answerFromCache(Exchange ex, String cacheKey, long version) {
        if (ex.hasParam("count")) {
            return false;
        }
        Optional<ResultCache.Answer> cached = api.cache().get(cacheKey, version);
        cached.ifPresent(answer -> sendPage(ex, answer.body(), answer.body().length, answer.next()));
        return cached.isPresent();
    }

    private Optional<String> page(FindPlan plan, ByteArrayOutputStream out) {
        out.write('[');
        boolean[] first = {true};
        Optional<String> next = plan.page(doc -> {
            if (!first[0]) {
                out.write(',');
            }
            first[0] = false;
            out.writeBytes(doc);
        }, api.cursors());
        out.write(']');
        return next;
    }

    /** {@code GET /{db}/{coll}/_meta}: the collection's properties as RESTHeart's metadata document. */
    void meta(Exchange ex) {
        Namespace ns = api.namespace(ex);
        DatabaseEndpoints.sendMeta(ex, api, "_properties." + ns.coll(), api.existingCollection(ns));
    }

    void size(Exchange ex) {
        Namespace ns = api.namespace(ex);
        api.requireCollection(ns);
        long size = CountPlan.of(ex, api, ns).execute();
        ObjectNode body = Json.NODES.objectNode();
        body.put("_size", size);
        ex.sendJson(200, api.json().bytes(body));
    }

    void post(Exchange ex) throws Exception {
        Namespace ns = api.namespace(ex);
        api.existingCollection(ns);
        if (ex.contentType().equals(NDJSON)) {
            ingest.ingest(ex, ns);
            return;
        }
        JsonNode body = api.jsonBody(ex);
        WriteOp.WriteMode mode = WriteModes.parse(ex, WriteOp.WriteMode.INSERT);
        WriteModes.requireIdToUpdate(body, mode);
        if (body.isArray()) {
            insertMany(ex, ns, body, mode);
            return;
        }
        WritePlan plan = WritePlan.insert(ex, api, ns, body, mode);
        Api.answerWrite(ex, plan.execute(), Optional.of(urls.of(ex, location(ex, plan.id()))));
    }

    private void insertMany(Exchange ex, Namespace ns, JsonNode body, WriteOp.WriteMode mode) {
        BulkWritePlan plan = BulkWritePlan.insertMany(ex, api, ns, body, mode);
        BulkWritePlan.Counts counts = plan.execute();
        ObjectNode answer = counts.json();
        var links = answer.putArray("links");
        counts.written().forEach(id -> links.add(location(ex, id)));
        ex.sendJson(counts.status(), api.json().bytes(answer));
    }

    static String location(Exchange ex, JsonNode id) {
        String base = ex.path().endsWith("/") ? ex.path() : ex.path() + "/";
        return base + DocumentIds.toPath(id);
    }

    void put(Exchange ex) {
        Namespace ns = api.namespace(ex);
        ObjectNode properties = api.objectBody(ex);
        Api.checkModes(properties);
        JsonSchemas.checkProperty(properties, ns.db());
        StreamQuery.validateDefinitions(properties, api.limits());
        Definitions.validate(properties, api.limits());
        boolean created = api.store().putCollection(ns, properties, Api.ifMatch(ex));
        api.store().collection(ns).ifPresent(m -> ex.setHeader("ETag", m.etag()));
        ex.sendEmpty(created ? 201 : 200);
    }

    void drop(Exchange ex) {
        Namespace ns = api.namespace(ex);
        api.store().dropCollection(ns, Api.requiredIfMatch(ex, "collection"));
        ex.sendEmpty(204);
    }
}
