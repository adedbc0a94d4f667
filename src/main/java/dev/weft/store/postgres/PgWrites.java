package dev.weft.store.postgres;

import dev.weft.core.Durability;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.DuplicateKey;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.sql.SqlEngine;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import javax.sql.DataSource;
import tools.jackson.databind.JsonNode;

/**
 * Document writes as PostgreSQL transactions: each call one transaction on a pooled connection,
 * concurrently with every other node's, the rows written by the {@link SqlEngine}.
 *
 * <p>Round trips: a lone op holds back every statement whose answer it does not wait for and
 * sends them with COMMIT ({@link PgPipeline}): an insert (one document or an ndjson chunk) is one
 * round trip; a replace, update or delete one when this node knows the document's stored bytes
 * ({@link KnownDocuments}: it wrote or read it last; the burst checks them under the row lock
 * first), else two (the read of the locked document, then its rows, its events, the catalog
 * check and COMMIT). A write whose assumption was wrong, or that an assumed document made it
 * refuse, is run again reading the document, so every answer is the one the stored document
 * gives. Several replaces, updates and deletes (a JSON array of documents with {@code wm}) are
 * two round trips: one statement reads and locks all their documents, then every op's rows
 * with COMMIT; if any op fails (its error must be its own, with the others kept) the batch is
 * run again with each op in a savepoint, statement by statement, as several inserts always are
 * (they come only after an all-in-one insert that failed). A bulk update or delete by filter
 * reads its matching documents, then locks and reads them 500 at a time, then sends its rows
 * with COMMIT.
 *
 * <p>Catalog changes: a write takes no lock on the catalog. It checks, as the last statement
 * before COMMIT, that each collection's {@code gen} is still the one of the catalog it planned
 * with; by then it holds the ROW EXCLUSIVE lock of the collection's table (its own rows took it),
 * which an index change waits for ({@link PostgresStore}: {@code LOCK TABLE d<id> IN SHARE MODE}
 * before it bumps {@code gen}). So either the index change committed before the check (the check
 * fails, the write is retried with the new indexes) or it waits for the write's COMMIT and then
 * builds the index from rows that include the write's. No write maintains a stale set of
 * indexes, on any node.
 *
 * <p>Group commit: a single-document write with hard durability first goes to a
 * {@link PgGroupWriter}, which commits it with others in one transaction; what the group could not
 * settle (any failure of the write itself) comes back here and runs as described above.
 *
 * <p>Retries, from the start: when the catalog changed underneath, on a deadlock or a
 * serialization failure, and when an upsert lost a race to insert the same _id. An insert whose
 * document the database refused as a duplicate (a count checked by {@link #EXPECT}) is run again
 * statement by statement, for the exact answer the engine gives.
 */
final class PgWrites {
    private static final int ATTEMPTS = 8;
    /** The function, installed with the schema, that fails a transaction whose row count is not the expected one. */
    static final String EXPECT = "weft_expect_v1";
    /** Its SQLSTATE. */
    static final String EXPECTED = "WF001";

    private final DataSource pool;
    private final PgCatalog catalog;
    private final SqlEngine engine;
    private final PgEventLog events;
    private final WriteNotifier notifier;
    private final Consumer<Namespace> bump;
    private final KnownDocuments known;

    /** The writers grouping single-document writes (null: every write is a transaction of its own). */
    private final PgGroupWriter group;

    /**
     * {@code writers}, {@code queueLength}, {@code groupMax}: {@link PgGroupWriter}'s (no writer: no
     * group commit), its connections from {@code groupPool}.
     */
    PgWrites(DataSource pool, PgCatalog catalog, SqlEngine engine, PgEventLog events, WriteNotifier notifier,
             Consumer<Namespace> bump, KnownDocuments known, DataSource groupPool, int writers, int queueLength,
             int groupMax) {
        this.pool = pool;
        this.known = known;
        this.catalog = catalog;
        this.engine = engine;
        this.events = events;
        this.notifier = notifier;
        this.bump = bump;
        this.group = writers == 0 ? null : new PgGroupWriter(groupPool, catalog, engine, known, this, writers, queueLength, groupMax);
    }

    /** The group writers, if any (for tests and close). */
    PgGroupWriter group() {
        return group;
    }

    /** Installs {@link #EXPECT}, inside the store's schema transaction (its name carries its version). */
    static void createSchema(Statement s) throws SQLException {
        s.execute("CREATE OR REPLACE FUNCTION " + EXPECT + "(got bigint, want bigint, what text) RETURNS bigint"
                + " LANGUAGE plpgsql AS $$ BEGIN IF got <> want THEN RAISE EXCEPTION USING ERRCODE = '" + EXPECTED
                + "', MESSAGE = what || ': ' || got || ' of ' || want; END IF; RETURN got; END $$");
    }

