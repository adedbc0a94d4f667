package dev.weft.query;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A compiled {@code keys} projection: inclusion or exclusion, dotted paths, MongoDB's _id rules.
 * The result may share unchanged subtrees with the input document: treat both as read-only.
 */
public interface Projection {
    ObjectNode apply(JsonNode document);

    /** Compiles a projection; 400 for mixed inclusion and exclusion, path collisions, operators. */
    static Projection parse(JsonNode spec) {
        return ProjectionTree.parse(spec);
    }
}
