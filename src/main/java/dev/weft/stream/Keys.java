package dev.weft.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Index keys of scalar values for the subscriber index: equal under MongoDB's equality if and only
 * if their keys are equal (numbers of any representation compare by value). Values that are not
 * strings, numbers or booleans have no key, and a filter on them is not indexed.
 */
final class Keys {
    private Keys() {}

    static Optional<String> of(JsonNode value) {
        if (value.isString()) {
            return Optional.of("s" + value.stringValue());
        }
        if (value.isNumber()) {
            if (value.isFloatingPointNumber() && !Double.isFinite(value.doubleValue())) {
                return Optional.empty();
            }
            String n = value.decimalValue().stripTrailingZeros().toPlainString();
            return Optional.of("n" + (n.equals("-0") ? "0" : n));
        }
        if (value.isBoolean()) {
            return Optional.of(value.booleanValue() ? "bt" : "bf");
        }
        return Optional.empty();
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