    /**
     * All ops in one transaction. A {@link Durability#SOFT} transaction runs with
     * {@code synchronous_commit = off}: its commit returns before its WAL is flushed.
     */
    List<WriteResult> writeAll(List<WriteOp> ops, Durability durability) {
        if (group != null && ops.size() == 1 && durability == Durability.HARD && PgGroupWriter.groupable(ops.getFirst())) {
            WriteResult grouped = group.submit(ops.getFirst());
            if (grouped != null) {
                return List.of(grouped);
            }
        }
        boolean hold = ops.size() == 1 || ops.stream().allMatch(PgWrites::assumable);
        boolean assume = ops.size() == 1 && assumable(ops.getFirst());
        for (int attempt = 0; ; attempt++) {
            // asks the snapshot it will plan with: a reload publishes the catalog before it
            catalog.fresh(() -> ops.stream().allMatch(op -> catalog.planned().catalog().colls().containsKey(op.ns())));
            PgCatalog.Planned plan = catalog.planned();
            Catalog cat = plan.catalog();
            for (WriteOp op : ops) {
                PostgresStore.requireCollection(cat, op.ns());
            }
            Set<Catalog.Coll> touched = new LinkedHashSet<>();
            List<ChangeEvent> changes = new ArrayList<>();
            try (PgPipeline sql = new PgPipeline(pool.getConnection(), hold, assume && hold ? known : null)) {
                sql.connection().setAutoCommit(false);
                try {
                    if (durability == Durability.SOFT) {
                        sql.send("SET LOCAL synchronous_commit = off", (ps, i) -> i);
                    }
                    List<WriteResult> results = run(sql, cat, ops, touched, changes);
                    if (results == null) {
                        sql.rollback();
                        hold = false; // an op of the batch failed: each in a savepoint, for its own answer
                        continue;
                    }
                    if (touched.isEmpty()) {
                        sql.rollback();
                    } else {
                        commit(sql, plan, touched, changes);
                    }
                    if (attempt < ATTEMPTS && lostUpsertRace(ops, results)) {
                        continue;
                    }
                    if (sql.assumed() && !results.getFirst().ok()) {
                        assume = false; // refused by what it assumed: the answer must be the stored document's
                        continue;
                    }
                    return results;
                } catch (SQLException | RuntimeException e) {
                    PgFailures.rollbackQuietly(sql.connection(), e);
                    throw e;
                }
            } catch (SQLException e) {
                String state = e.getSQLState();
                if (EXPECTED.equals(state) && attempt < ATTEMPTS) {
                    String message = String.valueOf(e.getMessage());
                    if (message.contains("catalog:")) {
                        catalog.reload();
                    } else if (message.contains("version:")) {
                        assume = false;
                    } else {
                        hold = false;
                    }
                    continue;
                }
                boolean stale = engine.dialect().isMissingTable(e);
                if (attempt < ATTEMPTS && ("40001".equals(state) || "40P01".equals(state) || stale)) {
                    if (stale) {
                        catalog.reload();
                    }
                    continue;
                }
                if (engine.dialect().isUniqueViolation(e) && ops.size() > 1 && hold && attempt < ATTEMPTS) {
                    hold = false;
                    continue;
                }
                if (engine.dialect().isUniqueViolation(e) && ops.size() == 1) {
                    if (attempt < ATTEMPTS && upsert(ops.getFirst()) && e.getMessage().contains("_pkey")) {
                        continue;
                    }
                    return List.of(WriteResult.failed(WriteResult.Outcome.CONFLICT,
                            SqlEngine.uniqueMessage(e, cat.colls().get(ops.getFirst().ns()))));
                }
                throw PgFailures.unavailable("write failed", e);
            }
        }
    }

    /**
     * Logs the events, checks the catalog and commits, in one burst; then tells this node's
     * readers and the other nodes. Nothing here runs before the commit succeeded.
     */
    void commit(PgPipeline sql, PgCatalog.Planned plan, Set<Catalog.Coll> touched, List<ChangeEvent> changes)
            throws SQLException {
        events.append(sql, changes);
        checkCatalog(sql, plan, touched);
        sql.commit();
        remember(plan.catalog(), changes);
        events.wake();
        notifier.written(touched.stream().map(Catalog.Coll::id).toList());
        touched.forEach(coll -> bump.accept(coll.ns()));
    }

    /**
     * Whether a transaction's failure left nothing committed and a new attempt may succeed: a
     * failed check of {@link #EXPECT} (raised before COMMIT, so the COMMIT of its burst never
     * ran), a serialization failure, a deadlock, a table dropped under a stale catalog.
     */
    boolean retryable(SQLException e) {
        String state = e.getSQLState();
        return EXPECTED.equals(state) || "40001".equals(state) || "40P01".equals(state) || engine.dialect().isMissingTable(e);
    }

