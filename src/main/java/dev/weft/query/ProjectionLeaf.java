package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * One projected path of a {@code keys} spec, its nested form flattened: whether it includes
 * ({@code null} for {@code $slice}, which keeps either mode), and the array operator that
 * replaces its value ({@code null} for a plain flag; an operator answering null drops the field).
 * {@code probed} is the array an {@code $elemMatch} tests, which the reader must be allowed to see.
 */
record ProjectionLeaf(String path, Boolean include, UnaryOperator<JsonNode> operator, String probed) {

    static List<ProjectionLeaf> flatten(JsonNode spec, List<JsonNode> query) {
        List<ProjectionLeaf> leaves = new ArrayList<>();
        flatten(spec, "", query, leaves);
        if (leaves.stream().filter(ProjectionLeaf::isPositional).count() > 1) {
            throw WeftException.badRequest("keys: only one positional '.$' projection is allowed");
        }
        return leaves;
    }

    /** An including operator that probes nothing the keys name: a positional {@code a.$}. */
    private boolean isPositional() {
        return operator != null && probed == null && Boolean.TRUE.equals(include);
    }

    static Set<String> probed(List<ProjectionLeaf> leaves) {
        Set<String> paths = new LinkedHashSet<>();
        leaves.stream().filter(l -> l.probed != null).forEach(l -> paths.add(l.probed));
        return Set.copyOf(paths);
    }

    private static void flatten(JsonNode spec, String prefix, List<JsonNode> query, List<ProjectionLeaf> leaves) {
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            String path = prefix + e.getKey();
            JsonNode value = e.getValue();
            if (path.endsWith(".$") && path.indexOf('$') == path.length() - 1) {
                String array = path.substring(0, path.length() - 2);
                Path.of(array);
                if (!flag(path, value)) {
                    throw WeftException.badRequest("keys: positional projection '" + path + "' must be 1 or true");
                }
                PositionalMatch match = PositionalMatch.of(query, array, "keys '" + path + "'");
                leaves.add(new ProjectionLeaf(array, true, v -> single(v, match.firstIndex(v)), null));
            } else if (path.contains("$")) {
                throw WeftException.badRequest("keys: '" + path + "' is not a field path"
                        + " (the positional '$' may only end a path)");
            } else if (value.isObject() && !value.isEmpty() && value.propertyNames().iterator().next().startsWith("$")) {
                leaves.add(operator(path, value));
            } else if (value.isObject()) {
                if (value.isEmpty()) {
                    throw WeftException.badRequest("keys: '" + path + "' is an empty object");
                }
                Path.of(path);
                flatten(value, path + ".", query, leaves);
            } else {
                leaves.add(new ProjectionLeaf(path, flag(path, value), null, null));
            }
        }
    }

    private static ProjectionLeaf operator(String path, JsonNode spec) {
        String name = spec.propertyNames().iterator().next();
        if (spec.size() != 1) {
            throw WeftException.badRequest("keys: '" + path + "' must hold one projection operator");
        }
        JsonNode arg = spec.get(name);
        Path.of(path);
        return switch (name) {
            case "$slice" -> new ProjectionLeaf(path, null, slice(path, arg), null);
            case "$elemMatch" -> elemMatch(path, arg);
            default -> throw WeftException.badRequest("keys: projection operator " + name + " at '" + path
                    + "' is not supported (supported: $slice, $elemMatch, positional '.$')");
        };
    }

    private static ProjectionLeaf elemMatch(String path, JsonNode arg) {
        if (path.contains(".")) {
            throw WeftException.badRequest("keys: $elemMatch cannot be used on the nested field '" + path + "'");
        }
        ValuePredicate.ElemMatch condition = new FilterParser(QueryLimits.defaults()).elemMatch(arg, Path.of(path), 1);
        return new ProjectionLeaf(path, true, v -> {
            if (v == null || !v.isArray()) {
                return null;
            }
            for (int i = 0; i < v.size(); i++) {
                if (condition.matchesElement(v.get(i))) {
                    return single(v, i);
                }
            }
            return null;
        }, path);
    }

    /** {@code n} (first n), {@code -n} (last n), {@code [skip, limit]} (skip from the end when negative). */
    private static UnaryOperator<JsonNode> slice(String path, JsonNode arg) {
        if (isInteger(arg)) {
            long n = arg.longValue();
            return v -> !v.isArray() ? v : n >= 0 ? range(v, 0, n) : range(v, Math.max(0, v.size() + n), -n);
        }
        if (arg.isArray() && arg.size() == 2 && isInteger(arg.get(0)) && isInteger(arg.get(1))) {
            long skip = arg.get(0).longValue();
            long limit = arg.get(1).longValue();
            if (limit <= 0) {
                throw WeftException.badRequest("keys: $slice at '" + path + "' needs a positive limit, found " + limit);
            }
            return v -> !v.isArray() ? v : range(v, skip >= 0 ? skip : Math.max(0, v.size() + skip), limit);
        }
        throw WeftException.badRequest("keys: $slice at '" + path + "' needs an integer or [skip, limit], found " + arg);
    }

    private static boolean isInteger(JsonNode n) {
        return n.isNumber() && n.doubleValue() == Math.rint(n.doubleValue()) && n.canConvertToLong();
    }

    private static ArrayNode range(JsonNode array, long from, long count) {
        ArrayNode out = Json.NODES.arrayNode();
        for (long i = from; i < array.size() && i < from + count; i++) {
            out.add(array.get((int) i));
        }
        return out;
    }

    private static JsonNode single(JsonNode array, int index) {
        return index < 0 ? null : Json.NODES.arrayNode(1).add(array.get(index));
    }

    static boolean flag(String name, JsonNode value) {
        if (value.isBoolean()) {
            return value.booleanValue();
        }
        if (value.isNumber()) {
            return value.doubleValue() != 0;
        }
        throw WeftException.badRequest("keys: '" + name + "' must be 0, 1, true or false");
    }
}
