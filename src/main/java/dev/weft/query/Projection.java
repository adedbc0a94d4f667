package dev.weft.query;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** A compiled {@code keys} projection: inclusion or exclusion, dotted paths, MongoDB's _id rules. */
public interface Projection {
    ObjectNode apply(JsonNode document);

    static Projection parse(JsonNode spec) {
        throw new UnsupportedOperationException("stub");
    }
}
