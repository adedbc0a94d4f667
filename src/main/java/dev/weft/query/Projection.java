package dev.weft.query;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A compiled {@code keys} projection: inclusion or exclusion, dotted paths, MongoDB's _id rules.
 * The result may share unchanged subtrees with the input document: treat both as read-only.
 */
public interface Projection {
    ObjectNode apply(JsonNode document);

    /**
     * True when every value a filter or sort on {@code path} could read survives this
     * projection: the path is inside what it keeps, not an ancestor of a dropped field. Array
     * positions in {@code path} are skipped (projection paths name fields only). Used to refuse
     * queries that would probe fields the reader may not see. The empty path is the whole
     * document, shown only by a projection that drops nothing.
     */
    default boolean shows(String path) {
        return true;
    }

    /** Compiles a projection; 400 for mixed inclusion and exclusion, path collisions, operators. */
    static Projection parse(JsonNode spec) {
        return ProjectionTree.parse(spec);
    }
}
