package dev.weft.query;

import dev.weft.core.WeftException;
import java.util.Arrays;
import tools.jackson.databind.JsonNode;

/**
 * A dotted path split once into segments, and the one traversal of documents that filters,
 * index keys and sorts all share, so that what the evaluator sees at a path is exactly what an
 * index holds for it.
 *
 * <p>Traversal rules (MongoDB's): an object step takes the named field; an array met before the
 * last segment is traversed into each element that is an object; a numeric segment on an array
 * also takes the element at that index (and still looks for a field of that name in object
 * elements). A step that finds nothing (a missing field, a scalar, an empty array, a non-object
 * array element) reaches the leaf as missing, reported as Java {@code null}. Arrays at the leaf
 * are handed over whole; expanding them into elements is the caller's choice.
 */
final class Path {
    /** The document itself: the path of a value-form {@code $elemMatch}. */
    static final Path SELF = new Path("", new String[0], new int[0]);

    /** A visitor of the values reached; returning true stops the walk (a match was found). */
    @FunctionalInterface
    interface Leaf {
        boolean visit(JsonNode valueOrNull);

        /** The walk is about to step over the elements of {@code array} (a budgeted match counts them). */
        default void crossing(JsonNode array) {}

        /**
         * The rest of the walk from {@code array}, met before the last segment at segment
         * {@code step} of {@code path}: by default {@link Path#walkArray} with this leaf. A leaf
         * that knows what that walk would visit (a remembered array, {@link ArrayKeys}) may
         * answer for it, as long as it answers and counts exactly as the walk would.
         */
        default boolean across(Path path, JsonNode array, int step) {
            return path.walkArray(array, step, this);
        }
    }

    final String dotted;
    private final String[] fields;
    private final int[] indexes;

    private Path(String dotted, String[] fields, int[] indexes) {
        this.dotted = dotted;
        this.fields = fields;
        this.indexes = indexes;
    }

    static Path of(String dotted) {
        if (dotted.isEmpty()) {
            throw WeftException.badRequest("empty field name");
        }
        String[] fields = dotted.split("\\.", -1);
        int[] indexes = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].isEmpty()) {
                throw WeftException.badRequest("empty field name in path '" + dotted + "'");
            }
            indexes[i] = arrayIndex(fields[i]);
        }
        return new Path(dotted, fields, indexes);
    }

    /** The array index a segment names, or -1: digits only, no leading zero (as MongoDB reads them). */
    static int arrayIndex(String segment) {
        int n = segment.length();
        if (n == 0 || n > 9 || (n > 1 && segment.charAt(0) == '0')) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < n; i++) {
            char c = segment.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    int length() {
        return fields.length;
    }

    String field(int i) {
        return fields[i];
    }

    int index(int i) {
        return indexes[i];
    }

    /** True when this path is {@code other} or lies inside it (segment-wise prefix). */
    boolean startsWith(Path other) {
        return other.fields.length <= fields.length
                && Arrays.equals(fields, 0, other.fields.length, other.fields, 0, other.fields.length);
    }

    /** True when an array lies on this path in {@code node} (the path is multikey there). */
    boolean crossesArray(JsonNode node) {
        for (int i = 0; node != null; i++) {
            if (node.isArray()) {
                return true;
            }
            if (i == fields.length || !node.isObject()) {
                return false;
            }
            node = node.get(fields[i]);
        }
        return false;
    }

    /** Visits every value this path reaches in {@code node}; true as soon as a visit returns true. */
    boolean walk(JsonNode node, Leaf leaf) {
        return walk(node, 0, leaf);
    }

    private boolean walk(JsonNode node, int i, Leaf leaf) {
        if (node != null && node.isMissingNode()) {
            node = null;
        }
        if (i == fields.length) {
            return leaf.visit(node);
        }
        if (node == null || !node.isContainer()) {
            return leaf.visit(null);
        }
        if (node.isObject()) {
            return walk(node.get(fields[i]), i + 1, leaf);
        }
        return leaf.across(this, node, i);
    }

    /**
     * The path from segment {@code step} on ({@code "b.c"} of {@code "a.b.c"} at 1): with the
     * array met there, all that decides the rest of a walk.
     */
    String suffix(int step) {
        int at = 0;
        for (int i = 0; i < step; i++) {
            at += fields[i].length() + 1;
        }
        return dotted.substring(at);
    }

    /** The walk from {@code array}, met before the last segment at segment {@code i}. */
    boolean walkArray(JsonNode array, int i, Leaf leaf) {
        leaf.crossing(array);
        int index = indexes[i];
        boolean reachedAny = false;
        if (index >= 0 && index < array.size()) {
            reachedAny = true;
            if (walk(array.get(index), i + 1, leaf)) {
                return true;
            }
        }
        boolean missingSeen = false;
        for (JsonNode element : array) {
            if (element.isObject()) {
                reachedAny = true;
                if (walk(element.get(fields[i]), i + 1, leaf)) {
                    return true;
                }
            } else if (index < 0 && !missingSeen) {
                missingSeen = true;
                reachedAny = true;
                if (leaf.visit(null)) {
                    return true;
                }
            }
        }
        return !reachedAny && leaf.visit(null);
    }

    @Override
    public String toString() {
        return dotted;
    }
}
