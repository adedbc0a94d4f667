package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.store.Namespace;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /{db}/{coll}/{id}}: read (with ETag and If-None-Match), replace, update, delete. The
 * request's access applies in the plans: a {@link GetPlan} reads a document outside the read
 * filter as missing (404), and writes are {@link WritePlan}s.
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
        Optional<ResultCache.Answer> answer = GetPlan.of(ex, api, ns, id(ex)).execute();
        if (answer.isEmpty()) {
            api.existingCollection(ns);
            throw WeftException.notFound("document " + ex.pathParam("id") + " does not exist in " + ns);
        }
        return answer.get();
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
        Api.answerWrite(ex, WritePlan.replace(ex, api, ns, body).execute(), Optional.of(ex.path()));
    }

    void patch(Exchange ex) {
        Namespace ns = api.namespace(ex);
        Api.answerWrite(ex, WritePlan.update(ex, api, ns, id(ex)).execute(), Optional.of(ex.path()));
    }

    void delete(Exchange ex) {
        Namespace ns = api.namespace(ex);
        Api.answerWrite(ex, WritePlan.delete(ex, api, ns, id(ex)).execute(), Optional.empty());
    }
}
