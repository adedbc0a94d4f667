package dev.weft.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.weft.core.Durability;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.DuplicateKey;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.SqlEngine;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Document writes as PostgreSQL transactions: each call one transaction on a pooled connection,
 * concurrently with every other node's, the rows written by the {@link SqlEngine}.
 *
 * <p>Invariants: a write first takes a share lock on each collection's catalog row and checks its
 * {@code gen} against the catalog it planned with (index changes bump {@code gen} under an
 * exclusive lock), so no write maintains a stale set of indexes, on any node; several ops run
 * each in a savepoint (a failing op undoes only itself), a lone op without one (its failure rolls
 * back the transaction); the events commit with the writes ({@link PgEventLog#append}); nothing
 * is acknowledged before COMMIT returned.
 *
 * <p>Retries, from the start: when the catalog changed underneath, on a deadlock or a
 * serialization failure, and when an upsert lost a race to insert the same _id.
 */
final class PgWrites {
    private static final int ATTEMPTS = 8;

    private final HikariDataSource pool;
    private final PgCatalog catalog;
    private final SqlEngine engine;
    private final PgEventLog events;
    private final WriteNotifier notifier;
    private final Consumer<Namespace> bump;

    PgWrites(HikariDataSource pool, PgCatalog catalog, SqlEngine engine, PgEventLog events, WriteNotifier notifier,
             Consumer<Namespace> bump) {
        this.pool = pool;
        this.catalog = catalog;
        this.engine = engine;
        this.events = events;
        this.notifier = notifier;
        this.bump = bump;
    }

    /**
     * All ops in one transaction. A {@link Durability#SOFT} transaction runs with
     * {@code synchronous_commit = off}: its commit returns before its WAL is flushed.
     */
    List<WriteResult> writeAll(List<WriteOp> ops, Durability durability) {
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
            try (SqlConnection sql = new SqlConnection(pool.getConnection())) {
                sql.connection().setAutoCommit(false);
                try {
                    if (durability == Durability.SOFT) {
                        sql.exec("SET LOCAL synchronous_commit = off");
                    }
                    List<WriteResult> results = run(sql, plan, ops, touched, changes);
                    if (results == null) {
                        sql.connection().rollback();
                        catalog.reload();
                        continue;
                    }
                    if (touched.isEmpty()) {
                        sql.connection().rollback();
                    } else {
                        events.append(sql.connection(), changes);
                        sql.connection().commit();
                        events.wake();
                        notifier.written(touched.stream().map(Catalog.Coll::id).toList());
                        touched.forEach(coll -> bump.accept(coll.ns()));
                    }
                    if (attempt < ATTEMPTS && lostUpsertRace(ops, results)) {
                        continue;
                    }
                    return results;
                } catch (SQLException | RuntimeException e) {
                    PgFailures.rollbackQuietly(sql.connection(), e);
                    throw e;
                }
            } catch (SQLException e) {
                String state = e.getSQLState();
                boolean stale = engine.dialect().isMissingTable(e);
                if (attempt < ATTEMPTS && ("40001".equals(state) || "40P01".equals(state) || stale)) {
                    if (stale) {
                        catalog.reload();
                    }
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
     * The ops' results, or null when the catalog this node planned with is stale. Locks each
     * collection's catalog row in share mode first.
     */
    private List<WriteResult> run(SqlConnection sql, PgCatalog.Planned plan, List<WriteOp> ops, Set<Catalog.Coll> touched,
                                  List<ChangeEvent> changes) throws SQLException {
        Catalog cat = plan.catalog();
        Set<Catalog.Coll> colls = new LinkedHashSet<>();
        ops.forEach(op -> colls.add(cat.colls().get(op.ns())));
        PreparedStatement ps = sql.prepare("SELECT gen FROM weft_colls WHERE id = ? FOR SHARE");
        for (Catalog.Coll coll : colls) {
            ps.setLong(1, coll.id());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getLong(1) != plan.gens().getOrDefault(coll.id(), -1L)) {
                    return null;
                }
            }
        }
        boolean savepoints = ops.size() > 1;
        List<WriteResult> results = new ArrayList<>(ops.size());
        for (WriteOp op : ops) {
            Catalog.Coll coll = cat.colls().get(op.ns());
            int mark = changes.size();
            WriteResult result = engine.apply(sql, coll, op, changes, savepoints);
            if (result.ok()) {
                touched.add(coll);
            } else if (!savepoints) {
                changes.subList(mark, changes.size()).clear();
                sql.connection().rollback();
            }
            results.add(result);
        }
        return results;
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
