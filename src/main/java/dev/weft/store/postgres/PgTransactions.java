package dev.weft.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.store.Transaction;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.SqlEngine;
import dev.weft.store.txn.TxnErrors;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * Transactions on PostgreSQL: each holds a connection of a pool of its own (at most
 * {@code max-open-txns}, so open transactions never starve the requests of the main pool) in one
 * REPEATABLE READ transaction (MongoDB's snapshot isolation) from begin to commit or abort. Its
 * writes are the engine's, as every other write, each op in a savepoint.
 *
 * <p>Write conflicts, as in MongoDB: a write that waits for a row another transaction holds
 * longer than {@code txn-lock-wait-ms} ({@code lock_timeout}), or that PostgreSQL refuses because
 * the row changed after this transaction's snapshot, aborts this transaction with 409. Its events
 * are appended just before COMMIT, so they exist only if it committed. The database itself also
 * ends a connection left idle in its transaction past {@code txn-idle-timeout-ms} plus
 * {@code pg-timeout-ms}, should the sweep of {@link dev.weft.store.txn.Sessions} not have.
 */
final class PgTransactions implements AutoCloseable {
    private static final Set<String> CONFLICTS = Set.of("40001", "40P01", "55P03");

    private final PgUrl url;
    private final Settings settings;
    private final PgCatalog catalog;
    private final SqlEngine engine;
    private final PgEventLog events;
    private final WriteNotifier notifier;
    private final Consumer<Namespace> bump;
    private HikariDataSource pool;

    PgTransactions(PgUrl url, Settings settings, PgCatalog catalog, SqlEngine engine, PgEventLog events,
                   WriteNotifier notifier, Consumer<Namespace> bump) {
        this.url = url;
        this.settings = settings;
        this.catalog = catalog;
        this.engine = engine;
        this.events = events;
        this.notifier = notifier;
        this.bump = bump;
    }

    /** The pool, opened at the first transaction: a store nobody uses transactions on holds no connection for them. */
    private synchronized HikariDataSource pool() {
        if (pool == null) {
            // opened lazily, so never waited for at start: a database down now is the begin's 503
            pool = PgConnections.pool(url, settings, "weft-pg-txn", true);
            pool.getHikariConfigMXBean().setMaximumPoolSize(settings.maxOpenTxns());
            pool.getHikariConfigMXBean().setMinimumIdle(0);
        }
        return pool;
    }

    Transaction begin() {
        SqlConnection sql;
        try {
            sql = new SqlConnection(pool().getConnection());
        } catch (SQLException e) {
            throw PgFailures.unavailable("transaction start failed", e);
        }
        try {
            sql.connection().setAutoCommit(false);
            sql.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            sql.exec("SET LOCAL lock_timeout = " + settings.txnLockWaitMs());
            sql.exec("SET LOCAL idle_in_transaction_session_timeout = "
                    + (settings.txnIdleTimeoutMs() + settings.pgTimeoutMs()));
        } catch (SQLException e) {
            PgFailures.rollbackQuietly(sql.connection(), e);
            sql.close();
            throw PgFailures.unavailable("transaction start failed", e);
        }
        return new PgTransaction(sql);
    }

    @Override
    public synchronized void close() {
        if (pool != null) {
            pool.close();
        }
    }

    /** One transaction on its held connection; used by one request at a time. */
    private final class PgTransaction implements Transaction {
        private final SqlConnection sql;
        /** Each collection written, as planned when its catalog row was share-locked (index changes wait for this transaction). */
        private final Map<Namespace, Catalog.Coll> locked = new HashMap<>();
        private final List<ChangeEvent> changes = new ArrayList<>();
        private long heldBytes;
        private boolean open = true;

        PgTransaction(SqlConnection sql) {
            this.sql = sql;
        }

        @Override
        public Optional<StoredDocument> get(Namespace ns, JsonNode id) {
            return run("read", () -> engine.get(sql, coll(ns), id));
        }

        @Override
        public void find(Namespace ns, FindQuery query, Consumer<StoredDocument> sink) {
            QueryTime time = QueryTime.start(settings.queryTimeoutMs());
            SqlEngine.Find find = engine.find(query, time);
            if (find.done()) {
                return;
            }
            run("read", () -> {
                List<StoredDocument> chunk = find.first(sql, coll(ns));
                while (true) {
                    chunk.forEach(sink);
                    if (find.done()) {
                        return null;
                    }
                    chunk = find.next(sql);
                }
            });
        }

        @Override
        public long count(Namespace ns, Filter filter) {
            QueryTime time = QueryTime.start(settings.queryTimeoutMs());
            return run("read", () -> engine.count(sql, coll(ns), filter, time));
        }

        @Override
        public List<WriteResult> writeAll(List<WriteOp> ops) {
            return run("write", () -> {
                List<WriteResult> results = new ArrayList<>(ops.size());
                for (WriteOp op : ops) {
                    results.add(apply(op));
                }
                return results;
            });
        }

        /** One op in a savepoint of its own, undone when it would pass txn-max-bytes. */
        private WriteResult apply(WriteOp op) throws SQLException {
            Catalog.Coll coll = lock(op.ns());
            int mark = changes.size();
            sql.control("SAVEPOINT txn_op");
            WriteResult result = engine.apply(sql, coll, op, changes, true);
            long added = Transaction.bytesHeld(changes.subList(mark, changes.size()));
            if (heldBytes + added > settings.txnMaxBytes()) {
                sql.control("ROLLBACK TO SAVEPOINT txn_op");
                changes.subList(mark, changes.size()).clear();
                throw TxnErrors.tooLarge(settings.txnMaxBytes());
            }
            sql.control("RELEASE SAVEPOINT txn_op");
            heldBytes += added;
            return result;
        }

        /**
         * The collection a write plans with, its catalog row share-locked once per transaction
         * with the gen of that very catalog checked (see {@link PgWrites}); reloads a stale catalog.
         */
        private Catalog.Coll lock(Namespace ns) throws SQLException {
            Catalog.Coll held = locked.get(ns);
            if (held != null) {
                return held;
            }
            PreparedStatement ps = sql.prepare("SELECT gen FROM weft_colls WHERE id = ? FOR SHARE");
            for (int attempt = 0; attempt < 3; attempt++) {
                catalog.fresh(() -> catalog.planned().catalog().colls().containsKey(ns));
                PgCatalog.Planned plan = catalog.planned();
                Catalog.Coll coll = PostgresStore.requireCollection(plan.catalog(), ns);
                ps.setLong(1, coll.id());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getLong(1) == plan.gens().getOrDefault(coll.id(), -1L)) {
                        locked.put(ns, coll);
                        return coll;
                    }
                }
                catalog.reload();
            }
            throw new WeftException(503, "the collection " + ns + " kept changing its indexes; retry the transaction");
        }

        /** The collection as this transaction writes it, or as the catalog has it now for a read. */
        private Catalog.Coll coll(Namespace ns) {
            Catalog.Coll held = locked.get(ns);
            return held != null ? held
                    : PostgresStore.requireCollection(catalog.fresh(() -> catalog.current().colls().containsKey(ns)), ns);
        }

        @Override
        public void commit() {
            if (!open) {
                throw TxnErrors.notInProgress();
            }
            run("commit", () -> {
                events.append(sql, changes);
                sql.connection().commit();
                return null;
            });
            events.wake();
            if (!locked.isEmpty()) {
                notifier.written(locked.values().stream().map(Catalog.Coll::id).toList());
                locked.keySet().forEach(bump);
            }
            end();
        }

        @Override
        public void abort() {
            if (open) {
                try {
                    sql.connection().rollback();
                } catch (SQLException e) {
                    PgFailures.OUTAGES.warn("transaction rollback failed", e.getMessage());
                }
                end();
            }
        }

        @Override
        public boolean open() {
            return open;
        }

        private void end() {
            open = false;
            changes.clear();
            locked.clear();
            sql.close();
        }

        private interface Step<T> {
            T run() throws SQLException;
        }

        /**
         * {@code step} on the held connection: a write conflict aborts this transaction (409), any
         * other database error too (503); a client error it throws leaves the transaction as it was.
         */
        private <T> T run(String what, Step<T> step) {
            if (!open) {
                throw TxnErrors.notInProgress();
            }
            try {
                return step.run();
            } catch (SQLException e) {
                abort();
                if (CONFLICTS.contains(e.getSQLState())) {
                    throw TxnErrors.writeConflict();
                }
                throw PgFailures.unavailable("transaction " + what + " failed", e);
            }
        }
    }
}
