package dev.weft.store.plan;

import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.KeyRange;
import dev.weft.query.MatchBudget;
import dev.weft.query.TextCondition;
import dev.weft.store.IndexSpec;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/**
 * A compiled filter that also keeps the filter documents its client wrote, each of which every
 * match satisfies (the compiled one may be narrower, e.g. an access rule ANDed in). The planner
 * reads them to tell whether a query implies what a sparse or partial index holds
 * ({@link #implies}); a filter without them never uses such an index.
 */
public record WrittenFilter(Filter compiled, List<JsonNode> written) implements Filter {
    /** {@code compiled}, remembering {@code written} when there is any. */
    public static Filter of(Filter compiled, List<JsonNode> written) {
        return written.isEmpty() ? compiled : new WrittenFilter(compiled, List.copyOf(written));
    }

    /**
     * Whether every document {@code filter} matches is held by the index. The rule is literal,
     * hence safe rather than complete: a partial filter's every top-level condition must appear,
     * written alike, as a top-level condition (or one inside a top-level {@code $and}) of a
     * written filter; for a sparse index, some written condition on one of its fields must need
     * the field present ({@code {"$exists":true}} or equality to a non-null scalar).
     */
    public static boolean implies(Filter filter, IndexSpec index) {
        if (!index.selective()) {
            return true;
        }
        if (!(filter instanceof WrittenFilter w)) {
            return false;
        }
        boolean sparseHeld = !index.sparse() || index.fields().stream().map(IndexField::path)
                .anyMatch(path -> w.conditionsOn(path).stream().anyMatch(WrittenFilter::needsPresence));
        return sparseHeld && index.partial().map(p -> p.expression().properties().stream()
                .allMatch(e -> w.conditionsOn(e.getKey()).contains(e.getValue()))).orElse(true);
    }

    /** The written conditions on {@code path}: top-level ones, and those in top-level {@code $and}s. */
    private List<JsonNode> conditionsOn(String path) {
        return written.stream()
                .flatMap(spec -> spec.has("$and") && spec.get("$and").isArray()
                        ? Stream.concat(Stream.of(spec), spec.get("$and").valueStream())
                        : Stream.of(spec))
                .filter(JsonNode::isObject)
                .map(spec -> spec.get(path))
                .filter(Objects::nonNull)
                .toList();
    }

    private static boolean needsPresence(JsonNode condition) {
        if (condition.isValueNode()) {
            return !condition.isNull();
        }
        return condition.isObject() && condition.size() == 1 && condition.path("$exists").isBoolean()
                && condition.get("$exists").asBoolean();
    }

    @Override
    public boolean matches(JsonNode document) {
        return compiled.matches(document);
    }

    @Override
    public boolean matches(JsonNode document, MatchBudget budget) {
        return compiled.matches(document, budget);
    }

    @Override
    public Optional<List<KeyRange>> keyRanges(List<IndexField> fields, boolean multikey) {
        return compiled.keyRanges(fields, multikey);
    }

    @Override
    public Set<String> paths() {
        return compiled.paths();
    }

    @Override
    public TextCondition requiredText() {
        return compiled.requiredText();
    }

    @Override
    public TextCondition requiredStrings(String path) {
        return compiled.requiredStrings(path);
    }

    @Override
    public Optional<dev.weft.query.TextSearch> textSearch() {
        return compiled.textSearch();
    }
}
