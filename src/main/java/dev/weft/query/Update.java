package dev.weft.query;

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
        return UpdateParser.parse(spec, limits);
    }
}
