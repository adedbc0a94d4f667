package dev.weft.query;

import java.util.List;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A compiled PATCH body: update operators, or a plain object meaning {@code $set} of its fields
 * (RESTHeart's PATCH). Applying it never changes {@code _id} (400).
 */
public interface Update {
    /**
     * Applies the update to {@code document} in place. {@code inserting} is true for the insert
     * half of an upsert ({@code $setOnInsert} applies only then).
     */
    UpdateDescription apply(ObjectNode document, boolean inserting);

    /**
     * Compiles a PATCH body. On a {@link dev.weft.core.WeftException} from {@link #apply} the
     * document is unchanged: every operator is checked against it before any is written.
     */
    static Update parse(JsonNode spec, QueryLimits limits) {
        return parse(spec, limits, List.of(), null);
    }

    /**
     * {@link #parse(JsonNode, QueryLimits)} for positional paths: {@code query} (filter specs,
     * ANDed) is what {@code a.$} refers to, and must match a document for it to be updated
     * through {@code $}; {@code arrayFilters} (a JSON array, or null) holds the filters of
     * {@code a.$[id]}.
     */
    static Update parse(JsonNode spec, QueryLimits limits, List<JsonNode> query, JsonNode arrayFilters) {
        return UpdateParser.parse(spec, limits, query, arrayFilters);
    }

    /**
     * The document paths the update's array filters read, array positions dropped: what a
     * writer who may not see them may not use.
     */
    default Set<String> probedPaths() {
        return Set.of();
    }
}
