package dev.weft.store;

import dev.weft.query.UpdateDescription;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/**
 * One committed change to one document, or the drop of a collection, as a store reports it to its {@link CommitListener}s
 * right after the transaction commits, in commit order, and as its {@link EventLog} hands it back
 * later. The seam change streams build on.
 *
 * <p>{@code seq} orders events: it increases strictly from one event to the next in commit order
 * and is never reused, so it is the resume position of a change stream. A store that keeps no
 * log (and an event not yet logged) has {@code seq} 0.
 *
 * @param ns                the collection
 * @param operation         what happened to the document
 * @param documentKey       the document's {@code _id}; JSON null for a drop
 * @param fullDocument      the document's stored bytes after the change; null for a delete
 * @param updateDescription for {@link Operation#UPDATE}: fields set and removed; else null
 * @param previousDocument  the document's stored bytes before the change; null for an insert
 * @param seq               the event's position in the store's event log
 * @param wallTime          when the change was committed, epoch milliseconds
 */
public record ChangeEvent(Namespace ns, Operation operation, JsonNode documentKey, byte[] fullDocument,
                          UpdateDescription updateDescription, byte[] previousDocument, long seq, long wallTime) {
    /**
     * MongoDB's {@code operationType} values for document changes, and {@code DROP}: the
     * collection was dropped (by itself or with its database). Logs store the ordinal: add at the end.
     */
    public enum Operation { INSERT, REPLACE, UPDATE, DELETE, DROP }

    /** An event not yet given its log position. */
    public ChangeEvent(Namespace ns, Operation operation, JsonNode documentKey, byte[] fullDocument,
                       UpdateDescription updateDescription, byte[] previousDocument) {
        this(ns, operation, documentKey, fullDocument, updateDescription, previousDocument, 0, 0);
    }

    /** The drop of collection {@code ns}, not yet given its log position. */
    public static ChangeEvent dropped(Namespace ns) {
        return new ChangeEvent(ns, Operation.DROP, NullNode.getInstance(), null, null, null);
    }

    /** The same event at its log position. */
    public ChangeEvent at(long seq, long wallTime) {
        return new ChangeEvent(ns, operation, documentKey, fullDocument, updateDescription, previousDocument, seq, wallTime);
    }
}
