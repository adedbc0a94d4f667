package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;

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
