package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * An update path with positional segments, and the concrete paths it names in one document:
 * {@code $} the first element the query matched ({@link PositionalMatch}), {@code $[]} every
 * element, {@code $[id]} every element the array filter {@code id} matches (tested as
 * {@code {e: element}}, its keys renamed from {@code id} to {@code e}). MongoDB's errors are 400.
 */
final class PositionalPaths {
    static final String ELEMENT = "e";

    private final Path template;
    private final String operator;
    private final PositionalMatch first;
    private final Filter query;
    private final Map<String, Filter> arrayFilters;

    PositionalPaths(Path template, String operator, PositionalMatch first, Filter query, Map<String, Filter> arrayFilters) {
        this.template = template;
        this.operator = operator;
        this.first = first;
        this.query = query;
        this.arrayFilters = arrayFilters;
    }

    static boolean isPositional(String segment) {
        return segment.equals("$") || (segment.startsWith("$[") && segment.endsWith("]"));
    }

    /** The identifier of a {@code $[id]} segment, "" for {@code $[]}, null for anything else. */
    static String identifier(String segment) {
        return segment.startsWith("$[") && segment.endsWith("]") ? segment.substring(2, segment.length() - 1) : null;
    }

    /** The concrete paths in {@code doc}, in array order; none when a {@code $[]} array is empty. */
    List<Path> expand(JsonNode doc) {
        List<Path> out = new ArrayList<>();
        expand(doc, doc, 0, new ArrayList<>(), out);
        return out;
    }

    private void expand(JsonNode doc, JsonNode node, int i, List<String> prefix, List<Path> out) {
        if (i == template.length()) {
            out.add(Path.of(String.join(".", prefix)));
            return;
        }
        String segment = template.field(i);
        if (!isPositional(segment)) {
            prefix.add(segment);
            expand(doc, child(node, template, i), i + 1, prefix, out);
            prefix.removeLast();
            return;
        }
        for (int index : positions(doc, node, segment, prefix)) {
            prefix.add(Integer.toString(index));
            expand(doc, node.get(index), i + 1, prefix, out);
            prefix.removeLast();
        }
    }

    private List<Integer> positions(JsonNode doc, JsonNode array, String segment, List<String> prefix) {
        if (segment.equals("$")) {
            int index = query.matches(doc) ? first.firstIndex(array) : -1;
            if (index < 0) {
                throw error("the positional operator did not find the match needed from the query");
            }
            return List.of(index);
        }
        if (array == null) {
            throw error("the path '" + String.join(".", prefix) + "' must exist in the document to apply array updates");
        }
        if (!array.isArray()) {
            throw error("cannot apply array updates to the non-array element '" + String.join(".", prefix) + "'");
        }
        String id = identifier(segment);
        Filter filter = id.isEmpty() ? null : arrayFilters.get(id);
        List<Integer> indexes = new ArrayList<>(array.size());
        for (int k = 0; k < array.size(); k++) {
            if (filter == null || filter.matches(Json.NODES.objectNode().set(ELEMENT, array.get(k)))) {
                indexes.add(k);
            }
        }
        return indexes;
    }

    private static JsonNode child(JsonNode node, Path path, int i) {
        if (node == null) {
            return null;
        }
        if (node.isObject()) {
            return node.get(path.field(i));
        }
        if (node.isArray() && path.index(i) >= 0 && path.index(i) < node.size()) {
            return node.get(path.index(i));
        }
        return null;
    }

    private WeftException error(String problem) {
        return WeftException.badRequest(operator + " at '" + template + "': " + problem);
    }
}
