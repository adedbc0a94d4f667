package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.query.UpdateDescription;
import dev.weft.query.Values;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A PATCH whose body is a pipeline, as MongoDB's pipeline updates: {@code $set/$addFields},
 * {@code $unset}, {@code $project}, {@code $replaceRoot/$replaceWith}, evaluated over the stored
 * document ({@code $$NOW} is one instant for the whole request). The result keeps its
 * {@code _id} (changing it is 400) and must be storable JSON (no infinite number, no
 * {@code $}-prefixed field of its own).
 */
public final class PipelineUpdate implements Update {
    private final Pipeline pipeline;
    private final JsonNode now;

    private PipelineUpdate(Pipeline pipeline, JsonNode now) {
        this.pipeline = pipeline;
        this.now = now;
    }

    public static PipelineUpdate parse(JsonNode stages, QueryLimits limits) {
        return new PipelineUpdate(Pipeline.parseUpdate(stages, limits), AggValues.date(System.currentTimeMillis()));
    }

    /** The stored-document paths the stages read, for the caller's access checks. */
    public Set<String> readPaths() {
        return pipeline.readPaths();
    }

    @Override
    public UpdateDescription apply(ObjectNode document, boolean inserting) {
        ObjectNode result = pipeline.update(document, now);
        JsonNode id = document.get("_id");
        JsonNode newId = result.get("_id");
        if (newId != null && !newId.equals(id)) {
            throw WeftException.badRequest("an update pipeline may not change _id");
        }
        checkStorable(result, "");
        ObjectNode updated = Json.NODES.objectNode();
        List<String> removed = new ArrayList<>();
        for (String field : document.propertyNames()) {
            if (!result.has(field) && !field.equals("_id") && !field.equals("_etag")) {
                removed.add(field);
            }
        }
        for (Map.Entry<String, JsonNode> e : result.properties()) {
            if (!e.getValue().equals(document.get(e.getKey()))) {
                updated.set(e.getKey(), e.getValue());
            }
        }
        JsonNode etag = document.get("_etag");
        document.removeAll();
        if (id != null) {
            document.set("_id", id);
        }
        result.properties().forEach(e -> document.set(e.getKey(), e.getValue()));
        if (etag != null && !document.has("_etag")) {
            document.set("_etag", etag); // the store stamps a new one
        }
        return new UpdateDescription(updated, List.copyOf(removed));
    }

    private static void checkStorable(JsonNode value, String path) {
        if (value.isNumber() && (value.isDouble() || value.isFloat())
                && (Double.isNaN(value.doubleValue()) || Double.isInfinite(value.doubleValue()))) {
            throw WeftException.badRequest("an update pipeline computed " + value.doubleValue() + " at '" + path
                    + "', which JSON cannot store");
        }
        if (value.isObject() && !Values.isDate(value) && !Values.isObjectId(value)) {
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                if (e.getKey().startsWith("$") && !(value.size() == 1 && e.getKey().equals("$timestamp"))) {
                    throw WeftException.badRequest("an update pipeline may not store a field named " + e.getKey());
                }
                checkStorable(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey());
            }
        } else if (value.isArray()) {
            for (JsonNode e : value) {
                checkStorable(e, path);
            }
        }
    }
}
