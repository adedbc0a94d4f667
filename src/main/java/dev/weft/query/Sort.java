package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import tools.jackson.databind.JsonNode;

/**
 * A sort specification: JSON {@code {"a":1,"b":-1}} or RESTHeart's {@code +a,-b} / {@code a}
 * strings. Compares documents with MongoDB's order; for an array field, ascending sorts use its
 * smallest element and descending its largest. A missing field sorts as null; an empty array
 * below null and missing (MongoDB: first ascending, last descending). An index serves a sort only
 * while it is not multikey, so it never holds an empty array's key when it does. Ties compare 0:
 * the store breaks them by {@code _id}.
 */
public record Sort(List<IndexField> fields) {
    public static final Sort ID_DESCENDING = new Sort(List.of(new IndexField("_id", -1)));
    /**
     * The field of {@code {"$meta":"textScore"}} in a sort (its name in the request does not
     * matter, as in MongoDB): always descending; the store sets it on each match of a
     * {@code $text} search before sorting ({@link TextSearch#score}).
     */
    public static final String TEXT_SCORE = "$textScore";

    private static final Json JSON = Json.standard();
    /** The sort key of an empty array, compared by identity: below every value. */
    private static final JsonNode EMPTY_ARRAY = Json.NODES.arrayNode();

    public Sort {
        fields = List.copyOf(fields);
    }

    /** Whether it sorts by {@code textScore}. */
    public boolean byTextScore() {
        return fields.stream().anyMatch(f -> f.path().equals(TEXT_SCORE));
    }

    /** Compares documents whose textScore, if sorted by, is their {@link #TEXT_SCORE} field (as the store sets it). */
    public Comparator<JsonNode> comparator() {
        return comparator(doc -> doc.path(TEXT_SCORE).asDouble(0));
    }

    /** Compares documents whose textScore, if sorted by, is {@code textScore} of them (an aggregation's metadata). */
    public Comparator<JsonNode> comparator(ToDoubleFunction<JsonNode> textScore) {
        List<Path> paths = fields.stream().map(f -> f.path().equals(TEXT_SCORE) ? null : Path.of(f.path())).toList();
        return (a, b) -> {
            for (int i = 0; i < paths.size(); i++) {
                boolean descending = fields.get(i).direction() < 0;
                Path path = paths.get(i);
                int c = path == null ? Double.compare(textScore.applyAsDouble(a), textScore.applyAsDouble(b))
                        : compareKeys(sortKey(a, path, descending), sortKey(b, path, descending));
                if (c != 0) {
                    return descending ? -c : c;
                }
            }
            return 0;
        };
    }

    /** The value a document sorts by on one path: the least (or greatest) of its index keys. */
    static JsonNode sortKey(JsonNode doc, Path path, boolean greatest) {
        JsonNode[] best = new JsonNode[1];
        boolean[] seen = new boolean[1];
        path.walk(doc, leaf -> {
            if (leaf != null && leaf.isArray()) {
                if (leaf.isEmpty()) {
                    consider(EMPTY_ARRAY, best, seen, greatest);
                }
                for (JsonNode element : leaf) {
                    consider(element, best, seen, greatest);
                }
            } else {
                consider(leaf, best, seen, greatest);
            }
            return false;
        });
        return best[0];
    }

    /** True for the sort key of an empty array, which sorts below every value. */
    static boolean isEmptyArrayKey(JsonNode key) {
        return key == EMPTY_ARRAY;
    }

    private static void consider(JsonNode value, JsonNode[] best, boolean[] seen, boolean greatest) {
        if (!seen[0]) {
            seen[0] = true;
            best[0] = value;
            return;
        }
        int c = compareKeys(value, best[0]);
        if (greatest ? c > 0 : c < 0) {
            best[0] = value;
        }
    }

    private static int compareKeys(JsonNode a, JsonNode b) {
        if (a == EMPTY_ARRAY || b == EMPTY_ARRAY) {
            return Boolean.compare(a != EMPTY_ARRAY, b != EMPTY_ARRAY);
        }
        return Values.compare(a, b);
    }

    /**
     * Parses {@code {"a":1,"b":-1}} or {@code a,-b,+c}. A {@code +} that arrived unescaped in a
     * query string is a space by then, so leading spaces are trimmed.
     */
    public static Sort parse(String spec, QueryLimits limits) {
        String text = spec.trim();
        List<IndexField> fields = new ArrayList<>();
        if (text.startsWith("{")) {
            JsonNode json = JSON.parse(text, "sort");
            for (Map.Entry<String, JsonNode> e : json.properties()) {
                JsonNode d = e.getValue();
                if (isTextScore(d)) {
                    add(fields, TEXT_SCORE, -1);
                    continue;
                }
                if (!d.isNumber() || (d.doubleValue() != 1 && d.doubleValue() != -1)) {
                    throw WeftException.badRequest("sort direction of '" + e.getKey() + "' must be 1 or -1, found " + d);
                }
                add(fields, e.getKey(), d.doubleValue() > 0 ? 1 : -1);
            }
        } else {
            for (String token : text.split(",", -1)) {
                String name = token.trim();
                int direction = 1;
                if (name.startsWith("-") || name.startsWith("+")) {
                    direction = name.charAt(0) == '-' ? -1 : 1;
                    name = name.substring(1).trim();
                }
                add(fields, name, direction);
            }
        }
        return new Sort(fields);
    }

    /** {@code {"$meta":"textScore"}}; 400 for another {@code $meta}. */
    public static boolean isTextScore(JsonNode value) {
        if (!value.isObject() || !value.has("$meta")) {
            return false;
        }
        if (value.size() != 1 || !value.get("$meta").isString() || !value.get("$meta").stringValue().equals("textScore")) {
            throw WeftException.badRequest("unsupported $meta " + value + ": only {\"$meta\":\"textScore\"}");
        }
        return true;
    }

    private static void add(List<IndexField> fields, String name, int direction) {
        if (name.equals(TEXT_SCORE) && fields.stream().noneMatch(f -> f.path().equals(TEXT_SCORE))) {
            fields.add(new IndexField(name, direction));
            return;
        }
        if (name.isEmpty() || name.startsWith("$")) {
            throw WeftException.badRequest("sort has an invalid field name '" + name + "'");
        }
        Path.of(name);
        for (IndexField f : fields) {
            if (f.path().equals(name)) {
                throw WeftException.badRequest("sort names field '" + name + "' twice");
            }
        }
        fields.add(new IndexField(name, direction));
    }
}
