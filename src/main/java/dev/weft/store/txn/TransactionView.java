package dev.weft.store.txn;

import dev.weft.core.Durability;
import dev.weft.core.ReadMode;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.EventLog;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Metadata;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.Transaction;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The store as one request inside a transaction sees it: documents are read and written through
 * the {@link Transaction}, everything else (catalog, indexes, versions, the event log) is the
 * store's. The HTTP layer hands this to its unchanged read and write paths, so a transactional
 * request is checked by the same access rules as any other. A transaction's writes are as durable
 * as its commit ({@code durability} and {@code readMode} do not apply inside it), and catalog
 * changes are refused: they are not transactional.
 */
public final class TransactionView implements Store {
    private final Store store;
    private final Transaction txn;

    public TransactionView(Store store, Transaction txn) {
        this.store = store;
        this.txn = txn;
    }

    private static WeftException notInTransaction() {
        return WeftException.badRequest("databases, collections and indexes cannot be changed inside a transaction:"
                + " send the request without sid and txn");
    }

    @Override
    public List<String> databases() {
        return store.databases();
    }

    @Override
    public Optional<Metadata> database(String db) {
        return store.database(db);
    }

    @Override
    public boolean putDatabase(String db, ObjectNode properties, Optional<String> ifMatch) {
        throw notInTransaction();
    }

    @Override
    public void dropDatabase(String db, Optional<String> ifMatch) {
        throw notInTransaction();
    }

    @Override
    public List<String> collections(String db) {
        return store.collections(db);
    }

    @Override
    public Optional<Metadata> collection(Namespace ns) {
        return store.collection(ns);
    }

    @Override
    public boolean putCollection(Namespace ns, ObjectNode properties, Optional<String> ifMatch) {
        throw notInTransaction();
    }

    @Override
    public void dropCollection(Namespace ns, Optional<String> ifMatch) {
        throw notInTransaction();
    }

    @Override
    public List<IndexSpec> indexes(Namespace ns) {
        return store.indexes(ns);
    }

    @Override
    public void createIndex(Namespace ns, IndexSpec spec) {
        throw notInTransaction();
    }

    @Override
    public void dropIndex(Namespace ns, String name) {
        throw notInTransaction();
    }

    @Override
    public Optional<StoredDocument> get(Namespace ns, JsonNode id, ReadMode mode) {
        return txn.get(ns, id);
    }

    @Override
    public void find(Namespace ns, FindQuery query, ReadMode mode, Consumer<StoredDocument> sink) {
        txn.find(ns, query, sink);
    }

    @Override
    public long count(Namespace ns, Filter filter, ReadMode mode) {
        return txn.count(ns, filter);
    }

    @Override
    public long version(Namespace ns) {
        return store.version(ns);
    }

    @Override
    public List<WriteResult> writeAll(List<WriteOp> ops, Durability durability) {
        return ops.isEmpty() ? List.of() : txn.writeAll(ops);
    }

    @Override
    public WriteOp prepare(WriteOp op) {
        return store.prepare(op);
    }

    @Override
    public EventLog eventLog() {
        return store.eventLog();
    }

    /** The store outlives every transaction: closing a view closes nothing. */
    @Override
    public void close() {}
}
