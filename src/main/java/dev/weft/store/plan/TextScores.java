package dev.weft.store.plan;

import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.query.TextSearch;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sets {@code textScore} on each match of a {@code $text} search sorted by it (as
 * {@link Sort#TEXT_SCORE}, which the sort then compares): the score is computed from the
 * document's text fields, which the pruned match holds.
 */
public final class TextScores {
    private static final TextScores NONE = new TextScores(null);
    private final TextSearch search;

    private TextScores(TextSearch search) {
        this.search = search;
    }

    public static TextScores of(Filter filter, Sort sort) {
        if (sort == null || !sort.byTextScore()) {
            return NONE;
        }
        return new TextScores(filter.textSearch().orElseThrow(() -> dev.weft.core.WeftException.badRequest(NO_SCORE)));
    }

    /** MongoDB's message for a textScore asked of a query without {@code $text}. */
    public static final String NO_SCORE = TextSearch.NO_SCORE;

    public void set(JsonNode match) {
        if (search != null && match instanceof ObjectNode doc) {
            doc.put(Sort.TEXT_SCORE, search.score(match));
        }
    }
}
