package dev.weft.query;

import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** What an update changed, in MongoDB change-event form: dotted paths set, and paths removed. */
public record UpdateDescription(ObjectNode updatedFields, List<String> removedFields) {}
