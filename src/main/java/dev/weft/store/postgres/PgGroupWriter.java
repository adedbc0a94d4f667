package dev.weft.store.postgres;

import dev.weft.core.WeftException;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.sql.SqlEngine;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import tools.jackson.databind.JsonNode;

/**
 * Group commit on PostgreSQL (docs/decisions/0006-postgresql-group-commit.md): concurrent
 * single-document writes of different requests commit together, in one transaction, one COMMIT
 * and one WAL flush, on one of a few writer threads, each with its own connection per group.
 *
 * <p>A writer takes the first waiting write and whatever else waits, up to {@code groupMax}, and
 * first tries the group as <em>one burst</em>: every write's statements held back as a lone
 * write's are ({@link PgPipeline}, assumed documents included), then the group's events, the
 * catalog check and COMMIT ({@link PgWrites#commit}), sent together, the writes' checks of assumed
 * documents and their updates each one statement for the whole group
 * ({@link PgPipeline#shareStatements}, so the burst's text repeats and is prepared on the server):
 * one round trip for a group of writes whose documents the node knows; if it does not know one
 * of them, every document of the group is first read and locked in one statement per collection
 * (two round trips in all; never some read and the others checked, so that every node locks rows
 * in one order: no deadlock between nodes), and a write of a document
 * an earlier write of the group wrote takes that write's bytes (the row is this transaction's). A write that answers anything but success before anything of it was sent
 * (a refused check on an assumed document, a 404, 412) is dropped from the burst and handed back.
 * If the burst fails on a stale assumed document (another node wrote it), the group is rolled
 * back, which releases its row locks, and run again reading every document first (nothing is
 * assumed, so no check can fail); that read also marks the stale documents shared
 * ({@link KnownDocuments#readLocked}), so the node's next groups read them instead of guessing.
 * If a statement fails otherwise (a duplicate key: the transaction
 * aborts there, and the burst's COMMIT never runs), or a write that read its document must be
 * undone, the group is rolled back and run again the careful way: every document read and locked
 * first, then a savepoint before each write,
 * and each write's statements followed by {@code RELEASE SAVEPOINT w; SAVEPOINT w} in a round
 * trip of its own. There a write that fails or answers anything but success is rolled back to
 * its savepoint alone and handed back to its request, which runs it in a transaction of its own
 * ({@link PgWrites}) for the exact answer a lone write gives; the others stay in the group. Only
 * after the COMMIT returned is any write of the group acknowledged. A failure that leaves nothing
 * committed and may pass on a new attempt (the catalog changed, a deadlock) hands every write
 * back to run alone; a failure after which the COMMIT may have run (a connection lost) or that
 * an operator caused (a cancel, a terminated backend) is a 503 for every write of the group, none
 * acknowledged.
 *
 * <p>A write that finds no other waiting is a group of one (one burst, one round trip, as alone):
 * were it run on its request's thread, it could race the writer's next group for the known bytes
 * of a hot document, and a stale guess fails a whole burst. A group of one whose burst fails is
 * handed back (a savepoint would buy nothing).
 *
 * <p>Writes of one document always go to the same writer (by a hash of the collection and key),
 * so two groups never wait for each other's row of a document: no deadlock between writers of
 * one node.
 */
final class PgGroupWriter implements AutoCloseable {
    private static final String SAVEPOINT = "w";

    /** Called in the group's transaction just before its commit burst (tests kill the connection here). */
    interface BeforeCommit {
        void run(Connection connection, int writes) throws SQLException;
    }

    /** {@code done} completes with null: the write runs in a transaction of its own. */
    private record Task(WriteOp op, CompletableFuture<WriteResult> done) {}

    private final DataSource pool;
    private final PgCatalog catalog;
    private final SqlEngine engine;
    private final KnownDocuments known;
    private final PgWrites writes;
    private final int groupMax;
    private final List<BlockingQueue<Task>> queues = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong committedWrites = new AtomicLong();
    private final AtomicLong rolledBackWrites = new AtomicLong();
    private final AtomicLong failedBursts = new AtomicLong();
    private volatile String lastBurstFailure = "";
    private volatile BeforeCommit beforeCommit = (c, n) -> {};
    private final GroupGather gather = new GroupGather();
    private volatile boolean closing;

