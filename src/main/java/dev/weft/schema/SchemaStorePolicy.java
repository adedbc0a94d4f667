package dev.weft.schema;

import dev.weft.core.Json;
import dev.weft.query.RestheartEscapes;
import dev.weft.security.DocumentPolicy;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a {@code _schemas} collection keeps schemas, as RESTHeart does: a key starting with
 * {@code $} ({@code $schema}, {@code $ref}, {@code $defs}; a stored document may not have one at
 * its top level) is stored as {@code _$...}, and read back unescaped, so a client writes and
 * reads plain JSON Schema and RESTHeart's escaped form reads the same.
 */
final class SchemaStorePolicy implements DocumentPolicy {
    private final Json json;

    SchemaStorePolicy(Json json) {
        this.json = json;
    }

    @Override
    public ObjectNode entering(ObjectNode client) {
        ObjectNode out = Json.NODES.objectNode();
        for (Map.Entry<String, JsonNode> e : client.properties()) {
            boolean id = e.getKey().equals("_id"); // an ObjectId stays one
            out.set(escapedKey(e.getKey()), id ? e.getValue() : escaped(e.getValue()));
        }
        return out;
    }

    @Override
    public ObjectNode update(ObjectNode body) {
        // operators stay operators; their operands are schema parts
        ObjectNode out = Json.NODES.objectNode();
        for (Map.Entry<String, JsonNode> e : body.properties()) {
            boolean operator = e.getKey().startsWith("$");
            out.set(operator ? e.getKey() : escapedKey(e.getKey()), escaped(e.getValue()));
        }
        return out;
    }

    @Override
    public byte[] readable(byte[] stored) {
        return json.bytes(RestheartEscapes.undo(json.parse(stored, "stored schema")));
    }

    @Override
    public ObjectNode readable(ObjectNode document) {
        ObjectNode plain = (ObjectNode) RestheartEscapes.undo(document);
        document.removeAll();
        document.setAll(plain);
        return document;
    }

    private static JsonNode escaped(JsonNode value) {
        if (value.isObject()) {
            ObjectNode out = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                out.set(escapedKey(e.getKey()), escaped(e.getValue()));
            }
            return out;
        }
        if (value.isArray()) {
            ArrayNode out = Json.NODES.arrayNode(value.size());
            value.forEach(element -> out.add(escaped(element)));
            return out;
        }
        return value;
    }

    private static String escapedKey(String key) {
        return key.startsWith("$") ? "_" + key : key;
    }
}
