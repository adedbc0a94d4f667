package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.stream.StreamQuery;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /{db}/{coll}}: list documents (a page, or every match as ndjson), insert (one, an
 * array, or an ndjson stream), create and drop the collection, and {@code _size}.
 */
final class CollectionEndpoints {
    static final String NDJSON = "application/x-ndjson";

    /** How a stored document becomes response bytes for a read's parameters. */
    @FunctionalInterface
    interface Renderer {
        byte[] render(StoredDocument doc, ReadParams params);
    }

    private final Api api;
    private final NdjsonIngest ingest;
    private final NdjsonExport export;
    private final AbsoluteUrls urls;

    CollectionEndpoints(Api api) {
        this.api = api;
        this.urls = AbsoluteUrls.of(api.settings());
        this.ingest = new NdjsonIngest(api);
        this.export = new NdjsonExport(api, this::render);
    }

    void list(Exchange ex) throws Exception {
        Namespace ns = api.namespace(ex);
        if (ex.header("Accept").map(a -> a.contains(NDJSON)).orElse(false)) {
            export.stream(ex, ns);
            return;
        }
        long version = api.store().version(ns);
        if (answerFromCache(ex)) {
            return;
        }
        ReadParams params = ReadParams.parse(ex, api, ns);
        if (params.count()) {
            long total = api.store().count(ns, params.filter(), params.readMode());
            ex.setHeader("X-Total-Count", Long.toString(total));
            long pages = params.pageSize() == 0 ? 0 : (total + params.pageSize() - 1) / params.pageSize();
            ex.setHeader("X-Total-Pages", Long.toString(pages));
        }
        api.existingCollection(ns);
        byte[] body = page(ns, params);
        api.cache().put(params.cacheKey(), version, new ResultCache.Answer(body, Optional.empty()));
        ex.sendJson(200, body);
    }

    /** A page answered from the result cache; never for {@code count}, whose total is not cached. */
    boolean answerFromCache(Exchange ex) {
        if (ex.hasParam("count") || ex.header("Accept").map(a -> a.contains(NDJSON)).orElse(false)) {
            return false;
        }
        Namespace ns = api.namespace(ex);
        Optional<ResultCache.Answer> cached = api.cache().get(ReadParams.cacheKey(ex, ns), api.store().version(ns));
        cached.ifPresent(answer -> ex.sendJson(200, answer.body()));
        return cached.isPresent();
    }

    private byte[] page(Namespace ns, ReadParams params) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        out.write('[');
        if (params.pageSize() > 0) {
            FindQuery query = new FindQuery(params.filter(), params.sort(), params.skip(), params.pageSize(), params.hint());
            boolean[] first = {true};
            api.store().find(ns, query, params.readMode(), doc -> {
                if (!first[0]) {
                    out.write(',');
                }
                first[0] = false;
                out.writeBytes(render(doc, params));
            });
        }
        out.write(']');
        return out.toByteArray();
    }

    /**
     * The stored bytes as the collection's policy shows them, re-encoded through the projection
     * (the client's, then the permission's) when there is one.
     */
    byte[] render(StoredDocument doc, ReadParams params) {
        byte[] json = params.policy().readable(doc.json());
        if (params.projection().isEmpty()) {
            return json;
        }
        return api.json().bytes(params.projection().get().apply(api.json().parse(json, "stored document")));
    }

    void size(Exchange ex) {
        Namespace ns = api.namespace(ex);
        api.existingCollection(ns);
        long size = api.store().count(ns, ReadParams.filterOnly(ex, api, ns), api.readMode(ex, ns));
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
        if (body.isArray()) {
            insertMany(ex, ns, body, mode);
            return;
        }
        ObjectNode doc = api.documentToStore(ns, body);
        WriteResult result = GuardedWrite.write(api, ex, ns, doc.get("_id"), mode, (stored, m, ifMatch) -> {
            ObjectNode admitted = ex.permission().admitDocument(doc, stored);
            return m == WriteOp.WriteMode.INSERT
                    ? new WriteOp.InsertMany(ns, List.of(admitted))
                    : new WriteOp.Replace(ns, admitted, m, ifMatch);
        });
        Api.answerWrite(ex, result, Optional.of(urls.of(ex, location(ex, doc.get("_id")))));
    }

    private void insertMany(Exchange ex, Namespace ns, JsonNode body, WriteOp.WriteMode mode) {
        if (mode != WriteOp.WriteMode.INSERT && ex.permission().restrictsWrites()) {
            throw ex.permission().denied("wm=" + mode.name().toLowerCase() + " on an array needs an unrestricted rule");
        }
        List<ObjectNode> docs = new ArrayList<>(body.size());
        for (JsonNode element : body) {
            docs.add(ex.permission().admitDocument(api.documentToStore(ns, element), Optional.empty()));
        }
        if (docs.isEmpty()) {
            throw WeftException.badRequest("the array of documents is empty");
        }
        long inserted;
        long modified = 0;
        if (mode == WriteOp.WriteMode.INSERT) {
            WriteResult result = api.store().write(new WriteOp.InsertMany(ns, docs), api.durability(ex, ns));
            if (!result.ok()) {
                Api.answerWrite(ex, result, Optional.empty());
                return;
            }
            inserted = docs.size();
        } else {
            List<WriteOp> ops = new ArrayList<>(docs.size());
            docs.forEach(d -> ops.add(new WriteOp.Replace(ns, d, mode, Optional.empty())));
            inserted = 0;
            for (WriteResult r : api.store().writeAll(ops, api.durability(ex, ns))) {
                if (r.outcome() == WriteResult.Outcome.CREATED) {
                    inserted++;
                } else if (r.outcome() == WriteResult.Outcome.UPDATED) {
                    modified++;
                }
            }
        }
        ObjectNode answer = Json.NODES.objectNode();
        answer.put("inserted", inserted);
        answer.put("deleted", 0);
        answer.put("modified", modified);
        answer.put("matched", modified);
        var links = answer.putArray("links");
        String base = ex.path().endsWith("/") ? ex.path() : ex.path() + "/";
        docs.forEach(d -> links.add(base + DocumentIds.toPath(d.get("_id"))));
        ex.sendJson(200, api.json().bytes(answer));
    }

    static String location(Exchange ex, JsonNode id) {
        String base = ex.path().endsWith("/") ? ex.path() : ex.path() + "/";
        return base + DocumentIds.toPath(id);
    }

    void put(Exchange ex) {
        Namespace ns = api.namespace(ex);
        ObjectNode properties = api.objectBody(ex);
        Api.checkModes(properties);
        StreamQuery.validateDefinitions(properties, api.limits());
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
