package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;

/** {@code GET /} lists databases; {@code GET|PUT|DELETE /{db}} lists, creates, drops one. */
final class DatabaseEndpoints {
    private final Api api;

    DatabaseEndpoints(Api api) {
        this.api = api;
    }

    void list(Exchange ex) {
        ex.sendJson(200, api.json().bytes(names(api.store().databases())));
    }

    void listCollections(Exchange ex) {
        String db = api.database(ex);
        var meta = api.store().database(db).orElseThrow(() -> WeftException.notFound("database " + db + " does not exist"));
        ex.setHeader("ETag", meta.etag());
        ex.sendJson(200, api.json().bytes(names(api.store().collections(db))));
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

    static ArrayNode names(List<String> names) {
        ArrayNode array = Json.NODES.arrayNode();
        names.forEach(array::add);
        return array;
    }
}
