package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A projection as a tree of field names: a leaf is a projected path, an inner node a path
 * prefix. Inclusion copies the leaves it names (through arrays of documents, dropping other
 * elements); exclusion copies everything but them. {@code _id} is included unless {@code _id:0};
 * {@code _id:0} is the only exclusion allowed in an inclusion, and {@code _id:1} in an exclusion
 * changes nothing. Paths name fields only: a numeric segment is a field name, not an index.
 */
final class ProjectionTree implements Projection {
    private static final Projection IDENTITY = document -> (ObjectNode) document;

    private final Map<String, ProjectionTree> children = new LinkedHashMap<>();
    private final boolean inclusion;

    private ProjectionTree(boolean inclusion) {
        this.inclusion = inclusion;
    }

    static Projection parse(JsonNode spec) {
        if (spec == null || !spec.isObject()) {
            throw WeftException.badRequest("keys must be a JSON object");
        }
        Boolean inclusion = null;
        Boolean includeId = null;
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            boolean include = flag(e.getKey(), e.getValue());
            if (e.getKey().equals("_id")) {
                includeId = include;
            } else if (inclusion == null) {
                inclusion = include;
            } else if (inclusion != include) {
                throw WeftException.badRequest("keys cannot mix inclusion and exclusion (at '" + e.getKey() + "')");
            }
        }
        if (inclusion == null) {
            if (includeId == null) {
                return IDENTITY;
            }
            inclusion = includeId; // {_id: 1} keeps only _id; {_id: 0} drops only _id
        }
        ProjectionTree root = new ProjectionTree(inclusion);
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            boolean isId = e.getKey().equals("_id");
            if (!isId || includeId == inclusion) {
                root.add(Path.of(e.getKey()), e.getKey());
            }
        }
        if (inclusion && includeId == null) {
            root.children.putIfAbsent("_id", null);
        }
        return root;
    }

    private static boolean flag(String name, JsonNode value) {
        if (value.isBoolean()) {
            return value.booleanValue();
        }
        if (value.isNumber()) {
            return value.doubleValue() != 0;
        }
        throw WeftException.badRequest("keys: '" + name + "' must be 0, 1, true or false"
                + (value.isObject() ? " (projection operators are not supported)" : ""));
    }

    private void add(Path path, String dotted) {
        ProjectionTree node = this;
        for (int i = 0; i < path.length(); i++) {
            String name = path.field(i);
            boolean last = i == path.length() - 1;
            if (node.children.containsKey(name)) {
                ProjectionTree child = node.children.get(name);
                if (child == null || last) {
                    throw WeftException.badRequest("keys: path collision at '" + dotted + "'");
                }
                node = child;
            } else if (last) {
                node.children.put(name, null);
            } else {
                ProjectionTree child = new ProjectionTree(inclusion);
                node.children.put(name, child);
                node = child;
            }
        }
    }

    @Override
    public ObjectNode apply(JsonNode document) {
        return project(document);
    }

    @Override
    public boolean shows(String path) {
        if (path.isEmpty()) {
            return !inclusion && children.isEmpty();
        }
        ProjectionTree node = this;
        for (String name : path.split("\\.", -1)) {
            if (isPosition(name)) {
                continue;
            }
            if (!node.children.containsKey(name)) {
                return !node.inclusion; // not named: an inclusion drops it, an exclusion keeps it
            }
            ProjectionTree child = node.children.get(name);
            if (child == null) {
                return node.inclusion; // a named leaf: kept whole, or dropped whole
            }
            node = child;
        }
        return false; // an ancestor of named fields: part of its value is dropped
    }

    private static boolean isPosition(String name) {
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** Projects an object; a null child in {@link #children} marks a projected leaf. */
    private ObjectNode project(JsonNode object) {
        ObjectNode out = Json.NODES.objectNode();
        for (Map.Entry<String, JsonNode> e : object.properties()) {
            String name = e.getKey();
            JsonNode value = e.getValue();
            if (!children.containsKey(name)) {
                if (!inclusion) {
                    out.set(name, value);
                }
                continue;
            }
            ProjectionTree child = children.get(name);
            if (child == null) {
                if (inclusion) {
                    out.set(name, value);
                }
            } else if (value.isObject()) {
                out.set(name, child.project(value));
            } else if (value.isArray()) {
                out.set(name, child.projectArray(value));
            } else if (!inclusion) {
                out.set(name, value);
            }
        }
        return out;
    }

    private ArrayNode projectArray(JsonNode array) {
        ArrayNode out = Json.NODES.arrayNode(array.size());
        for (JsonNode element : array) {
            if (element.isObject()) {
                out.add(project(element));
            } else if (element.isArray()) {
                out.add(projectArray(element));
            } else if (!inclusion) {
                out.add(element);
            }
        }
        return out;
    }
}
