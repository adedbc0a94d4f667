package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.IndexField;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /{db}/{coll}/_indexes}: list, create ({@code {"keys":{"a":1,"b":-1},"ops":{"unique":true}}},
 * with MongoDB's {@code sparse} and {@code partialFilterExpression} too; Weft's own
 * {@code {"keys":{"links.url":"trigram"}}} for {@code $regex}; MongoDB's text indexes,
 * {@link TextIndexBody}) and drop indexes.
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
            if (index.isText()) {
                TextIndexBody.describe(index, entry);
                continue;
            }
            ObjectNode key = entry.putObject("key");
            index.fields().forEach(f -> {
                if (index.trigram()) {
                    key.put(f.path(), "trigram");
                } else {
                    key.put(f.path(), f.direction());
                }
            });
            if (index.unique()) {
                entry.put("unique", true);
            }
            if (index.sparse()) {
                entry.put("sparse", true);
            }
            index.partial().ifPresent(p -> entry.set("partialFilterExpression", p.expression()));
            index.expireAfterSeconds().ifPresent(seconds -> entry.put("expireAfterSeconds", seconds));
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
        JsonNode ops = options(body.get("ops"));
        Optional<IndexSpec.PartialFilter> partial = partial(ops.get("partialFilterExpression"));
        Optional<String> trigramPath = trigramPath(body.get("keys"));
        IndexSpec spec;
        if (TextIndexBody.isText(body.get("keys"))) {
            spec = TextIndexBody.spec(name, body.get("keys"), ops);
            if (spec.text().wildcard()) {
                ex.context().access(ns).checkWildcardIndex();
            }
        } else if (trigramPath.isPresent()) {
            spec = trigram(name, trigramPath.get(), ops);
        } else {
            List<IndexField> fields = fields(body.get("keys"));
            spec = new IndexSpec(name, fields, flag(ops, "unique"), flag(ops, "sparse"), partial,
                    expireAfterSeconds(ops.get("expireAfterSeconds"), fields));
        }
        spec.fields().stream().filter(f -> !f.path().equals(dev.weft.query.TextIndex.WILDCARD))
                .forEach(f -> ex.context().access(ns).checkIndexPath(f.path()));
        // a partial unique index's 409 would tell what the filter's fields hold: they are named like keys
        partial.ifPresent(p -> p.filter().paths().forEach(path -> ex.context().access(ns).checkIndexPath(path)));
        api.store().createIndex(ns, spec);
        ex.sendEmpty(201);
    }

    void drop(Exchange ex) {
        Namespace ns = api.namespace(ex);
        api.existingCollection(ns);
        api.store().dropIndex(ns, ex.pathParam("name"));
        ex.sendEmpty(204);
    }

    /** The path of {@code {"path":"trigram"}}, Weft's own spelling of a trigram index. */
    private static Optional<String> trigramPath(JsonNode keys) {
        if (keys == null || !keys.isObject()
                || keys.properties().stream().noneMatch(e -> e.getValue().isString() && e.getValue().stringValue().equals("trigram"))) {
            return Optional.empty();
        }
        if (keys.size() != 1) {
            throw WeftException.badRequest("a trigram index has one key, such as {\"links.url\":\"trigram\"}");
        }
        String path = keys.propertyNames().iterator().next();
        if (path.isEmpty() || path.startsWith("$")) {
            throw WeftException.badRequest("invalid index key path: " + path);
        }
        return Optional.of(path);
    }

    private static IndexSpec trigram(String name, String path, JsonNode ops) {
        for (String option : List.of("unique", "sparse", "partialFilterExpression", "expireAfterSeconds")) {
            if (ops.has(option)) {
                throw WeftException.badRequest("a trigram index takes no option " + option);
            }
        }
        return IndexSpec.trigram(name, path);
    }

    private static List<IndexField> fields(JsonNode keys) {
        if (keys == null || !keys.isObject() || keys.isEmpty()) {
            throw WeftException.badRequest("an index needs \"keys\", an object such as {\"author\":1}");
        }
        List<IndexField> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : keys.properties()) {
            JsonNode dir = e.getValue();
            if (!dir.isIntegralNumber() || (dir.asInt() != 1 && dir.asInt() != -1)) {
                throw WeftException.badRequest("index key " + e.getKey() + " must be 1 or -1 (or \"trigram\", alone)");
            }
            if (e.getKey().isEmpty() || e.getKey().startsWith("$")) {
                throw WeftException.badRequest("invalid index key path: " + e.getKey());
            }
            fields.add(new IndexField(e.getKey(), dir.asInt()));
        }
        return List.copyOf(fields);
    }

    private static final java.util.Set<String> OPTIONS = java.util.Set.of("unique", "sparse", "partialFilterExpression",
            "expireAfterSeconds", "name", "background", "weights", "default_language", "language_override", "textIndexVersion");

    private static JsonNode options(JsonNode ops) {
        if (ops == null) {
            return Json.NODES.objectNode();
        }
        if (!ops.isObject()) {
            throw WeftException.badRequest("\"ops\" must be an object such as {\"unique\":true}");
        }
        for (String name : ops.propertyNames()) {
            if (!OPTIONS.contains(name)) {
                throw WeftException.badRequest("unsupported index option: " + name);
            }
        }
        return ops;
    }

    /** MongoDB's TTL option: whole seconds from 0 to 2^31-1, on an index of one field other than {@code _id}. */
    private static Optional<Long> expireAfterSeconds(JsonNode value, List<IndexField> fields) {
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0
                || value.longValue() > Integer.MAX_VALUE) {
            throw WeftException.badRequest("ops.expireAfterSeconds must be a whole number of seconds from 0 to 2147483647");
        }
        if (fields.size() != 1 || fields.getFirst().path().equals("_id")) {
            throw WeftException.badRequest("ops.expireAfterSeconds needs an index of one field, not _id (MongoDB's TTL indexes)");
        }
        return Optional.of(value.longValue());
    }

    private static boolean flag(JsonNode ops, String name) {
        JsonNode value = ops.get(name);
        if (value != null && !value.isBoolean()) {
            throw WeftException.badRequest("ops." + name + " must be true or false");
        }
        return value != null && value.asBoolean();
    }

    private Optional<IndexSpec.PartialFilter> partial(JsonNode expression) {
        if (expression == null) {
            return Optional.empty();
        }
        if (!(expression instanceof ObjectNode object) || object.isEmpty()) {
            throw WeftException.badRequest("ops.partialFilterExpression must be a non-empty filter object");
        }
        return Optional.of(IndexSpec.PartialFilter.of(object, api.limits()));
    }
}
