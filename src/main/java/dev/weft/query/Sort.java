package dev.weft.query;

import java.util.Comparator;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * A sort specification: JSON {@code {"a":1,"b":-1}} or RESTHeart's {@code +a,-b} / {@code a}
 * strings. Compares documents with MongoDB's order; for an array field, ascending sorts use its
 * smallest element and descending its largest.
 */
public record Sort(List<IndexField> fields) {
    public static final Sort ID_DESCENDING = new Sort(List.of(new IndexField("_id", -1)));

    public Comparator<JsonNode> comparator() {
        throw new UnsupportedOperationException("stub");
    }

    public static Sort parse(String spec, QueryLimits limits) {
        throw new UnsupportedOperationException("stub");
    }
}
