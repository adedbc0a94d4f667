package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.IndexField;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /{db}/{coll}/_indexes}: list, create ({@code {"keys":{"a":1,"b":-1},"ops":{"unique":true}}})
 * and drop indexes.
 */
final class IndexEndpoints {
    private final Api api;

    IndexEndpoints(Api api) {
        this.api = api;
    }

    void list(Exchange ex) {
        Namespace ns = api.namespace(ex);
        api.existingCollection(ns);
        ArrayNode out = Json.NODES.arrayNode();
        for (IndexSpec index : api.store().indexes(ns)) {
            ObjectNode entry = out.addObject();
            entry.put("_id", index.name());
            ObjectNode key = entry.putObject("key");
            index.fields().forEach(f -> key.put(f.path(), f.direction()));
            if (index.unique()) {
                entry.put("unique", true);
            }
        }
        ex.sendJson(200, api.json().bytes(out));
    }

    void put(Exchange ex) {
        Namespace ns = api.namespace(ex);
        String name = ex.pathParam("name");
        if (name.startsWith("_")) {
            throw WeftException.badRequest("index names starting with '_' are reserved");
        }
        ObjectNode body = api.objectBody(ex);
        api.existingCollection(ns);
        IndexSpec spec = new IndexSpec(name, fields(body.get("keys")), unique(body.get("ops")));
        spec.fields().forEach(f -> ex.context().access(ns).checkIndexPath(f.path()));
        api.store().createIndex(ns, spec);
        ex.sendEmpty(201);
    }

    void drop(Exchange ex) {
        Namespace ns = api.namespace(ex);
        api.existingCollection(ns);
        api.store().dropIndex(ns, ex.pathParam("name"));
        ex.sendEmpty(204);
    }

    private static List<IndexField> fields(JsonNode keys) {
        if (keys == null || !keys.isObject() || keys.isEmpty()) {
            throw WeftException.badRequest("an index needs \"keys\", an object such as {\"author\":1}");
        }
        List<IndexField> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : keys.properties()) {
            JsonNode dir = e.getValue();
            if (!dir.isIntegralNumber() || (dir.asInt() != 1 && dir.asInt() != -1)) {
                throw WeftException.badRequest("index key " + e.getKey() + " must be 1 or -1");
            }
            if (e.getKey().isEmpty() || e.getKey().startsWith("$")) {
                throw WeftException.badRequest("invalid index key path: " + e.getKey());
            }
            fields.add(new IndexField(e.getKey(), dir.asInt()));
        }
        return List.copyOf(fields);
    }

    private static boolean unique(JsonNode ops) {
        if (ops == null) {
            return false;
        }
        if (!ops.isObject()) {
            throw WeftException.badRequest("\"ops\" must be an object such as {\"unique\":true}");
        }
        for (String name : ops.propertyNames()) {
            if (!name.equals("unique") && !name.equals("name") && !name.equals("background")) {
                throw WeftException.badRequest("unsupported index option: " + name);
            }
        }
        JsonNode unique = ops.get("unique");
        if (unique != null && !unique.isBoolean()) {
            throw WeftException.badRequest("ops.unique must be true or false");
        }
        return unique != null && unique.asBoolean();
    }
}
