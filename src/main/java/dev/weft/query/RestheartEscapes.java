package dev.weft.query;

import dev.weft.core.Json;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart stores the {@code $} operators and the dots of query definitions it keeps in
 * documents (access rules' filters, stream and aggregation stages) as {@code _$} and {@code ::},
 * since MongoDB refuses them in stored keys, and reads them back unescaped. Weft does the same,
 * so definitions copied from RESTHeart keep their meaning.
 */
public final class RestheartEscapes {
    private RestheartEscapes() {}

    /** A copy of {@code value} whose keys have {@code _$} read as {@code $} and {@code ::} as {@code .}. */
    public static JsonNode undo(JsonNode value) {
        if (value.isObject()) {
            ObjectNode out = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                String key = e.getKey().startsWith("_$") ? e.getKey().substring(1) : e.getKey();
                out.set(key.replace("::", "."), undo(e.getValue()));
            }
            return out;
        }
        if (value.isArray()) {
            ArrayNode out = Json.NODES.arrayNode();
            value.forEach(element -> out.add(undo(element)));
            return out;
        }
        return value;
    }
}
