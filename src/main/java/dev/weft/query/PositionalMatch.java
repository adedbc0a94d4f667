package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What MongoDB's positional {@code $} refers to: the first element of an array that satisfies the
 * query's conditions on that array (projection {@code grades.$}, update {@code grades.$}). The
 * conditions are the query's top-level ones (and those of a top-level {@code $and}) whose path is
 * the array's or lies below it; each element is tested alone, as the array {@code [element]}.
 */
final class PositionalMatch {
    private static final String ELEMENT = "e";

    private final Filter conditions;

    private PositionalMatch(Filter conditions) {
        this.conditions = conditions;
    }

    /** 400 when the query has no condition on {@code arrayPath}: the {@code $} would name nothing. */
    static PositionalMatch of(List<JsonNode> query, String arrayPath, String use) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode spec : query) {
            collect(spec, arrayPath, found);
        }
        if (found.isEmpty()) {
            throw WeftException.badRequest(use + ": the positional operator did not find the match needed from the query"
                    + " (the filter has no condition on '" + arrayPath + "')");
        }
        ObjectNode and = Json.NODES.objectNode();
        and.putArray("$and").addAll(found);
        return new PositionalMatch(Filter.parse(and, QueryLimits.defaults()));
    }

    private static void collect(JsonNode spec, String arrayPath, List<JsonNode> found) {
        if (spec == null || !spec.isObject()) {
            return;
        }
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            String key = e.getKey();
            if (key.equals("$and") && e.getValue().isArray()) {
                e.getValue().forEach(member -> collect(member, arrayPath, found));
            } else if (key.equals(arrayPath) || key.startsWith(arrayPath + ".")) {
                found.add(Json.NODES.objectNode().set(ELEMENT + key.substring(arrayPath.length()), e.getValue()));
            }
        }
    }

    /** The index of the first element satisfying the conditions, or -1. */
    int firstIndex(JsonNode array) {
        if (array == null || !array.isArray()) {
            return -1;
        }
        for (int i = 0; i < array.size(); i++) {
            ArrayNode alone = Json.NODES.arrayNode(1).add(array.get(i));
            if (conditions.matches(Json.NODES.objectNode().set(ELEMENT, alone))) {
                return i;
            }
        }
        return -1;
    }
}
