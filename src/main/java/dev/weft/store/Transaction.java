package dev.weft.store;

import dev.weft.query.Filter;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * One open multi-document transaction of a store ({@link Store#begin}): its reads
 * see its own writes, and nobody else sees them before {@link #commit}. Its writes follow the
 * same rules as the store's ({@link AbstractDocumentWrites}); its change events
 * reach the event log at commit only, all of them as one commit.
 *
 * <p>Used by one request at a time (the {@link dev.weft.store.txn.Sessions} registry serialises them). A write that
 * meets another transaction's write of the same document ends this transaction (aborted) and
 * throws {@link dev.weft.store.txn.TxnErrors#writeConflict()}; so does a commit that finds a document it wrote
 * changed meanwhile. After {@link #commit} or {@link #abort} (or such a conflict) {@link #open}
 * is false and every resource it held (a connection, locks, memory) is released.
 */
public interface Transaction {
    Optional<StoredDocument> get(Namespace ns, JsonNode id);

    void find(Namespace ns, FindQuery query, Consumer<StoredDocument> sink);

    long count(Namespace ns, Filter filter);

    /** Each op applied in the transaction, or refused alone (its result says why) leaving no trace. */
    List<WriteResult> writeAll(List<WriteOp> ops);

    /** Makes every write durable and visible at once, or none (409 on a write conflict). */
    void commit();

    /** Discards every write; does nothing when already ended. */
    void abort();

    boolean open();

    /** What a transaction's {@code events} hold in memory until its commit: what {@code txn-max-bytes} bounds. */
    static long bytesHeld(List<ChangeEvent> events) {
        long n = 0;
        for (ChangeEvent e : events) {
            n += (e.fullDocument() == null ? 0 : e.fullDocument().length)
                    + (e.previousDocument() == null ? 0 : e.previousDocument().length);
        }
        return n;
    }
}
