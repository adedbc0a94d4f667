package dev.weft.schema;

import dev.weft.core.Json;
import dev.weft.query.Values;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A document as a schema sees it, which is as RESTHeart hands it to its validator: without the
 * {@code _etag} the server stamps (a client never writes it), and every date as
 * {@code {"$date": millis}} however it was written, so {@code {"$date": "2019-...Z"}} and
 * {@code {"$date": 1568295769260}} meet the same schema.
 */
final class Instance {
    private Instance() {}

    static JsonNode of(ObjectNode document) {
        ObjectNode copy = (ObjectNode) normalized(document);
        copy.remove("_etag");
        return copy;
    }

    private static JsonNode normalized(JsonNode value) {
        if (Values.isDate(value)) {
            return Json.NODES.objectNode().put("$date", Values.dateMillis(value));
        }
        if (value.isObject()) {
            ObjectNode out = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> field : value.properties()) {
                out.set(field.getKey(), normalized(field.getValue()));
            }
            return out;
        }
        if (value.isArray()) {
            ArrayNode out = Json.NODES.arrayNode(value.size());
            value.forEach(element -> out.add(normalized(element)));
            return out;
        }
        return value;
    }
}
