package dev.weft.store;

import dev.weft.query.UpdateDescription;
import tools.jackson.databind.JsonNode;

/**
 * One committed change to one document, as a store reports it to its {@link CommitListener}s
 * right after the transaction commits, in commit order. The seam change streams build on.
 *
 * @param ns                the collection
 * @param operation         what happened to the document
 * @param documentKey       the document's {@code _id}
 * @param fullDocument      the document's stored bytes after the change; null for a delete
 * @param updateDescription for {@link Operation#UPDATE}: fields set and removed; else null
 */
public record ChangeEvent(Namespace ns, Operation operation, JsonNode documentKey, byte[] fullDocument,
                          UpdateDescription updateDescription) {
    /** MongoDB's {@code operationType} values for document changes. */
    public enum Operation { INSERT, REPLACE, UPDATE, DELETE }
}
