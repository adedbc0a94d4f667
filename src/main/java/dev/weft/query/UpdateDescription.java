package dev.weft.query;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** What an update changed, in MongoDB change-event form: dotted paths set, and paths removed. */
public record UpdateDescription(ObjectNode updatedFields, List<String> removedFields) {

    /** {@code {updatedFields, removedFields}}, as event logs store it. */
    public ObjectNode toNode() {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        node.set("updatedFields", updatedFields == null ? JsonNodeFactory.instance.objectNode() : updatedFields);
        var removed = node.putArray("removedFields");
        if (removedFields != null) {
            removedFields.forEach(removed::add);
        }
        return node;
    }

    /** The inverse of {@link #toNode}. */
    public static UpdateDescription fromNode(JsonNode node) {
        List<String> removed = new ArrayList<>();
        node.get("removedFields").forEach(f -> removed.add(f.asString()));
        return new UpdateDescription((ObjectNode) node.get("updatedFields"), removed);
    }
}
