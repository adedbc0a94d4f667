package dev.weft.store;

import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.TextIndex;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An index of a collection: its name, its key fields in order, whether keys are unique, and
 * which documents it holds: all of them, or with {@code sparse} only those having one of its
 * fields, or with a {@code partialFilterExpression} only those matching it (MongoDB's options).
 * A document the index does not hold has no key in it, so a unique key over documents that may
 * lack the field can be declared; the planner uses such an index only when the query implies
 * that the documents it needs are held ({@link dev.weft.store.plan.QueryPlanner}).
 * {@code expireAfterSeconds} makes it a TTL index: {@link TtlReaper} deletes the documents whose
 * field holds a date older than that.
 *
 * <p>A {@link Kind#TRIGRAM} index (Weft's own, {@code {"keys":{"path":"trigram"}}}) has one field
 * and holds the trigrams of the strings there ({@link dev.weft.query.Trigrams}): it answers
 * {@code $regex} on that path, never a range or an order.
 *
 * <p>A {@link Kind#TEXT} index (MongoDB's, {@code {"keys":{"title":"text"}}}) holds the terms of
 * the strings its {@link TextIndex} covers: it answers {@code $text}, never a range or an order.
 * A collection has at most one.
 */
public record IndexSpec(String name, List<IndexField> fields, boolean unique, boolean sparse, Optional<PartialFilter> partial,
                        Optional<Long> expireAfterSeconds, Kind kind, TextIndex text) {
    /** What an index's keys are: encoded values in order, the trigrams of strings, or the terms of texts. */
    public enum Kind { ORDERED, TRIGRAM, TEXT }

    public IndexSpec(String name, List<IndexField> fields, boolean unique, boolean sparse, Optional<PartialFilter> partial,
                     Optional<Long> expireAfterSeconds, Kind kind) {
        this(name, fields, unique, sparse, partial, expireAfterSeconds, kind, null);
    }

    public IndexSpec(String name, List<IndexField> fields, boolean unique) {
        this(name, fields, unique, false, Optional.empty());
    }

    public IndexSpec(String name, List<IndexField> fields, boolean unique, boolean sparse, Optional<PartialFilter> partial) {
        this(name, fields, unique, sparse, partial, Optional.empty());
    }

    public IndexSpec(String name, List<IndexField> fields, boolean unique, boolean sparse, Optional<PartialFilter> partial,
                     Optional<Long> expireAfterSeconds) {
        this(name, fields, unique, sparse, partial, expireAfterSeconds, Kind.ORDERED);
    }

    /** A trigram index on one path. */
    public static IndexSpec trigram(String name, String path) {
        return new IndexSpec(name, List.of(new IndexField(path, 1)), false, false, Optional.empty(), Optional.empty(),
                Kind.TRIGRAM);
    }

    /** A MongoDB text index over {@code text}'s fields (their paths are its fields, in order). */
    public static IndexSpec text(String name, TextIndex text) {
        List<IndexField> fields = text.weights().keySet().stream().sorted().map(p -> new IndexField(p, 1)).toList();
        return new IndexSpec(name, fields, false, false, Optional.empty(), Optional.empty(), Kind.TEXT, text);
    }

    public boolean trigram() {
        return kind == Kind.TRIGRAM;
    }

    public boolean isText() {
        return kind == Kind.TEXT;
    }

    /** Whether its keys are values in order (so it serves ranges and sorts): neither trigram nor text. */
    public boolean ordered() {
        return kind == Kind.ORDERED;
    }

    /** A {@code partialFilterExpression} as written, and compiled. Equal when written alike. */
    public record PartialFilter(ObjectNode expression, Filter filter) {
        public static PartialFilter of(ObjectNode expression, QueryLimits limits) {
            return new PartialFilter(expression.deepCopy(), Filter.parse(expression, limits));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PartialFilter other && expression.equals(other.expression);
        }

        @Override
        public int hashCode() {
            return expression.hashCode();
        }
    }

    /** Whether some documents are left out of this index. */
    public boolean selective() {
        return sparse || partial.isPresent();
    }

    /** Whether this index holds {@code doc} (and so has keys for it). */
    public boolean holds(JsonNode doc) {
        if (sparse && fields.stream().noneMatch(f -> present(doc, f.path()))) {
            return false;
        }
        return partial.map(p -> p.filter().matches(doc)).orElse(true);
    }

    /** Whether the dotted {@code path} reaches a value (through objects; an array counts as present). */
    private static boolean present(JsonNode doc, String path) {
        JsonNode node = doc;
        for (String step : path.split("\\.")) {
            if (node.isArray()) {
                return true; // MongoDB's sparse test on array elements is broader; holding more is safe
            }
            node = node.get(step);
            if (node == null) {
                return false;
            }
        }
        return true;
    }
}
