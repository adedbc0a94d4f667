package dev.weft.query;

import java.util.List;
import java.util.Set;
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

    /**
     * The array paths whose elements the projection tests ({@code $elemMatch}): what it shows
     * depends on values there, so a reader who may not see them may not use it.
     */
    default Set<String> probedPaths() {
        return Set.of();
    }

    /** Compiles a projection without a query: a positional {@code a.$} is refused (400). */
    static Projection parse(JsonNode spec) {
        return parse(spec, List.of());
    }

    /**
     * Compiles a projection; 400 for mixed inclusion and exclusion, path collisions, unknown
     * operators. {@code query} (filter specs, ANDed) is what a positional {@code a.$} refers to.
     */
    static Projection parse(JsonNode spec, List<JsonNode> query) {
        return ProjectionTree.parse(spec, query);
    }
}
