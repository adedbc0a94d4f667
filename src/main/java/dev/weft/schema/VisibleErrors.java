package dev.weft.schema;

import com.networknt.schema.Error;
import com.networknt.schema.path.NodePath;
import java.util.List;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A schema refusal's messages as the writer may see them. The document checked is the whole
 * stored one (after a PATCH it holds fields the writer's rule hides), and a validator's message
 * names the failing value's location and often its type or value; so an error located at a
 * field the writer cannot read says only that a hidden field fails the schema. The view is the
 * writer's read policy applied to a copy of the document, the same one its reads get.
 */
final class VisibleErrors {
    static final String HIDDEN = "a field hidden from you does not meet the schema";

    private VisibleErrors() {}

    static List<String> of(List<Error> errors, ObjectNode document, UnaryOperator<ObjectNode> readable) {
        ObjectNode view = readable.apply(document.deepCopy());
        return errors.stream().map(e -> hidden(e.getInstanceLocation(), document, view) ? HIDDEN : e.toString())
                .distinct().toList();
    }

    /** True when the location exists in the document but not in the writer's view of it. */
    static boolean hidden(NodePath location, JsonNode document, JsonNode view) {
        JsonNode stored = document;
        JsonNode seen = view;
        for (int i = 0; i < location.getNameCount(); i++) {
            Object step = location.getElement(i);
            stored = step instanceof Integer index ? stored.path(index) : stored.path(String.valueOf(step));
            seen = step instanceof Integer index ? seen.path(index) : seen.path(String.valueOf(step));
            if (stored.isMissingNode()) {
                return false;
            }
            if (seen.isMissingNode()) {
                return true;
            }
        }
        return false;
    }
}