    /**
     * The ops' results; null when a batch held back in one burst had an op fail (nothing is sent
     * yet: the caller rolls back and runs the ops again each in a savepoint).
     */
    private List<WriteResult> run(PgPipeline sql, Catalog cat, List<WriteOp> ops, Set<Catalog.Coll> touched,
                                  List<ChangeEvent> changes) throws SQLException {
        boolean batch = ops.size() > 1 && sql.holding();
        boolean savepoints = ops.size() > 1 && !batch;
        if (batch) {
            lockDocuments(sql, cat, ops, (coll, key) -> true);
        }
        List<WriteResult> results = new ArrayList<>(ops.size());
        for (WriteOp op : ops) {
            Catalog.Coll coll = cat.colls().get(op.ns());
            int mark = changes.size();
            WriteResult result = engine.apply(sql, coll, op, changes, savepoints);
            if (savepoints) {
                sql.forgetLocked(); // the op's savepoint may have been undone, and its locks with it
            }
            if (result.ok()) {
                touched.add(coll);
            } else if (batch) {
                return null;
            } else if (!savepoints) {
                changes.subList(mark, changes.size()).clear();
                sql.rollback();
            }
            results.add(result);
        }
        return results;
    }

    /**
     * Reads and locks, one statement per collection, the documents that single-document ops will
     * load, those {@code wanted} (by collection and encoded {@code _id}) only. Every node locks
     * rows in one order (table by table in name order, each in key order), so two such
     * transactions of different nodes wait for each other at most one way, never in a deadlock.
     */
    static void lockDocuments(PgPipeline sql, Catalog cat, List<WriteOp> ops, BiPredicate<Catalog.Coll, byte[]> wanted)
            throws SQLException {
        Map<Catalog.Coll, List<byte[]>> ids = new TreeMap<>(Comparator.comparing(Catalog.Coll::table));
        for (WriteOp op : ops) {
            Catalog.Coll coll = cat.colls().get(op.ns());
            JsonNode id = loadedId(op);
            if (coll != null && id != null) {
                byte[] key = AbstractDocumentWrites.key(id);
                if (wanted.test(coll, key)) {
                    ids.computeIfAbsent(coll, c -> new ArrayList<>()).add(key);
                }
            }
        }
        for (Map.Entry<Catalog.Coll, List<byte[]>> e : ids.entrySet()) {
            sql.lockAll(e.getKey().table(), e.getValue());
        }
    }

    /**
     * Fails the transaction ({@link #EXPECTED}, "catalog") unless every written collection still
     * has the {@code gen} this node planned with. Runs after the write's rows, under the table
     * locks they took (see the class comment).
     */
    private static void checkCatalog(PgPipeline sql, PgCatalog.Planned plan, Set<Catalog.Coll> touched) throws SQLException {
        Long[] ids = touched.stream().map(Catalog.Coll::id).toArray(Long[]::new);
        Long[] gens = touched.stream().map(c -> plan.gens().getOrDefault(c.id(), -1L)).toArray(Long[]::new);
        sql.send("SELECT " + EXPECT + "(count(*), ?, 'catalog') FROM weft_colls c, unnest(?::bigint[], ?::bigint[]) AS p(id, gen)"
                + " WHERE c.id = p.id AND c.gen = p.gen", (ps, i) -> {
                    ps.setLong(i, ids.length);
                    ps.setArray(i + 1, ps.getConnection().createArrayOf("bigint", ids));
                    ps.setArray(i + 2, ps.getConnection().createArrayOf("bigint", gens));
                    return i + 3;
                });
    }

    /** The {@code _id} of the document a single-document write loads (replace, update, delete), else null. */
    static JsonNode loadedId(WriteOp op) {
        return switch (op) {
            case WriteOp.Replace r -> r.document().get("_id");
            case WriteOp.UpdateOne u -> u.id();
            case WriteOp.DeleteOne d -> d.id();
            default -> null;
        };
    }

    /** A single-document write that needs its document's stored state: it may assume it. */
    private static boolean assumable(WriteOp op) {
        return op instanceof WriteOp.Replace || op instanceof WriteOp.UpdateOne || op instanceof WriteOp.DeleteOne;
    }

    /** What this node now knows is stored: the documents its write left (none for a delete). */
    private void remember(Catalog cat, List<ChangeEvent> changes) {
        for (ChangeEvent e : changes) {
            Catalog.Coll coll = cat.colls().get(e.ns());
            if (coll != null) {
                known.put(coll.table(), AbstractDocumentWrites.key(e.documentKey()), e.fullDocument());
            }
        }
    }

    private static boolean upsert(WriteOp op) {
        return (op instanceof WriteOp.Replace r && r.mode() == WriteOp.WriteMode.UPSERT)
                || (op instanceof WriteOp.UpdateOne u && u.mode() == WriteOp.WriteMode.UPSERT);
    }

    /** A single upsert that found no document, then met one inserted meanwhile: run it again. */
    private static boolean lostUpsertRace(List<WriteOp> ops, List<WriteResult> results) {
        return ops.size() == 1 && upsert(ops.getFirst())
                && results.getFirst().outcome() == WriteResult.Outcome.CONFLICT
                && DuplicateKey.isId(results.getFirst().message().orElse(""));
    }
}
