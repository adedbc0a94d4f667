package dev.weft.http;

import dev.weft.query.TextSearch;
import java.util.function.ToDoubleFunction;
import tools.jackson.databind.JsonNode;

/**
 * The {@code textScore} the store ranked the document being rendered by
 * ({@link dev.weft.store.StoredDocument#textScore}), for a {@code {"$meta":"textScore"}} in
 * {@code keys}: the score the page was sorted by is the one shown. NaN when the store ranked
 * nothing (a reader who does not see every document, see {@link TextSearch#rankedByStore}): then
 * MongoDB's per-document formula computes it from the document. One request's, set and read on
 * its thread, document by document.
 */
final class StoreTextScore {
    private double current = Double.NaN;

    void set(double score) {
        current = score;
    }

    ToDoubleFunction<JsonNode> orComputedBy(TextSearch search) {
        return doc -> Double.isNaN(current) ? search.score(doc) : current;
    }
}
