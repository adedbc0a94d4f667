package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.List;
import dev.weft.store.Metadata;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /} lists databases; {@code GET|PUT|DELETE /{db}} lists its collections, creates,
 * drops it. Both lists are in name order and paged like documents ({@code page},
 * {@code pagesize}).
 */
final class DatabaseEndpoints {
    private final Api api;

    DatabaseEndpoints(Api api) {
        this.api = api;
    }

    void list(Exchange ex) {
        ex.sendJson(200, api.json().bytes(names(page(ex, api.store().databases()))));
    }

    void listCollections(Exchange ex) {
        String db = api.database(ex);
        var meta = api.store().database(db).orElseThrow(() -> WeftException.notFound("database " + db + " does not exist"));
        ex.setHeader("ETag", meta.etag());
        ex.sendJson(200, api.json().bytes(names(page(ex, api.store().collections(db)))));
    }

    /** {@code GET /{db}/_meta}: the database's properties as RESTHeart's metadata document. */
    void meta(Exchange ex) {
        String db = api.database(ex);
        var meta = api.store().database(db).orElseThrow(() -> WeftException.notFound("database " + db + " does not exist"));
        sendMeta(ex, api, "_properties", meta);
    }

    /**
     * RESTHeart's metadata document: {@code _id} ({@code _properties} for a database,
     * {@code _properties.{coll}} for a collection), the properties, and {@code _etag}.
     */
    static void sendMeta(Exchange ex, Api api, String id, Metadata meta) {
        ObjectNode doc = Json.NODES.objectNode();
        doc.put("_id", id);
        meta.properties().properties().forEach(e -> {
            if (!e.getKey().equals("_id") && !e.getKey().equals("_etag")) {
                doc.set(e.getKey(), e.getValue());
            }
        });
        doc.putObject("_etag").put("$oid", meta.etag());
        ex.setHeader("ETag", meta.etag());
        ex.sendJson(200, api.json().bytes(doc));
    }

    void put(Exchange ex) {
        String db = api.database(ex);
        boolean created = api.store().putDatabase(db, api.objectBody(ex), Api.ifMatch(ex));
        api.store().database(db).ifPresent(m -> ex.setHeader("ETag", m.etag()));
        ex.sendEmpty(created ? 201 : 200);
    }

    void drop(Exchange ex) {
        String db = api.database(ex);
        api.store().dropDatabase(db, Api.requiredIfMatch(ex, "database"));
        ex.sendEmpty(204);
    }

    /** The names on the requested {@code page} of {@code pagesize}, as RESTHeart pages them: empty past the end. */
    private List<String> page(Exchange ex, List<String> unsorted) {
        List<String> names = unsorted.stream().sorted().toList();
        int page = ReadParams.intParam(ex, "page", 1, 1, Integer.MAX_VALUE);
        int pageSize = ReadParams.intParam(ex, "pagesize", api.settings().defaultPageSize(), 0, api.settings().maxPageSize());
        long from = (long) (page - 1) * pageSize;
        if (from >= names.size()) {
            return List.of();
        }
        return names.subList((int) from, (int) Math.min(names.size(), from + pageSize));
    }

    static ArrayNode names(List<String> names) {
        ArrayNode array = Json.NODES.arrayNode();
        names.forEach(array::add);
        return array;
    }
}
