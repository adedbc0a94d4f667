package dev.weft.query;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/** A compiled MongoDB query filter. Parsing rejects unknown operators and {@code $where} (400). */
public interface Filter {
    /** True when the document matches, with MongoDB's semantics. */
    boolean matches(JsonNode document);

    /**
     * {@link #matches(JsonNode)} at most {@code budget}'s cost; {@link MatchBudget.Exceeded}
     * past it (the answer is then unknown).
     */
    default boolean matches(JsonNode document, MatchBudget budget) {
        budget.spend(1);
        return matches(document);
    }

    /**
     * Key ranges on an index over {@code fields} that together hold every document this filter
     * can match (a superset: the caller still evaluates {@link #matches}), or empty when the
     * index cannot narrow this filter. {@code multikey} says whether any indexed document has an
     * array on an indexed path ({@link KeyEncoding#isMultikey}). Ranges are sorted and do not
     * overlap; an empty list means no document can match. Keys are those of
     * {@link KeyEncoding#indexKeys}, whose conventions (missing is null, an empty array is
     * itself) these ranges rely on.
     */
    Optional<List<KeyRange>> keyRanges(List<IndexField> fields, boolean multikey);

    /**
     * The dotted paths this filter reads, as written (array positions included), for checks of
     * what a client may name; an {@code $elemMatch} reports its array's path only.
     */
    Set<String> paths();

    /**
     * Strings the stored JSON text of every matching document contains: a prefilter a store may push into SQL (a necessary
     * condition only; matches are still decided by {@link #matches}).
     */
    default TextCondition requiredText() {
        return TextCondition.ALWAYS;
    }

    /**
     * Strings that occur, in every matching document, within the strings it holds at the dotted
     * {@code path} (array elements included, as an index on {@code path} sees them): what a
     * trigram index on {@code path} can look up. Read from the {@code $regex} terms on that path
     * that every match must satisfy; {@link TextCondition#ALWAYS} when there are none.
     */
    default TextCondition requiredStrings(String path) {
        return TextCondition.ALWAYS;
    }

    /**
     * The {@code $text} search of this filter (at its top level or in a top-level {@code $and},
     * the only places MongoDB takes one), or empty.
     */
    default Optional<TextSearch> textSearch() {
        return Optional.empty();
    }

    /** The filter that matches everything. */
    static Filter all() {
        return Node.All.INSTANCE;
    }

    /** Compiles a filter document; 400 for anything MongoDB would refuse or Weft does not run. */
    static Filter parse(JsonNode spec, QueryLimits limits) {
        return new FilterParser(limits).parse(spec);
    }

    /** The conjunction of several filters (RESTHeart ANDs repeated filter parameters). */
    static Filter and(List<Filter> filters) {
        if (filters.isEmpty()) {
            return all();
        }
        if (filters.size() == 1) {
            return filters.get(0);
        }
        return new Node.And(filters.stream()
                .map(f -> f instanceof Node node ? node : new Node.Foreign(f))
                .toList());
    }
}
