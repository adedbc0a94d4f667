package dev.weft.store.sqlite;

import dev.weft.store.Catalog;
import dev.weft.core.WeftException;
import dev.weft.store.ChangeEvent;
import dev.weft.store.Namespace;
import dev.weft.store.OutageLog;
import dev.weft.store.QueryTime;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.WriterQueues;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;
import org.slf4j.LoggerFactory;

/**
 * The single writer: one platform thread owns the writer connection and group-commits. It takes
 * the first waiting task, drains more document writes up to {@code batchMax} ops, runs them in
 * one transaction (a savepoint per task and per op, so a failing op undoes only itself), commits
 * once, and only then completes the callers' futures. Catalog changes (DDL) run alone in their
 * own transaction. A failed COMMIT fails every op of the batch: nothing is acknowledged that did
 * not commit. A full disk or an I/O error fails the whole batch with 503 and rolls it back; the
 * writer goes on, so writes commit again as soon as the fault is gone, without a restart.
 */
final class Writer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Writer.class);
    private static final OutageLog STORAGE_FAULTS = new OutageLog(LOG, 5000);

    /** Applies one document write inside the open transaction, in a savepoint of its own: a failed op undoes only itself. */
    interface OpRunner {
        WriteResult apply(Sql sql, WriteOp op, List<ChangeEvent> events) throws SQLException;
    }

    /** Called inside the batch transaction just before COMMIT: logs the events, returns them seq-stamped. */
    interface BeforeCommit {
        List<ChangeEvent> log(Sql sql, List<ChangeEvent> events) throws SQLException;
    }

    /** Called on the writer thread after a commit, before the callers are acknowledged. */
    interface AfterCommit {
        void committed(Set<Namespace> touched, List<ChangeEvent> events);
    }

    /**
     * A catalog change: runs alone in a transaction; {@code after} runs whether it committed or
     * not. What it adds to {@code events} is logged in the same transaction and published after
     * the commit, as a write's events are.
     */
    interface Ddl<T> {
        T run(Sql sql, List<ChangeEvent> events) throws SQLException;
    }

    /**
     * Work the writer does once no write has come for {@code afterMs} (trigram and text indexes'
     * pending documents into FTS5): one bounded {@code step} per transaction of its own while {@code due}
     * holds, so a write arriving meanwhile waits for one step at most. A failed step is rolled back
     * and not tried again before the next write.
     */
    record IdleWork(long afterMs, java.util.function.BooleanSupplier due, Step step) {
        interface Step {
            void run(Sql sql) throws SQLException;
        }
    }

    private sealed interface Task permits Ops, DdlTask, IdleTurn, Asked {}

    /** Done on the writer thread right after a commit, before any other write (pinning a reader's snapshot there). */
    interface AfterStep {
        void run() throws SQLException;
    }

    /** A step of idle work a reader asked for: {@code then} runs right after its commit. */
    private record Asked(IdleWork.Step step, AfterStep then, CompletableFuture<Object> done) implements Task {}

    /** No write came for {@link IdleWork#afterMs()}: the writer's turn for a step of its idle work. */
    private record IdleTurn() implements Task {}

    /** {@code maxTimeMs}: the request's, taken on its thread, for the searches of its bulk writes. */
    private record Ops(List<WriteOp> ops, OptionalLong maxTimeMs, CompletableFuture<List<WriteResult>> done)
            implements Task {}

    /** A catalog change ({@code touched} null), or document changes that commit all or none ({@link #atomic}). */
    private record DdlTask(Ddl<?> ddl, Set<Namespace> touched, CompletableFuture<Object> done) implements Task {}

    private final Sql sql;
    private final OpRunner runner;
    private final BeforeCommit beforeCommit;
    private final AfterCommit afterCommit;
    private final Runnable afterDdl;
    private final IdleWork idle;
    /**
     * Writer thread only: when the last write ended (taken, until it ends), and whether idle work
     * failed since. The idle wait counts from a write's end: a write longer than the wait (a
     * loaded machine's ndjson chunk) is not followed at once by a step of idle work that the
     * load's next chunk then waits for.
     */
    private long lastTaskNanos = System.nanoTime();
    private boolean idleFailed;
    private final int batchMax;
    private final BlockingQueue<Task> queue;
    private final Thread thread;
    private final AtomicLong commits = new AtomicLong();
    private volatile boolean closing;

    Writer(Sql sql, int queueLength, int batchMax, OpRunner runner, BeforeCommit beforeCommit, AfterCommit afterCommit,
           Runnable afterDdl, IdleWork idle) {
        this.sql = sql;
        this.idle = idle;
        this.runner = runner;
        this.beforeCommit = beforeCommit;
        this.afterCommit = afterCommit;
        this.afterDdl = afterDdl;
        this.batchMax = batchMax;
        this.queue = new ArrayBlockingQueue<>(queueLength);
        this.thread = Thread.ofPlatform().name("weft-sqlite-writer").daemon(false).start(this::loop);
    }

    /** Transactions committed so far (document batches and DDL). */
    long commits() {
        return commits.get();
    }

    List<WriteResult> submit(List<WriteOp> ops) {
        Ops task = new Ops(List.copyOf(ops), QueryTime.requested(), new CompletableFuture<>());
        enqueue(task);
        return await(task.done());
    }

    /**
     * Runs {@code step} (idle work, as moving pending documents into FTS5) now, alone in a
     * transaction of its own, then {@code then} on the writer thread before any later write
     * commits: a reader's snapshot begun in {@code then} sees exactly the state {@code step} left.
     */
    void asked(IdleWork.Step step, AfterStep then) {
        Asked task = new Asked(step, then, new CompletableFuture<>());
        enqueue(task);
        await(task.done());
    }

    <T> T ddl(Ddl<T> ddl) {
        return alone(ddl, null);
    }

    /**
     * Document changes that commit together or not at all (a transaction's commit): run alone in
     * a transaction like a catalog change, rolled back whole when {@code changes} throws, and
     * published as one commit touching {@code touched}.
     */
    <T> T atomic(Ddl<T> changes, Set<Namespace> touched) {
        return alone(changes, touched);
    }

    @SuppressWarnings("unchecked")
    private <T> T alone(Ddl<T> ddl, Set<Namespace> touched) {
        DdlTask task = new DdlTask(ddl, touched, new CompletableFuture<>());
        enqueue(task);
        return (T) await(task.done());
    }

    private void enqueue(Task task) {
        if (closing) {
            throw new WeftException(503, "the store is closing");
        }
        if (!queue.offer(task)) {
            throw new WeftException(503, "write queue full (limit write-queue-length)");
        }
    }

    private static <T> T await(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private void loop() {
        List<Ops> batch = new ArrayList<>();
        while (true) {
            Task first = !idleFailed && idle.due().getAsBoolean() ? nextOrIdleTurn() : WriterQueues.next(queue, () -> closing);
            if (first == null) {
                return;
            }
            if (first instanceof IdleTurn) {
                runIdleStep();
                continue;
            }
            if (first instanceof Asked asked) {
                runAsked(asked);
                continue;
            }
            lastTaskNanos = System.nanoTime();
            idleFailed = false;
            if (first instanceof DdlTask ddl) {
                runDdl(ddl);
                lastTaskNanos = System.nanoTime();
                continue;
            }
            Ops ops = (Ops) first;
            batch.add(ops);
            int size = ops.ops().size();
            while (size < batchMax && queue.peek() instanceof Ops next) {
                queue.poll();
                batch.add(next);
                size += next.ops().size();
            }
            runBatch(batch);
            batch.clear();
            lastTaskNanos = System.nanoTime();
        }
    }

    /** As {@link WriterQueues#next}, but an {@link IdleTurn} once no write has come for the idle work's {@code afterMs}. */
    private Task nextOrIdleTurn() {
        long due = lastTaskNanos + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(idle.afterMs());
        while (true) {
            long wait = Math.min(due - System.nanoTime(), java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50));
            Task first;
            try {
                first = queue.poll(Math.max(0, wait), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                continue; // only close() ends the loop, after the queue is drained
            }
            if (first != null) {
                return first;
            }
            if (closing && queue.isEmpty()) {
                return null;
            }
            if (System.nanoTime() - due >= 0) {
                return new IdleTurn();
            }
        }
    }

    private void runIdleStep() {
        try {
            inTransaction(idle.step());
        } catch (SQLException | RuntimeException e) {
            idleFailed = true;
            STORAGE_FAULTS.warn("idle work failed (pending documents of FTS5 indexes stay pending and are still found)",
                    e.getMessage());
        }
    }

    /** A failed step is rolled back and fails its asker with 503 (the reader cannot be answered exactly without it). */
    private void runAsked(Asked task) {
        try {
            inTransaction(task.step());
            commits.incrementAndGet();
            task.then().run();
            task.done().complete(null);
        } catch (SQLException | RuntimeException e) {
            LOG.error("work asked of the writer failed", e);
            task.done().completeExceptionally(new WeftException(503, "the writer could not prepare the read: " + e.getMessage()));
        }
    }

    private void inTransaction(IdleWork.Step step) throws SQLException {
        sql.control("BEGIN IMMEDIATE");
        try {
            step.run(sql);
            sql.control("COMMIT");
        } catch (SQLException | RuntimeException e) {
            rollbackQuietly();
            throw e;
        }
    }

    private void runBatch(List<Ops> batch) {
        List<List<WriteResult>> results = new ArrayList<>(batch.size());
        List<RuntimeException> failures = new ArrayList<>(batch.size());
        List<ChangeEvent> events = new ArrayList<>();
        Set<Namespace> touched = new LinkedHashSet<>();
        try {
            sql.control("BEGIN IMMEDIATE");
        } catch (SQLException e) {
            failAll(batch, e);
            return;
        }
        for (Ops task : batch) {
            List<WriteResult> taskResults = new ArrayList<>(task.ops().size());
            List<ChangeEvent> taskEvents = new ArrayList<>();
            RuntimeException failure = null;
            try {
                sql.control("SAVEPOINT task");
                QueryTime.limitedTo(task.maxTimeMs(), () -> {
                    for (WriteOp op : task.ops()) {
                        taskResults.add(runner.apply(sql, op, taskEvents));
                    }
                });
                sql.control("RELEASE task");
            } catch (SQLException | RuntimeException e) {
                if (e instanceof SQLException fault && storageFault(fault)) {
                    // SQLite may have rolled back the whole transaction: no task of it commits
                    rollbackAndFail(batch, fault);
                    return;
                }
                LOG.error("write failed, rolled back", e);
                failure = new WeftException(500, "write failed: " + e.getMessage());
                try {
                    sql.control("ROLLBACK TO task");
                    sql.control("RELEASE task");
                } catch (SQLException rollback) {
                    rollbackAndFail(batch, rollback);
                    return;
                }
            }
            results.add(taskResults);
            failures.add(failure);
            if (failure == null) {
                for (int i = 0; i < taskResults.size(); i++) {
                    if (taskResults.get(i).ok()) {
                        touched.add(task.ops().get(i).ns());
                    }
                }
                events.addAll(taskEvents);
            }
        }
        List<ChangeEvent> logged;
        try {
            logged = beforeCommit.log(sql, events);
            sql.control("COMMIT");
        } catch (SQLException | RuntimeException e) {
            rollbackAndFail(batch, e);
            return;
        }
        commits.incrementAndGet();
        try {
            afterCommit.committed(touched, logged);
        } catch (RuntimeException e) {
            LOG.error("commit listener failed", e);
        }
        for (int i = 0; i < batch.size(); i++) {
            if (failures.get(i) != null) {
                batch.get(i).done().completeExceptionally(failures.get(i));
            } else {
                batch.get(i).done().complete(results.get(i));
            }
        }
    }

    /** A full disk or an I/O error: the write may succeed again once the fault is gone. */
    static boolean storageFault(SQLException e) {
        if (!(e instanceof SQLiteException s)) {
            return false;
        }
        int primary = s.getResultCode().code & 0xff;
        return primary == SQLiteErrorCode.SQLITE_FULL.code || primary == SQLiteErrorCode.SQLITE_IOERR.code;
    }

    private void rollbackAndFail(List<Ops> batch, Exception cause) {
        rollbackQuietly();
        failAll(batch, cause);
    }

    private void rollbackQuietly() {
        try {
            sql.exec("ROLLBACK");
        } catch (SQLException ignored) {
            // the transaction may already be gone
        }
    }

    private static void failAll(List<Ops> batch, Exception cause) {
        if (cause instanceof SQLException fault && storageFault(fault)) {
            // every write fails while the disk is full: one line per batch would fill what is left
            STORAGE_FAULTS.warn("group commit failed, writes not acknowledged until the fault passes", cause.getMessage());
        } else {
            LOG.error("group commit failed; {} writes not acknowledged", batch.size(), cause);
        }
        WeftException failure = new WeftException(503, "the write could not be committed: " + cause.getMessage());
        batch.forEach(task -> task.done().completeExceptionally(failure));
    }

    private void runDdl(DdlTask task) {
        Object result = null;
        RuntimeException failure = null;
        List<ChangeEvent> logged = List.of();
        try {
            sql.exec("BEGIN IMMEDIATE");
            try {
                List<ChangeEvent> events = new ArrayList<>();
                result = task.ddl().run(sql, events);
                logged = beforeCommit.log(sql, events);
                sql.exec("COMMIT");
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly();
                throw e;
            }
            commits.incrementAndGet();
        } catch (WeftException e) {
            failure = e;
        } catch (SQLException | RuntimeException e) {
            LOG.error("catalog change failed", e);
            failure = e instanceof SQLException fault && storageFault(fault)
                    ? new WeftException(503, "the catalog change could not be committed: " + e.getMessage())
                    : new WeftException(500, "catalog change failed: " + e.getMessage());
        }
        if (task.touched() == null) {
            sql.forgetStatements();
            try {
                afterDdl.run();
            } catch (RuntimeException e) {
                LOG.error("reloading the catalog failed", e);
            }
        }
        if (failure == null && (!logged.isEmpty() || task.touched() != null)) {
            try {
                afterCommit.committed(task.touched() == null ? Set.of() : task.touched(), logged);
            } catch (RuntimeException e) {
                LOG.error("commit listener failed", e);
            }
        }
        if (failure != null) {
            task.done().completeExceptionally(failure);
        } else {
            task.done().complete(result);
        }
    }

    /** Stops taking writes, finishes those queued, and stops the thread. */
    @Override
    public void close() {
        closing = true;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
