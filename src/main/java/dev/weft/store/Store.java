package dev.weft.store;

import dev.weft.core.Durability;
import dev.weft.core.ReadMode;
import dev.weft.query.Filter;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where documents live. Implementations: embedded SQLite (the default,
 * {@link dev.weft.store.sqlite.SqliteStore}) and PostgreSQL, several Weft nodes over one
 * database ({@link dev.weft.store.postgres.PostgresStore}); both run their queries and writes
 * on one SQL engine ({@link dev.weft.store.sql.SqlEngine}), and one contract test suite
 * (StoreContract) holds them to the same behaviour.
 *
 * <p>Invariants every implementation keeps: a write returns only after its transaction is
 * durable as its {@link Durability} asks (a hard write survives kill -9); writes of one document
 * are serialised (SQLite: its single writer; PostgreSQL: row locks), and every commit's changes
 * reach the {@link EventLog} in commit order; reads see only committed data; every write sets a
 * new {@code _etag}; documents come back as the exact bytes stored. Names reaching a store are
 * already validated ({@link Namespace}). Client mistakes are thrown as
 * {@link dev.weft.core.WeftException}; a database that cannot be reached in time is a 503 of the
 * same kind.
 *
 * <p>Every read takes a {@link ReadMode} and every write a {@link Durability}; the short forms
 * read the primary and write hard. Internal readers that must see the latest state (users,
 * access rules, read-modify-write) use the short forms.
 */
public interface Store extends AutoCloseable {

    // --- catalog -------------------------------------------------------------------------

    List<String> databases();

    Optional<Metadata> database(String db);

    /** Creates or replaces a database's properties; true when it was created. */
    boolean putDatabase(String db, ObjectNode properties, Optional<String> ifMatch);

    /** Drops a database and all its collections (404 if missing, 412 on etag mismatch). */
    void dropDatabase(String db, Optional<String> ifMatch);

    List<String> collections(String db);

    Optional<Metadata> collection(Namespace ns);

    /** Creates or replaces a collection's properties (the database must exist); true when created. */
    boolean putCollection(Namespace ns, ObjectNode properties, Optional<String> ifMatch);

    void dropCollection(Namespace ns, Optional<String> ifMatch);

    // --- indexes -------------------------------------------------------------------------

    List<IndexSpec> indexes(Namespace ns);

    /** Builds the index over existing documents; 409 if a unique index finds duplicates. */
    void createIndex(Namespace ns, IndexSpec spec);

    void dropIndex(Namespace ns, String name);

    // --- reads ---------------------------------------------------------------------------

    Optional<StoredDocument> get(Namespace ns, JsonNode id, ReadMode mode);

    default Optional<StoredDocument> get(Namespace ns, JsonNode id) {
        return get(ns, id, ReadMode.SINGLE);
    }

    /** Matching documents in sort order, skip and limit applied, handed to {@code sink} one by one. */
    void find(Namespace ns, FindQuery query, ReadMode mode, Consumer<StoredDocument> sink);

    default void find(Namespace ns, FindQuery query, Consumer<StoredDocument> sink) {
        find(ns, query, ReadMode.SINGLE, sink);
    }

    long count(Namespace ns, Filter filter, ReadMode mode);

    /**
     * Whether a {@link #find} on {@code ns} may be answered without blocking ({@link MemoryOnly}):
     * the store holds the collection in memory. A find run under {@link MemoryOnly} on a store or
     * collection that cannot answer it so gives up before its first wait.
     */
    default boolean answersFromMemory(Namespace ns) {
        return false;
    }

    /**
     * Every document matching {@code filter}, in no particular order, read as up to {@code parts}
     * disjoint parts (each a set of _id ranges) that may run at once, each on its own thread: part
     * {@code i} hands its documents to {@code sinkOfPart.apply(i)} and to no other sink, so a caller keeps one
     * partial result per range (a {@code $group}'s accumulators) and merges them at the end.
     * Returns once every part is read. A store that cannot split (or a collection under
     * {@code scan-split-min-rows}) reads one part, on the calling thread.
     */
    default void scanParts(Namespace ns, Filter filter, ReadMode mode, int parts,
            IntFunction<Consumer<StoredDocument>> sinkOfPart) {
        find(ns, new FindQuery(filter, null, 0, Long.MAX_VALUE, Optional.empty()), mode, sinkOfPart.apply(0));
    }

    /**
     * {@link #scanParts} for a caller that reads only the top-level fields {@code names} of each
     * document (besides its filter's): a store that keeps document heads may hand it, instead of a
     * document, its head wherever that holds every field of those names the document has
     * ({@code dev.weft.query.DocumentHead}); others hand whole documents.
     */
    default void scanParts(Namespace ns, Filter filter, Set<String> names, ReadMode mode, int parts,
            IntFunction<Consumer<StoredDocument>> sinkOfPart) {
        scanParts(ns, filter, mode, parts, sinkOfPart);
    }

    default long count(Namespace ns, Filter filter) {
        return count(ns, filter, ReadMode.SINGLE);
    }

    /**
     * A number that changes whenever a write to the collection commits; caches of query results
     * key on it, so a result is never served after a write that could change it.
     */
    long version(Namespace ns);

    // --- writes --------------------------------------------------------------------------

    /** Runs one write and returns once it is committed as {@code durability} asks. */
    default WriteResult write(WriteOp op, Durability durability) {
        return writeAll(List.of(op), durability).getFirst();
    }

    default WriteResult write(WriteOp op) {
        return write(op, Durability.HARD);
    }

    /** Runs several writes in one transaction batch; each has its own result. */
    List<WriteResult> writeAll(List<WriteOp> ops, Durability durability);

    /**
     * {@code op} made ready to write, with the work that needs no transaction done now, on the
     * calling thread (an insert's {@code _id}, {@code _etag} and encoding: {@link
     * WriteOp.EncodedInsert}). A pipeline calls it while the store writes the previous batch;
     * writing an op not made ready is the same, only slower for a store with a single writer.
     */
    default WriteOp prepare(WriteOp op) {
        return op;
    }

    default List<WriteResult> writeAll(List<WriteOp> ops) {
        return writeAll(ops, Durability.HARD);
    }

    // --- transactions --------------------------------------------------------------------

    /**
     * Opens a multi-document transaction ({@link Transaction}): its reads see its writes, nobody
     * else does before its commit, and its events reach the {@link EventLog} at commit, as one
     * commit. A store without transactions answers 501.
     */
    default Transaction begin() {
        throw new dev.weft.core.WeftException(501, "this store does not support transactions");
    }

    // --- change events -------------------------------------------------------------------

    /** The log of committed changes change streams read (every store keeps one). */
    EventLog eventLog();

    @Override
    void close();
}
