package dev.weft.store.txn;

import dev.weft.core.Json;
import dev.weft.store.ChangeEvent;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.Transaction;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Transactions for a store with a single writer (SQLite), which must not hold its writer across
 * HTTP requests: each transaction keeps its writes in memory ({@link OverlayTransaction}), reads
 * the store under them, and at commit hands every change to the writer as one batch that checks
 * each document is still as the transaction first read it.
 *
 * <p>First writer wins, as in MongoDB: a transaction that writes a document another open
 * transaction has written is aborted at once with a write conflict ({@link #claim}), so two
 * transactions never both believe they own a document.
 */
public final class Overlays {
    /** A document of a collection, by its encoded {@code _id}. */
    record DocKey(Namespace ns, ByteBuffer key) {
        static DocKey of(Namespace ns, byte[] key) {
            return new DocKey(ns, ByteBuffer.wrap(key));
        }
    }

    /** Applies a committing transaction's changes and logs its events in one store transaction, or nothing (409). */
    @FunctionalInterface
    public interface Applier {
        void apply(List<DocumentChange> changes, List<ChangeEvent> events);
    }

    final Store base;
    final Json json;
    final long queryTimeoutMs;
    final long maxBytes;
    final Applier applier;
    private final ConcurrentHashMap<DocKey, OverlayTransaction> claims = new ConcurrentHashMap<>();

    /**
     * @param base     the store read under the overlays
     * @param maxBytes {@code txn-max-bytes}: what one transaction's written documents may hold
     */
    public Overlays(Store base, Json json, long queryTimeoutMs, long maxBytes, Applier applier) {
        this.base = base;
        this.json = json;
        this.queryTimeoutMs = queryTimeoutMs;
        this.maxBytes = maxBytes;
        this.applier = applier;
    }

    public Transaction begin() {
        return new OverlayTransaction(this);
    }

    /** True when {@code by} now owns the document (or already did); false when another open transaction does. */
    boolean claim(DocKey key, OverlayTransaction by) {
        OverlayTransaction owner = claims.putIfAbsent(key, by);
        return owner == null || owner == by;
    }

    void release(DocKey key, OverlayTransaction by) {
        claims.remove(key, by);
    }

    /** Documents claimed by open transactions (for tests). */
    int claimed() {
        return claims.size();
    }
}
