package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A projection as a tree of field names: a leaf is a projected path, an inner node a path
 * prefix. Inclusion copies the leaves it names (through arrays of documents, dropping other
 * elements); exclusion copies everything but them. {@code _id} is included unless {@code _id:0};
 * {@code _id:0} is the only exclusion allowed in an inclusion, and {@code _id:1} in an exclusion
 * changes nothing. Paths name fields only: a numeric segment is a field name, not an index.
 *
 * <p>MongoDB's nested form {@code {size: {uom: 1}}} is {@code {"size.uom": 1}}. A leaf may carry
 * an array operator ({@link ArrayProjection}): {@code $slice} (kept in either mode, and alone it
 * makes an exclusion), {@code $elemMatch} and positional {@code a.$} (both inclusions).
 */
final class ProjectionTree implements Projection {
    private static final Projection IDENTITY = document -> (ObjectNode) document;

    private final Map<String, ProjectionTree> children = new LinkedHashMap<>();
    /** The leaves among {@link #children} that transform their array rather than copy it. */
    private final Map<String, UnaryOperator<JsonNode>> operators = new LinkedHashMap<>();
    private final boolean inclusion;
    private final Set<String> probed;

    private ProjectionTree(boolean inclusion, Set<String> probed) {
        this.inclusion = inclusion;
        this.probed = probed;
    }

    static Projection parse(JsonNode spec, List<JsonNode> query) {
        if (spec == null || !spec.isObject()) {
            throw WeftException.badRequest("keys must be a JSON object");
        }
        List<ProjectionLeaf> leaves = ProjectionLeaf.flatten(spec, query);
        Boolean inclusion = null;
        Boolean includeId = null;
        boolean anyOperator = false;
        for (ProjectionLeaf leaf : leaves) {
            anyOperator |= leaf.operator() != null;
            if (leaf.path().equals("_id") && leaf.operator() == null) {
                includeId = leaf.include();
            } else if (leaf.include() == null) {
                continue; // $slice keeps either mode
            } else if (inclusion == null) {
                inclusion = leaf.include();
            } else if (inclusion != leaf.include()) {
                throw WeftException.badRequest("keys cannot mix inclusion and exclusion (at '" + leaf.path() + "')");
            }
        }
        if (inclusion == null) {
            if (includeId == null && !anyOperator) {
                return IDENTITY;
            }
            // {_id: 1} keeps only _id; {_id: 0} drops only _id; $slice alone keeps everything else
            inclusion = anyOperator ? Boolean.FALSE : includeId;
        }
        ProjectionTree root = new ProjectionTree(inclusion, ProjectionLeaf.probed(leaves));
        for (ProjectionLeaf leaf : leaves) {
            boolean isId = leaf.path().equals("_id") && leaf.operator() == null;
            if (!isId || includeId == inclusion) {
                root.add(Path.of(leaf.path()), leaf.path(), leaf.operator());
            }
        }
        if (inclusion && includeId == null) {
            root.children.putIfAbsent("_id", null);
        }
        return root;
    }

    private void add(Path path, String dotted, UnaryOperator<JsonNode> operator) {
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
                if (operator != null) {
                    node.operators.put(name, operator);
                }
            } else {
                ProjectionTree child = new ProjectionTree(inclusion, Set.of());
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
    public Set<String> probedPaths() {
        return probed;
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
                // a named leaf: kept whole, or dropped whole; an array operator drops elements
                return node.inclusion && !node.operators.containsKey(name);
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
            UnaryOperator<JsonNode> operator = operators.get(name);
            if (operator != null) {
                JsonNode result = operator.apply(value);
                if (result != null) {
                    out.set(name, result);
                }
            } else if (child == null) {
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
