package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code $project}: inclusion (with computed fields) or exclusion, never both but for
 * {@code _id: 0}; nested specs and dotted paths alike; {@code _id} kept unless excluded; arrays
 * of objects projected element-wise. {@code $unset} is the exclusion form.
 */
final class Projector {
    private static final Object INCLUDE = new Object();
    private static final Object EXCLUDE = new Object();

    /** A level of the projection: field name to INCLUDE, EXCLUDE, an {@link Expr}, or a nested level. */
    private static final class Level extends LinkedHashMap<String, Object> {}

    private final Level root = new Level();
    private boolean inclusion;
    private boolean exclusion;
    private final boolean keepId;

    private Projector(boolean keepId) {
        this.keepId = keepId;
    }

    static Projector parse(JsonNode spec, ExprParser parser) {
        if (!spec.isObject() || spec.isEmpty()) {
            throw WeftException.badRequest("$project takes a non-empty object such as {\"name\": 1}");
        }
        JsonNode id = spec.get("_id");
        boolean keepId = id == null || !isFalse(id);
        Projector p = new Projector(keepId);
        p.add(p.root, (ObjectNode) spec, "", parser);
        if (p.inclusion && p.exclusion) {
            throw WeftException.badRequest("$project: cannot mix inclusion and exclusion (except _id: 0)");
        }
        return p;
    }

    /** {@code $unset}'s exclusion of {@code paths}. */
    static Projector exclusion(List<String> paths) {
        Projector p = new Projector(true);
        for (String path : paths) {
            p.put(p.root, path.split("\\."), 0, EXCLUDE);
        }
        p.exclusion = true;
        return p;
    }

    private static boolean isFalse(JsonNode v) {
        return v.isBoolean() && !v.booleanValue() || v.isNumber() && v.doubleValue() == 0;
    }

    private void add(Level level, ObjectNode spec, String prefix, ExprParser parser) {
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            String name = e.getKey();
            JsonNode v = e.getValue();
            if (name.startsWith("$")) {
                throw WeftException.badRequest("$project: unknown expression operator or field name " + name);
            }
            String[] fields = name.split("\\.", -1);
            for (String f : fields) {
                if (f.isEmpty()) {
                    throw WeftException.badRequest("$project: invalid field path '" + prefix + name + "'");
                }
            }
            boolean isId = prefix.isEmpty() && name.equals("_id");
            Object what;
            if (v.isBoolean() || v.isNumber()) {
                what = isFalse(v) ? EXCLUDE : INCLUDE;
                if (!isId) {
                    if (what == EXCLUDE) {
                        exclusion = true;
                    } else {
                        inclusion = true;
                    }
                }
            } else if (v.isObject() && !v.isEmpty() && !v.propertyNames().iterator().next().startsWith("$")) {
                Level nested = new Level();
                add(nested, (ObjectNode) v, prefix + name + ".", parser);
                what = nested;
            } else {
                what = parser.parse(v);
                inclusion = true;
            }
            if (isId && what == EXCLUDE) {
                continue;
            }
            put(level, fields, 0, what);
        }
    }

    private void put(Level level, String[] fields, int i, Object what) {
        if (i == fields.length - 1) {
            Object before = level.put(fields[i], what);
            if (before != null) {
                throw WeftException.badRequest("$project: path collision at " + String.join(".", fields));
            }
            return;
        }
        Object child = level.computeIfAbsent(fields[i], k -> new Level());
        if (!(child instanceof Level nested)) {
            throw WeftException.badRequest("$project: path collision at " + String.join(".", fields));
        }
        put(nested, fields, i + 1, what);
    }

    boolean isInclusion() {
        return !exclusion;
    }

    /** Whether the output keeps fields the projection does not name (an exclusion, or {@code {_id: 0}} alone). */
    boolean keepsUnnamedFields() {
        return exclusion || !inclusion;
    }

    ObjectNode apply(JsonNode doc, Scope scope) {
        if (exclusion) {
            ObjectNode out = (ObjectNode) exclude(root, doc);
            if (!keepId) {
                out.remove("_id");
            }
            return out;
        }
        ObjectNode out = Json.NODES.objectNode();
        if (keepId && doc.has("_id") && !root.containsKey("_id")) {
            out.set("_id", doc.get("_id"));
        }
        include(root, doc, scope, out);
        return out;
    }

    private static JsonNode exclude(Level level, JsonNode doc) {
        if (doc.isArray()) {
            ArrayNode out = Json.NODES.arrayNode();
            doc.forEach(e -> out.add(e.isContainer() ? exclude(level, e) : e));
            return out;
        }
        if (!doc.isObject()) {
            return doc;
        }
        ObjectNode out = Json.NODES.objectNode();
        for (Map.Entry<String, JsonNode> e : doc.properties()) {
            Object what = level.get(e.getKey());
            if (what == EXCLUDE) {
                continue;
            }
            out.set(e.getKey(), what instanceof Level nested ? exclude(nested, e.getValue()) : e.getValue());
        }
        return out;
    }

    private static void include(Level level, JsonNode doc, Scope scope, ObjectNode out) {
        if (doc != null && doc.isObject()) {
            for (Map.Entry<String, JsonNode> e : doc.properties()) {
                Object what = level.get(e.getKey());
                if (what == INCLUDE) {
                    out.set(e.getKey(), e.getValue());
                } else if (what instanceof Level nested && e.getValue().isContainer() && !hasComputed(nested)) {
                    out.set(e.getKey(), includeNested(nested, e.getValue(), scope));
                }
            }
        }
        List<String> computedOrder = new ArrayList<>();
        for (Map.Entry<String, Object> e : level.entrySet()) {
            if (e.getValue() instanceof Expr || e.getValue() instanceof Level nested && hasComputed(nested)) {
                computedOrder.add(e.getKey());
            }
        }
        for (String name : computedOrder) {
            Object what = level.get(name);
            if (what instanceof Expr expr) {
                JsonNode v = expr.eval(scope);
                if (v != null) {
                    out.set(name, v);
                }
            } else {
                ObjectNode nestedOut = Json.NODES.objectNode();
                include((Level) what, doc == null ? null : doc.get(name), scope, nestedOut);
                out.set(name, nestedOut);
            }
        }
    }

    private static JsonNode includeNested(Level level, JsonNode value, Scope scope) {
        if (value.isArray()) {
            ArrayNode out = Json.NODES.arrayNode();
            for (JsonNode e : value) {
                if (e.isContainer()) {
                    out.add(includeNested(level, e, scope));
                }
            }
            return out;
        }
        ObjectNode out = Json.NODES.objectNode();
        include(level, value, scope, out);
        return out;
    }

    private static boolean hasComputed(Level level) {
        for (Object v : level.values()) {
            if (v instanceof Expr || v instanceof Level nested && hasComputed(nested)) {
                return true;
            }
        }
        return false;
    }
}
