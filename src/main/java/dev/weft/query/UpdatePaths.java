package dev.weft.query;

import dev.weft.core.WeftException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reading and writing one exact location of a document for update operators. Unlike a query
 * path, an update path does not fan out over arrays: a numeric segment indexes an array, any
 * other segment names an object field, and missing intermediate fields are created as objects.
 */
final class UpdatePaths {
    /** Writing past the end of an array pads it with nulls, up to this many. */
    static final int MAX_ARRAY_PADDING = 10_000;

    private UpdatePaths() {}

    /** The value at the path, or null when there is none. */
    static JsonNode get(JsonNode doc, Path path) {
        JsonNode node = doc;
        for (int i = 0; i < path.length() && node != null; i++) {
            node = child(node, path, i);
        }
        return node == null || node.isMissingNode() ? null : node;
    }

    private static JsonNode child(JsonNode node, Path path, int i) {
        if (node.isObject()) {
            return node.get(path.field(i));
        }
        if (node.isArray() && path.index(i) >= 0) {
            return path.index(i) < node.size() ? node.get(path.index(i)) : null;
        }
        return null;
    }

    /** True when the path goes through an array (what {@code $rename} refuses). */
    static boolean crossesArray(JsonNode doc, Path path) {
        JsonNode node = doc;
        for (int i = 0; i < path.length() && node != null; i++) {
            if (node.isArray()) {
                return true;
            }
            node = child(node, path, i);
        }
        return false;
    }

    /** Throws 400 unless {@link #set} can write the path: no field can be created inside a scalar. */
    static void checkSettable(JsonNode doc, Path path, String operator) {
        JsonNode node = doc;
        for (int i = 0; i < path.length(); i++) {
            if (node.isArray()) {
                if (path.index(i) < 0) {
                    throw WeftException.badRequest(operator + " at '" + path + "': cannot create field '"
                            + path.field(i) + "' in an array");
                }
                if (path.index(i) > node.size() + MAX_ARRAY_PADDING) {
                    throw WeftException.badRequest(operator + " at '" + path + "': array index too far past the end");
                }
            } else if (!node.isObject()) {
                throw WeftException.badRequest(operator + " at '" + path + "': cannot create field '"
                        + path.field(i) + "' in a " + Values.bracket(node).name().toLowerCase() + " value");
            }
            node = child(node, path, i);
            if (node == null || node.isMissingNode()) {
                return;
            }
        }
    }

    /** Writes the value, creating missing intermediate objects; call {@link #checkSettable} first. */
    static void set(JsonNode doc, Path path, JsonNode value) {
        JsonNode node = doc;
        int last = path.length() - 1;
        for (int i = 0; i < last; i++) {
            JsonNode next = child(node, path, i);
            if (next == null || next.isMissingNode()) {
                next = new ObjectNode(dev.weft.core.Json.NODES);
                put(node, path, i, next);
            }
            node = next;
        }
        put(node, path, last, value);
    }

    private static void put(JsonNode container, Path path, int i, JsonNode value) {
        if (container instanceof ObjectNode object) {
            object.set(path.field(i), value);
            return;
        }
        ArrayNode array = (ArrayNode) container;
        int index = path.index(i);
        while (array.size() < index) {
            array.addNull();
        }
        if (index == array.size()) {
            array.add(value);
        } else {
            array.set(index, value);
        }
    }

    /** The object or array holding the path's last segment, or null when there is none. */
    static JsonNode parent(JsonNode doc, Path path) {
        JsonNode node = doc;
        for (int i = 0; i < path.length() - 1 && node != null; i++) {
            node = child(node, path, i);
        }
        return node != null && node.isContainer() ? node : null;
    }
}
