package dev.weft.store.postgres;

import dev.weft.core.WeftException;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.WriterQueues;
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
 * <p>A writer takes the first waiting write and whatever else waits, up to {@code groupMax}. In
 * the open transaction each write runs its statements held back as a lone write's are
 * ({@link PgPipeline}, assumed documents included), followed by {@code RELEASE SAVEPOINT w;
 * SAVEPOINT w} in the same burst: one round trip per write that knows its document, and a
 * savepoint before each. A write that fails (a duplicate key, a refused check, a stale assumed
 * document, a 404, 412) or answers anything but success is rolled back to its savepoint alone
 * and handed back to its request, which runs it in a transaction of its own ({@link PgWrites})
 * for the exact answer a lone write gives; the others stay in the group. Then the events of the
 * group, the catalog check and COMMIT go in one burst ({@link PgWrites#commit}); only after it
 * returned is any write of the group acknowledged. A failure that leaves nothing committed and
 * may pass on a new attempt (the catalog changed, a deadlock) hands every write back to run
 * alone; any other failure of the group (a connection lost, the COMMIT itself) is a 503 for
 * every write of it, none acknowledged.
 *
 * <p>A write that finds no other waiting is handed back at once: with nothing to share the
 * commit with, its own transaction is one round trip and no savepoint.
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
            case WriteOp.Replace r -> r.document().get("_id");
            case WriteOp.UpdateOne u -> u.id();
            case WriteOp.DeleteOne d -> d.id();
            case WriteOp.EncodedInsert e -> e.documents().getFirst().get("_id");
            case WriteOp.InsertMany m -> m.documents().getFirst().get("_id");
            default -> null;
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

    void beforeCommit(BeforeCommit hook) {
        beforeCommit = hook;
    }

    private void loop(BlockingQueue<Task> queue) {
        List<Task> group = new ArrayList<>();
        while (true) {
            Task first = WriterQueues.next(queue, () -> closing);
            if (first == null) {
                return;
            }
            group.add(first);
            gather.await(queue);
            queue.drainTo(group, groupMax - 1);
            if (group.size() == 1) { // alone it is one round trip on its request's thread, as before
                first.done().complete(null);
                group.clear();
                continue;
            }
            try {
                run(group);
            } catch (RuntimeException e) {
                fail(group, e instanceof WeftException w ? w : new WeftException(500, "write failed: " + e.getMessage()));
            }
            group.clear();
        }
    }

    /** Makes the next group wait for {@code writes} writes, at most {@code maxMs} (for tests). */
    void gather(int writes, long maxMs) {
        gather.gather(writes, maxMs);
    }

    private void run(List<Task> group) {
        catalog.fresh(() -> group.stream().allMatch(t -> catalog.planned().catalog().colls().containsKey(t.op().ns())));
        PgCatalog.Planned plan = catalog.planned();
        Catalog cat = plan.catalog();
        WriteResult[] results = new WriteResult[group.size()];
        Set<Catalog.Coll> touched = new LinkedHashSet<>();
        List<ChangeEvent> changes = new ArrayList<>();
        try (PgPipeline sql = new PgPipeline(pool.getConnection(), true, known)) {
            sql.connection().setAutoCommit(false);
            try {
                sql.control("SAVEPOINT " + SAVEPOINT);
                for (int i = 0; i < group.size(); i++) {
                    Catalog.Coll coll = cat.colls().get(group.get(i).op().ns());
                    results[i] = coll == null ? null : apply(sql, coll, group.get(i).op(), changes);
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
            } catch (SQLException | RuntimeException e) {
                PgFailures.rollbackQuietly(sql.connection(), e);
                throw e;
            }
        } catch (SQLException e) {
            if (writes.retryable(e)) {
                if (String.valueOf(e.getMessage()).contains("catalog:")) {
                    catalog.reload();
                }
                group.forEach(t -> t.done().complete(null)); // nothing committed: each runs alone
                return;
            }
            fail(group, PgFailures.unavailable("group commit failed", e));
            return;
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
        for (Thread t : threads) {
            try {
                t.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
