package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.ObjectIds;
import dev.weft.core.WeftException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Document ids between URLs and documents. RESTHeart's default {@code id_type} (STRING_OBJECTID)
 * reads a 24-hex-digit segment as an ObjectId and anything else as a string; {@code ?id_type=}
 * forces STRING, OBJECTID, NUMBER or BOOLEAN, and a segment of the wrong form is a 400.
 */
final class DocumentIds {
    private DocumentIds() {}

    static JsonNode fromPath(String segment, String idType) {
        return switch (idType.toUpperCase()) {
            case "STRING_OBJECTID" -> ObjectIds.isValid(segment) ? oid(segment) : Json.NODES.stringNode(segment);
            case "STRING" -> Json.NODES.stringNode(segment);
            case "OBJECTID" -> {
                if (!ObjectIds.isValid(segment)) {
                    throw WeftException.badRequest("id " + segment + " is not an ObjectId (24 hex digits)");
                }
                yield oid(segment);
            }
            case "NUMBER" -> number(segment);
            case "BOOLEAN" -> switch (segment) {
                case "true" -> Json.NODES.booleanNode(true);
                case "false" -> Json.NODES.booleanNode(false);
                default -> throw WeftException.badRequest("id " + segment + " is not a boolean");
            };
            default -> throw WeftException.badRequest("unknown id_type " + idType
                    + " (STRING_OBJECTID, STRING, OBJECTID, NUMBER, BOOLEAN)");
        };
    }

    private static JsonNode number(String segment) {
        try {
            return Json.NODES.numberNode(Long.parseLong(segment));
        } catch (NumberFormatException e) {
            try {
                return Json.NODES.numberNode(Double.parseDouble(segment));
            } catch (NumberFormatException e2) {
                throw WeftException.badRequest("id " + segment + " is not a number");
            }
        }
    }

    static ObjectNode oid(String hex) {
        ObjectNode node = Json.NODES.objectNode();
        node.put("$oid", hex.toLowerCase());
        return node;
    }

    /** The URL path segment of an id, and {@code ?id_type=} when the default would misread it. */
    static String toPath(JsonNode id) {
        if (id.isObject() && id.has("$oid") && id.size() == 1) {
            return id.get("$oid").asString();
        }
        if (id.isString()) {
            String s = id.asString();
            String encoded = URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
            return ObjectIds.isValid(s) ? encoded + "?id_type=STRING" : encoded;
        }
        if (id.isNumber()) {
            return id.asString() + "?id_type=NUMBER";
        }
        if (id.isBoolean()) {
            return id.asString() + "?id_type=BOOLEAN";
        }
        return URLEncoder.encode(id.toString(), StandardCharsets.UTF_8);
    }

    /**
     * Readies a client's document for storage: top-level {@code $} fields are refused (they are
     * update operators, not data), a client's {@code _etag} is dropped (the store sets it), and a
     * missing {@code _id} gets a new ObjectId. Arrays as {@code _id} are refused as in MongoDB.
     */
    static ObjectNode prepareForInsert(JsonNode node) {
        if (!node.isObject()) {
            throw WeftException.badRequest("a document must be a JSON object");
        }
        ObjectNode doc = (ObjectNode) node;
        for (String name : doc.propertyNames()) {
            if (name.startsWith("$")) {
                throw WeftException.badRequest("field names may not start with '$': " + name);
            }
        }
        doc.remove("_etag");
        JsonNode id = doc.get("_id");
        if (id == null) {
            ObjectNode withId = Json.NODES.objectNode();
            withId.set("_id", oid(ObjectIds.next()));
            withId.setAll(doc);
            return withId;
        }
        if (id.isArray() || id.isNull()) {
            throw WeftException.badRequest("_id may not be an array or null");
        }
        return doc;
    }
}
