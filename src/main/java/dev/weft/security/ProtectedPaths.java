package dev.weft.security;

import dev.weft.query.Values;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;

/**
 * Which values a protected path reaches in a document, so that a write can be judged by what it
 * does rather than by how its operators are spelled. A path reaches values the way a MongoDB
 * query does, and wider: an array on the way is entered element by element (nested arrays too),
 * and a numeric segment on an array also takes that element. Each value is keyed by where it
 * sits ({@code items.0.price}), so moving a value between elements is a change as well.
 *
 * <p>An update path is compared by its shape: numeric and positional segments ({@code 0},
 * {@code $}, {@code $[]}, {@code $[name]}) are dropped, so {@code items.$[].price} names
 * {@code items.price}.
 */
final class ProtectedPaths {
    private ProtectedPaths() {}

    /** The values {@code path} reaches in {@code doc}, by location; empty when none (doc null: none). */
    static Map<String, JsonNode> reached(JsonNode doc, String path) {
        Map<String, JsonNode> out = new TreeMap<>();
        if (doc != null) {
            walk(doc, path.split("\\."), 0, "", out);
        }
        return out;
    }

    private static void walk(JsonNode node, String[] segments, int i, String at, Map<String, JsonNode> out) {
        if (node == null || node.isMissingNode()) {
            return;
        }
        if (i == segments.length) {
            out.put(at, node);
            return;
        }
        if (node.isObject()) {
            walk(node.get(segments[i]), segments, i + 1, join(at, segments[i]), out);
        } else if (node.isArray()) {
            for (int e = 0; e < node.size(); e++) {
                walk(node.get(e), segments, i, join(at, Integer.toString(e)), out);
            }
            int index = index(segments[i]);
            if (index >= 0 && index < node.size()) {
                walk(node.get(index), segments, i + 1, join(at, segments[i]) + "#", out);
            }
        }
    }

    private static String join(String at, String segment) {
        return at.isEmpty() ? segment : at + "." + segment;
    }

    private static int index(String segment) {
        if (segment.isEmpty() || segment.length() > 9 || !segment.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Integer.parseInt(segment);
    }

    /** True when {@code path} reaches different values (or values in different places) in the two documents. */
    static boolean differ(JsonNode before, JsonNode after, String path) {
        return !same(reached(before, path), reached(after, path));
    }

    /** Same locations, equal values (by MongoDB's equality: 1 equals 1.0). */
    static boolean same(Map<String, JsonNode> a, Map<String, JsonNode> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (Map.Entry<String, JsonNode> e : a.entrySet()) {
            if (!Values.equal(e.getValue(), b.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** {@code path} without its numeric and positional segments: {@code items.$[].price} is {@code items.price}. */
    static String shape(String path) {
        StringBuilder out = new StringBuilder();
        for (String segment : path.split("\\.", -1)) {
            if (index(segment) >= 0 || segment.equals("$") || (segment.startsWith("$[") && segment.endsWith("]"))) {
                continue;
            }
            if (!out.isEmpty()) {
                out.append('.');
            }
            out.append(segment);
        }
        return out.toString();
    }

    /** The protected path an update path overlaps (equal, parent or child, by shape), or null. */
    static String overlapped(String updatePath, List<String> protectedPaths) {
        String path = shape(updatePath);
        for (String field : protectedPaths) {
            String guarded = shape(field);
            if (path.equals(guarded) || path.startsWith(guarded + ".") || guarded.startsWith(path + ".")
                    || path.isEmpty() || guarded.isEmpty()) {
                return field;
            }
        }
        return null;
    }
}
