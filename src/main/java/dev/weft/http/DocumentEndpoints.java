package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.query.Projection;
import dev.weft.query.Update;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /{db}/{coll}/{id}}: read (with ETag and If-None-Match), replace, update, delete. The
 * request's permission applies here: a document outside the read filter reads as missing (404),
 * and writes go through {@link GuardedWrite}.
 */
final class DocumentEndpoints {
    private final Api api;

    DocumentEndpoints(Api api) {
        this.api = api;
    }

    private static JsonNode id(Exchange ex) {
        return DocumentIds.fromPath(ex.pathParam("id"), ex.param("id_type").orElse("STRING_OBJECTID"));
    }

    void get(Exchange ex) {
        Namespace ns = api.namespace(ex);
        long version = api.store().version(ns);
        String key = cacheKey(ex, ns);
        Optional<ResultCache.Answer> cached = api.cache().get(key, version);
        ResultCache.Answer answer = cached.isPresent() ? cached.get() : read(ex, ns);
        if (cached.isEmpty()) {
            api.cache().put(key, version, answer);
        }
        respond(ex, answer);
    }

    boolean answerFromCache(Exchange ex) {
        Namespace ns = api.namespace(ex);
        Optional<ResultCache.Answer> cached = api.cache().get(cacheKey(ex, ns), api.store().version(ns));
        cached.ifPresent(answer -> respond(ex, answer));
        return cached.isPresent();
    }

    private static String cacheKey(Exchange ex, Namespace ns) {
        return "doc|" + ns + "|" + ex.pathParam("id") + "|" + ex.param("id_type").orElse("")
                + "|" + String.join("\u0001", ex.params("keys")) + "|" + ex.param(Api.READ_MODE).orElse("")
                + "|" + ex.permission().cacheKey();
    }

    /** The document with its ETag, or 304 when the client has this version (If-None-Match). */
    private static void respond(Exchange ex, ResultCache.Answer answer) {
        if (answer.etag().isPresent()) {
            String etag = answer.etag().get();
            ex.setHeader("ETag", etag);
            Optional<String> ifNoneMatch = ex.header("If-None-Match").map(Api::stripEtagQuotes);
            if (ifNoneMatch.isPresent() && ifNoneMatch.get().equals(etag)) {
                ex.sendEmpty(304);
                return;
            }
        }
        ex.sendJson(200, answer.body());
    }

    /** The document as this request may see it, with its etag; 404 when missing or outside the read filter. */
    private ResultCache.Answer read(Exchange ex, Namespace ns) {
        JsonNode id = id(ex);
        Optional<StoredDocument> doc = api.store().get(ns, id, api.readMode(ex, ns));
        JsonNode tree = null;
        if (doc.isPresent() && !ex.permission().readsEverything()) {
            tree = api.json().parse(doc.get().json(), "stored document");
            if (!ex.permission().canRead(tree)) {
                doc = Optional.empty(); // outside the read filter: as if it did not exist
            }
        }
        if (doc.isEmpty()) {
            api.existingCollection(ns);
            throw WeftException.notFound("document " + ex.pathParam("id") + " does not exist in " + ns);
        }
        byte[] json = doc.get().json();
        Optional<String> etag = Etags.of(json);
        json = api.policy(ns).readable(json);
        Optional<Projection> projection = ReadParams.projection(ex, api, api.policy(ns));
        if (projection.isPresent()) {
            JsonNode readable = tree != null ? api.policy(ns).readable((ObjectNode) tree) : api.json().parse(json, "stored document");
            json = api.json().bytes(projection.get().apply(readable));
        }
        return new ResultCache.Answer(json, etag);
    }

    void put(Exchange ex) {
        Namespace ns = api.namespace(ex);
        JsonNode id = id(ex);
        ObjectNode body = api.objectBody(ex);
        JsonNode bodyId = body.get("_id");
        if (bodyId != null && !bodyId.equals(id)) {
            throw WeftException.badRequest("the _id in the body differs from the id in the URL");
        }
        body.set("_id", id);
        ObjectNode doc = api.documentToStore(ns, body);
        api.existingCollection(ns);
        var result = GuardedWrite.write(api, ex, ns, id, WriteModes.parse(ex, WriteOp.WriteMode.UPDATE),
                (stored, mode, ifMatch) -> new WriteOp.Replace(ns, ex.permission().admitDocument(doc, stored), mode, ifMatch));
        Api.answerWrite(ex, result, Optional.of(ex.path()));
    }

    void patch(Exchange ex) {
        Namespace ns = api.namespace(ex);
        JsonNode id = id(ex);
        DocumentIds.checkWritable(id, api.settings().maxIdBytes()); // wm=upsert may create it
        api.policy(ns).checkId(id);
        ObjectNode body = api.policy(ns).update(api.objectBody(ex));
        ex.permission().admitUpdate(body); // first: a protected path is 403 even where the update is unsupported
        Update update = Update.parse(body, api.limits());
        api.existingCollection(ns);
        UpdateCheck check = UpdateCheck.of(api, ex, ns);
        var result = GuardedWrite.write(api, ex, ns, id, WriteModes.parse(ex, WriteOp.WriteMode.UPDATE),
                (stored, mode, ifMatch) -> new WriteOp.UpdateOne(ns, id, update, mode, ifMatch, check.forOp()));
        Api.answerWrite(ex, check.answer(result), Optional.of(ex.path()));
    }

    void delete(Exchange ex) {
        Namespace ns = api.namespace(ex);
        JsonNode id = id(ex);
        api.existingCollection(ns);
        var result = GuardedWrite.write(api, ex, ns, id, WriteOp.WriteMode.UPDATE,
                (stored, mode, ifMatch) -> new WriteOp.DeleteOne(ns, id, ifMatch));
        Api.answerWrite(ex, result, Optional.empty());
    }
}
