package dev.weft.aggregate;

import dev.weft.core.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Copy-on-write edits of documents by dotted path, as {@code $addFields}, {@code $unset} and
 * {@code $unwind} make them: the input is never changed, only the objects along the path are
 * copied, so stages may share unchanged subtrees.
 */
final class Documents {
    private Documents() {}

    /** A shallow copy of {@code object} (an empty object when it is none), with its textScore ({@link ScoredDocument}). */
    static ObjectNode copy(JsonNode object) {
        ObjectNode out = ScoredDocument.emptyCopyOf(object);
        if (object != null && object.isObject()) {
            out.setAll((ObjectNode) object);
        }
        return out;
    }

    /**
     * {@code doc} with {@code value} at {@code fields} (removed when the value is missing). An
     * array on the way gets the rest of the path set in each of its elements, a scalar element
     * becoming an object, as MongoDB's {@code $addFields} does.
     */
    static ObjectNode set(JsonNode doc, String[] fields, int i, JsonNode value) {
        ObjectNode out = copy(doc);
        String field = fields[i];
        if (i == fields.length - 1) {
            if (value == null) {
                out.remove(field);
            } else {
                out.set(field, value);
            }
            return out;
        }
        JsonNode child = out.get(field);
        if (child != null && child.isArray()) {
            out.set(field, setInArray((ArrayNode) child, fields, i + 1, value));
        } else {
            out.set(field, set(child, fields, i + 1, value));
        }
        return out;
    }

    private static ArrayNode setInArray(ArrayNode array, String[] fields, int i, JsonNode value) {
        ArrayNode out = Json.NODES.arrayNode();
        for (JsonNode e : array) {
            out.add(e.isArray() ? setInArray((ArrayNode) e, fields, i, value) : set(e, fields, i, value));
        }
        return out;
    }

    /** {@code doc} without what {@code fields} names, through arrays of objects. */
    static JsonNode remove(JsonNode doc, String[] fields, int i) {
        if (doc.isArray()) {
            ArrayNode out = Json.NODES.arrayNode();
            doc.forEach(e -> out.add(e.isObject() || e.isArray() ? remove(e, fields, i) : e));
            return out;
        }
        if (!doc.isObject() || !doc.has(fields[i])) {
            return doc;
        }
        ObjectNode out = copy(doc);
        if (i == fields.length - 1) {
            out.remove(fields[i]);
        } else {
            out.set(fields[i], remove(out.get(fields[i]), fields, i + 1));
        }
        return out;
    }
}
