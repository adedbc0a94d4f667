package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.query.Projection;
import dev.weft.query.Update;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code /{db}/{coll}/{id}}: read (with ETag and If-None-Match), replace, update, delete. */
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
        JsonNode id = id(ex);
        Optional<StoredDocument> doc = api.store().get(ns, id);
        if (doc.isEmpty()) {
            api.existingCollection(ns);
            throw WeftException.notFound("document " + ex.pathParam("id") + " does not exist in " + ns);
        }
        byte[] json = doc.get().json();
        Optional<String> etag = Etags.of(json);
        if (etag.isPresent()) {
            ex.setHeader("ETag", etag.get());
            Optional<String> ifNoneMatch = ex.header("If-None-Match").map(Api::stripEtagQuotes);
            if (ifNoneMatch.isPresent() && ifNoneMatch.get().equals(etag.get())) {
                ex.sendEmpty(304);
                return;
            }
        }
        List<String> keys = ex.params("keys");
        if (!keys.isEmpty()) {
            ObjectNode merged = dev.weft.core.Json.NODES.objectNode();
            for (String k : keys) {
                JsonNode spec = ReadParams.jsonParam(api, "keys", k);
                if (!spec.isObject()) {
                    throw WeftException.badRequest("keys must be a JSON object such as {\"name\":1}");
                }
                merged.setAll((ObjectNode) spec);
            }
            json = api.json().bytes(Projection.parse(merged).apply(api.json().parse(json, "stored document")));
        }
        ex.sendJson(200, json);
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
        ObjectNode doc = DocumentIds.prepareForInsert(body);
        api.existingCollection(ns);
        var result = api.store().write(new WriteOp.Replace(ns, doc, WriteModes.parse(ex, WriteOp.WriteMode.UPDATE), Api.ifMatch(ex)));
        Api.answerWrite(ex, result, Optional.of(ex.path()));
    }

    void patch(Exchange ex) {
        Namespace ns = api.namespace(ex);
        JsonNode id = id(ex);
        Update update = Update.parse(api.objectBody(ex), api.limits());
        api.existingCollection(ns);
        var result = api.store().write(new WriteOp.UpdateOne(ns, id, update, WriteModes.parse(ex, WriteOp.WriteMode.UPDATE), Api.ifMatch(ex)));
        Api.answerWrite(ex, result, Optional.of(ex.path()));
    }

    void delete(Exchange ex) {
        Namespace ns = api.namespace(ex);
        JsonNode id = id(ex);
        api.existingCollection(ns);
        Api.answerWrite(ex, api.store().write(new WriteOp.DeleteOne(ns, id, Api.ifMatch(ex))), Optional.empty());
    }
}
