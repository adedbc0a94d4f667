package dev.weft.stream;

import dev.weft.query.EqualityKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Index keys of scalar values for the subscriber index: {@link EqualityKeys}, the keys {@code $in}
 * looks values up by, so two values share a key exactly when the evaluator finds them equal.
 * Values without a key (null, objects, arrays, ...) are not indexed: a filter on them is scanned.
 */
final class Keys {
    private Keys() {}

    static Optional<String> of(JsonNode value) {
        return EqualityKeys.text(value);
    }

    /**
     * Keys of every value a document has at a dotted path, reaching through arrays as MongoDB's
     * equality does (an array's elements as well as their fields; numeric segments as indexes). A
     * superset is harmless (the filter is evaluated after), a missing key would lose an event.
     */
    static List<String> at(JsonNode doc, String path) {
        List<String> out = new ArrayList<>(2);
        collect(doc, path.split("\\."), 0, out);
        return out;
    }

    private static void collect(JsonNode node, String[] segments, int i, List<String> out) {
        if (node == null || node.isMissingNode()) {
            return;
        }
        if (i == segments.length) {
            if (node.isArray()) {
                node.forEach(e -> of(e).ifPresent(out::add));
            } else {
                of(node).ifPresent(out::add);
            }
            return;
        }
        if (node.isObject()) {
            collect(node.get(segments[i]), segments, i + 1, out);
        } else if (node.isArray()) {
            String segment = segments[i];
            if (!segment.isEmpty() && segment.chars().allMatch(Character::isDigit) && segment.length() < 10) {
                collect(node.get(Integer.parseInt(segment)), segments, i + 1, out);
            }
            for (JsonNode element : node) {
                if (element.isObject()) {
                    collect(element.get(segment), segments, i + 1, out);
                }
            }
        }
    }
}
