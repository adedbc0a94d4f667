package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.ObjectIds;
import dev.weft.core.WeftException;
import dev.weft.query.Values;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Document ids between URLs and documents. RESTHeart's default {@code id_type} (STRING_OBJECTID)
 * reads a 24-hex-digit segment as an ObjectId and anything else as a string; {@code ?id_type=}
 * forces STRING, OBJECTID, NUMBER, DATE (epoch milliseconds) or BOOLEAN, and a segment of the wrong form is a 400.
 */
final class DocumentIds {
    private DocumentIds() {}

    static JsonNode fromPath(String segment, String idType) {
        Json.checkStorable(segment, "id");
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
            case "DATE" -> {
                try {
                    yield Json.NODES.objectNode().put("$date", Long.parseLong(segment));
                } catch (NumberFormatException e) {
                    throw WeftException.badRequest("id " + segment + " is not a date in epoch milliseconds");
                }
            }
            case "BOOLEAN" -> switch (segment) {
                case "true" -> Json.NODES.booleanNode(true);
                case "false" -> Json.NODES.booleanNode(false);
                default -> throw WeftException.badRequest("id " + segment + " is not a boolean");
            };
            default -> throw WeftException.badRequest("unknown id_type " + idType
                    + " (STRING_OBJECTID, STRING, OBJECTID, NUMBER, DATE, BOOLEAN)");
        };
    }

    private static JsonNode number(String segment) {
        try {
            return Json.NODES.numberNode(Long.parseLong(segment));
        } catch (NumberFormatException e) {
            double value;
            try {
                value = Double.parseDouble(segment);
            } catch (NumberFormatException e2) {
                throw WeftException.badRequest("id " + segment + " is not a number");
            }
            if (!Double.isFinite(value)) {
                throw WeftException.badRequest("id " + segment + " is not a finite number");
            }
            return Json.NODES.numberNode(value);
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
        if (Values.isDate(id)) {
            return Values.dateMillis(id) + "?id_type=DATE";
        }
        return URLEncoder.encode(id.toString(), StandardCharsets.UTF_8);
    }

    /**
     * Readies a client's document for storage: top-level {@code $} fields are refused (they are
     * update operators, not data), a client's {@code _etag} is dropped (the store sets it), a
     * missing {@code _id} gets a new ObjectId, and a given one must be {@link #checkWritable writable}.
     */
    static ObjectNode prepareForInsert(JsonNode node, int maxIdBytes) {
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
        checkWritable(id, maxIdBytes);
        return doc;
    }

    /**
     * The rules an {@code _id} meets before it is stored, so that every stored document can be
     * addressed by its URL: MongoDB's (no array, null or {@code $}-prefixed field, which would
     * read as a query operator; ObjectIds and dates, {@code {"$oid"}} and {@code {"$date"}}, are
     * values), no {@code /} in a string (no URL reaches it: the server refuses an encoded
     * {@code %2F}), and at most {@code max-id-bytes} of JSON text (the {@code Location} header
     * of the created document carries it).
     */
    static void checkWritable(JsonNode id, int maxIdBytes) {
        if (Values.isObjectId(id)) {
            return;
        }
        if (id.isArray() || id.isNull()) {
            throw WeftException.badRequest("_id may not be an array or null");
        }
        if (id.isString() && id.stringValue().indexOf('/') >= 0) {
            throw WeftException.badRequest("_id may not contain '/': no URL could address the document");
        }
        String operator = operatorField(id);
        if (operator != null) {
            throw WeftException.badRequest("_id may not contain a field starting with '$' (" + operator
                    + "); only {\"$oid\": ...} and {\"$date\": ...} are values");
        }
        int bytes = id.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxIdBytes) {
            throw WeftException.badRequest("_id is " + bytes + " bytes of JSON, longer than " + maxIdBytes
                    + " (limit max-id-bytes)");
        }
    }

    /** The first {@code $}-prefixed field name inside {@code value} that is not an ObjectId or date, or null. */
    private static String operatorField(JsonNode value) {
        if (value.isObject() && !Values.isDate(value) && !Values.isObjectId(value)) {
            for (var field : value.properties()) {
                if (field.getKey().startsWith("$")) {
                    return field.getKey();
                }
                String inner = operatorField(field.getValue());
                if (inner != null) {
                    return inner;
                }
            }
        } else if (value.isArray()) {
            for (JsonNode element : value) {
                String inner = operatorField(element);
                if (inner != null) {
                    return inner;
                }
            }
        }
        return null;
    }
}
