package dev.weft.aggregate;

import dev.weft.core.Json;
import java.io.Serial;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A document with MongoDB's {@code textScore} metadata: the relevance score of the pipeline's
 * leading {@code $text} match, which {@code {"$meta":"textScore"}} reads and a {@code $sort} on it
 * orders by. The score is no field (nothing shows it unless an expression asks), so it travels
 * with the document object itself: through stages that pass documents on ({@code $match $sort
 * $skip $limit $sample}), those that edit them ({@code $addFields $set $unset $unwind $lookup},
 * whose copies keep it, {@link Documents#copy}), and those that make one new document of each
 * ({@code $project $replaceRoot $replaceWith}, {@link #carry}), as MongoDB keeps a document's
 * metadata; the documents {@code $group $bucket $count $sortByCount $facet} make have none.
 */
final class ScoredDocument extends ObjectNode {
    @Serial
    private static final long serialVersionUID = 1L;

    private final double score;

    private ScoredDocument(double score) {
        super(Json.NODES);
        this.score = score;
    }

    /** {@code document} (an object) with {@code score}. */
    static ObjectNode of(JsonNode document, double score) {
        ScoredDocument out = new ScoredDocument(score);
        out.setAll((ObjectNode) document);
        return out;
    }

    /** An empty object that will become a copy of {@code original}: scored as it is, if it is. */
    static ObjectNode emptyCopyOf(JsonNode original) {
        return original instanceof ScoredDocument s ? new ScoredDocument(s.score) : Json.NODES.objectNode();
    }

    /** {@code made}, the one document a stage made of {@code input}, with {@code input}'s score if it has one. */
    static JsonNode carry(JsonNode input, JsonNode made) {
        if (input instanceof ScoredDocument s && made.isObject() && !(made instanceof ScoredDocument)) {
            return of(made, s.score);
        }
        return made;
    }

    /** The score of {@code document}; NaN when it has none. */
    static double score(JsonNode document) {
        return document instanceof ScoredDocument s ? s.score : Double.NaN;
    }

    /** {@code {"$meta":"textScore"}} of {@code document}: its score, missing when it has none. */
    static JsonNode meta(JsonNode document) {
        return document instanceof ScoredDocument s ? Json.NODES.numberNode(s.score) : null;
    }
}