    PgGroupWriter(DataSource pool, PgCatalog catalog, SqlEngine engine, KnownDocuments known, PgWrites writes,
                  int writers, int queueLength, int groupMax) {
        this.pool = pool;
        this.catalog = catalog;
        this.engine = engine;
        this.known = known;
        this.writes = writes;
        this.groupMax = groupMax;
        for (int i = 0; i < writers; i++) {
            BlockingQueue<Task> queue = new ArrayBlockingQueue<>(Math.max(1, queueLength / writers));
            queues.add(queue);
            threads.add(Thread.ofPlatform().name("weft-pg-group-" + i).daemon(true).start(() -> loop(queue)));
        }
    }

    /** A single-document write: what a group takes. */
    static boolean groupable(WriteOp op) {
        return switch (op) {
            case WriteOp.Replace r -> true;
            case WriteOp.UpdateOne u -> true;
            case WriteOp.DeleteOne d -> true;
            case WriteOp.EncodedInsert e -> e.documents().size() == 1;
            case WriteOp.InsertMany m -> m.documents().size() == 1;
            default -> false;
        };
    }

    /** The write's result once its group committed; null when it must run in a transaction of its own. */
    WriteResult submit(WriteOp op) {
        if (closing) {
            throw new WeftException(503, "the store is closing");
        }
        Task task = new Task(op, new CompletableFuture<>());
        if (!queues.get(writerOf(op)).offer(task)) {
            throw new WeftException(503, "write queue full (limit pg-group-queue-length)");
        }
        try {
            return task.done().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private int writerOf(WriteOp op) {
        JsonNode id = switch (op) {
            case WriteOp.EncodedInsert e -> e.documents().getFirst().get("_id");
            case WriteOp.InsertMany m -> m.documents().getFirst().get("_id");
            default -> PgWrites.loadedId(op);
        };
        int hash = op.ns().hashCode() * 31 + (id == null ? 0 : Arrays.hashCode(AbstractDocumentWrites.key(id)));
        return Math.floorMod(hash, queues.size());
    }

    /** Transactions committed by groups so far, and the writes they committed (for tests). */
    long commits() {
        return commits.get();
    }

    long committedWrites() {
        return committedWrites.get();
    }

    /** Writes that failed inside a group, undone to their savepoint and handed back (for tests). */
    long rolledBackWrites() {
        return rolledBackWrites.get();
    }

    /** One-burst attempts that had to run again with savepoints, and the last reason (for tests and probes). */
    long failedBursts() {
        return failedBursts.get();
    }

    String lastBurstFailure() {
        return lastBurstFailure;
    }

    void beforeCommit(BeforeCommit hook) {
        beforeCommit = hook;
    }

    private void loop(BlockingQueue<Task> queue) {
        GroupLoop.serve(queue, () -> closing, gather, groupMax, this::run, PgGroupWriter::fail, "write");
    }

    /** Makes the next group wait for {@code writes} writes, at most {@code maxMs} (for tests). */
    void gather(int writes, long maxMs) {
        gather.gather(writes, maxMs);
    }

    /** A write of a group in one burst could not be undone alone: the group runs again, a savepoint per write. */
    private static final class SavepointsNeeded extends Exception {
        SavepointsNeeded() {
            super(null, null, false, false);
        }
    }

    /** How a group is tried: see the class comment. */
    private enum Mode {
        /** One burst, assuming the documents the node knows when it knows all of them, else reading all first. */
        BURST,
        /** Reading and locking every document first, assuming none: after a burst failed on a stale guess. */
        READ_ALL,
        /** A savepoint and a round trip per write, every document locked first: after a write of the group failed. */
        SAVEPOINTS
    }

    /** What became of an attempt that did not answer its writes. */
    private enum Retry { NONE, READ_ALL, SAVEPOINTS }

    private void run(List<Task> group) {
        Retry retry = attempt(group, Mode.BURST);
        if (retry == Retry.READ_ALL) {
            retry = attempt(group, Mode.READ_ALL);
        }
        if (retry == Retry.NONE) {
            return;
        }
        if (group.size() == 1) {
            group.getFirst().done().complete(null);
        } else {
            attempt(group, Mode.SAVEPOINTS);
        }
    }

    /**
     * Runs the group as {@code mode} says. {@link Retry#NONE} when every write was answered;
     * otherwise the attempt rolled back, nothing committed, nobody answered, and the group must
     * run again: reading its documents ({@link Retry#READ_ALL}, a guess of a document's bytes was
     * stale) or with savepoints ({@link Retry#SAVEPOINTS}, a write failed).
     */
    private Retry attempt(List<Task> group, Mode mode) {
        boolean savepoints = mode == Mode.SAVEPOINTS;
        catalog.fresh(() -> group.stream().allMatch(t -> catalog.planned().catalog().colls().containsKey(t.op().ns())));
        PgCatalog.Planned plan = catalog.planned();
        Catalog cat = plan.catalog();
        WriteResult[] results = new WriteResult[group.size()];
        Set<Catalog.Coll> touched = new LinkedHashSet<>();
        List<ChangeEvent> changes = new ArrayList<>();
        try (PgPipeline sql = new PgPipeline(pool.getConnection(), true, known)) {
            sql.connection().setAutoCommit(false);
            try {
                if (savepoints) {
                    lockDocuments(sql, cat, group, true); // before the savepoint: an undone write keeps them locked
                    sql.control("SAVEPOINT " + SAVEPOINT);
                } else {
                    sql.shareStatements();
                    lockDocuments(sql, cat, group, mode == Mode.READ_ALL || !allKnown(cat, group));
                }
                for (int i = 0; i < group.size(); i++) {
                    Catalog.Coll coll = cat.colls().get(group.get(i).op().ns());
                    WriteOp op = group.get(i).op();
                    results[i] = coll == null ? null : savepoints ? apply(sql, coll, op, changes) : hold(sql, coll, op, changes);
                    if (results[i] != null) {
                        touched.add(coll);
                    }
                }
                if (touched.isEmpty()) {
                    sql.rollback();
                } else {
                    beforeCommit.run(sql.connection(), group.size());
                    writes.commit(sql, plan, touched, changes);
                }
            } catch (SQLException | RuntimeException | SavepointsNeeded e) {
                PgFailures.rollbackQuietly(sql.connection(), e);
                if (!savepoints) {
                    sql.restoreTaken(); // the next attempt compares them with the stored bytes (KnownDocuments' shared marks)
                }
                throw e;
            }
        } catch (SavepointsNeeded e) {
            failedBursts.incrementAndGet();
            lastBurstFailure = "a write that read its document failed";
            return Retry.SAVEPOINTS;
        } catch (SQLException e) {
            if (!savepoints && answeredByTheServer(e)) { // so the COMMIT after it in its burst did not run
                failedBursts.incrementAndGet();
                lastBurstFailure = e.getSQLState() + " " + e.getMessage();
                if (String.valueOf(e.getMessage()).contains("catalog:")) {
                    catalog.reload();
                }
                return mode == Mode.BURST && stale(e) ? Retry.READ_ALL : Retry.SAVEPOINTS;
            }
            if (writes.retryable(e)) {
                if (String.valueOf(e.getMessage()).contains("catalog:")) {
                    catalog.reload();
                }
                group.forEach(t -> t.done().complete(null)); // nothing committed: each runs alone
                return Retry.NONE;
            }
            fail(group, PgFailures.unavailable("group commit failed", e));
            return Retry.NONE;
        }
        if (!touched.isEmpty()) {
            commits.incrementAndGet();
        }
        for (int i = 0; i < group.size(); i++) {
            if (results[i] != null) {
                committedWrites.incrementAndGet();
            }
            group.get(i).done().complete(results[i]);
        }
        return Retry.NONE;
    }

    /** A failed check of an assumed document's bytes ({@link PgWrites#EXPECT}, "version"). */
    private static boolean stale(SQLException e) {
        return PgWrites.EXPECTED.equals(e.getSQLState()) && String.valueOf(e.getMessage()).contains("version:");
    }

    /**
     * A failure PostgreSQL reported for a statement, on a connection still in its hands: the
     * transaction was aborted there and then, so the rest of the burst (its COMMIT) did not run.
     * Not so for a lost connection (class 08, or no state: the COMMIT may have run) or an operator's
     * intervention (57: a cancel, a terminated backend), which the savepoint attempt would only meet again.
     */
    private static boolean answeredByTheServer(SQLException e) {
        String state = e.getSQLState();
        return state != null && !state.startsWith("08") && !state.startsWith("57");
    }

    /**
     * One write of a one-burst group, its statements held back with the others'; its result if it
     * succeeded, else null with its held statements dropped (nothing of it was sent). A failure
     * whose statements were partly sent already (the write read its document) needs a savepoint.
     */
    private WriteResult hold(PgPipeline sql, Catalog.Coll coll, WriteOp op, List<ChangeEvent> changes)
            throws SQLException, SavepointsNeeded {
        int mark = changes.size();
        int held = sql.held();
        int flushes = sql.flushes();
        try {
            WriteResult result = engine.apply(sql, coll, op, changes, false);
            if (result.ok()) {
                for (ChangeEvent change : changes.subList(mark, changes.size())) {
                    sql.wrote(coll.table(), AbstractDocumentWrites.key(change.documentKey()), change.fullDocument());
                }
                return result;
            }
        } catch (RuntimeException e) {
            // answered alone, as in a savepoint
        }
        if (sql.flushes() != flushes) {
            throw new SavepointsNeeded();
        }
        sql.dropSince(held);
        changes.subList(mark, changes.size()).clear();
        rolledBackWrites.incrementAndGet();
        return null;
    }

    /**
     * Reads and locks, in one statement per collection ({@link PgWrites#lockDocuments}: in one order
     * on every node), every document the group's replaces, updates and deletes load, if {@code all};
     * else none, and the burst checks the assumed bytes of each (also one statement per collection,
     * in the same order). Never some of them read and the others checked: two statements, each in
     * key order, would lock one group's rows in an order another node's group may lock the other
     * way round (a deadlock, found by PostgreSQL only after {@code deadlock_timeout}).
     */
    private void lockDocuments(PgPipeline sql, Catalog cat, List<Task> group, boolean all) throws SQLException {
        if (all) {
            PgWrites.lockDocuments(sql, cat, group.stream().map(Task::op).toList(), (coll, key) -> true);
        }
    }

    /** Whether the node may assume the stored bytes of every document the group loads ({@link KnownDocuments#get}). */
    private boolean allKnown(Catalog cat, List<Task> group) {
        for (Task t : group) {
            Catalog.Coll coll = cat.colls().get(t.op().ns());
            JsonNode id = PgWrites.loadedId(t.op());
            if (coll != null && id != null && known.get(coll.table(), AbstractDocumentWrites.key(id)) == null) {
                return false;
            }
        }
        return true;
    }

    /**
     * One write in the group's transaction, its burst ending in a fresh savepoint; its result if
     * it succeeded, else null, rolled back to the savepoint before it. A failure of that rollback
     * (the connection is gone) fails the group.
     */
    private WriteResult apply(PgPipeline sql, Catalog.Coll coll, WriteOp op, List<ChangeEvent> changes) throws SQLException {
        int mark = changes.size();
        try {
            WriteResult result = engine.apply(sql, coll, op, changes, false);
            if (result.ok()) {
                sql.send("RELEASE SAVEPOINT " + SAVEPOINT, (ps, i) -> i);
                sql.send("SAVEPOINT " + SAVEPOINT, (ps, i) -> i);
                sql.sendHeld();
                return result;
            }
        } catch (SQLException | RuntimeException e) {
            if (sql.connection().isClosed()) {
                throw e;
            }
        }
        changes.subList(mark, changes.size()).clear();
        sql.rollbackTo(SAVEPOINT);
        rolledBackWrites.incrementAndGet();
        return null;
    }

    private static void fail(List<Task> group, RuntimeException failure) {
        group.forEach(t -> t.done().completeExceptionally(failure));
    }

    /** Stops taking writes, commits those queued, and stops the threads. */
    @Override
    public void close() {
        closing = true;
        GroupLoop.join(threads);
    }
}
