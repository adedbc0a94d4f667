package dev.weft.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.weft.core.ReadMode;
import dev.weft.store.QueryTime;
import dev.weft.store.sql.Dialect;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.SqlEngine;
import java.sql.SQLException;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Where and how a read runs: on a pooled connection of the primary, or for an
 * {@link ReadMode#OUTDATED} read on a streaming replica when one is in ({@link Replicas}); with
 * {@code snapshot}, in one repeatable-read transaction, so a find or count sees one state of the
 * data however many statements it runs; under the query's time limit by PostgreSQL's own
 * {@code statement_timeout}.
 *
 * <p>Failures: a replica that fails before anything was handed out sends the read to the
 * primary; a statement that fails on the primary because another node dropped its table reloads
 * the catalog and runs again (then usually finds the collection gone: 404); anything else is a
 * 503 ({@link PgFailures#unavailable}).
 */
final class PgReads {
    /** What a read runs on its connection. */
    interface ReadFn<T> {
        T apply(SqlConnection sql) throws SQLException;
    }

    private final HikariDataSource pool;
    private final Replicas replicas;
    private final PgCatalog catalog;
    private final Dialect dialect;
    private final long statementTimeoutMs;

    PgReads(HikariDataSource pool, Replicas replicas, PgCatalog catalog, Dialect dialect, long statementTimeoutMs) {
        this.pool = pool;
        this.replicas = replicas;
        this.catalog = catalog;
        this.dialect = dialect;
        this.statementTimeoutMs = statementTimeoutMs;
    }

    /** {@code untouched}: nothing was handed out yet, so a failed replica read may run again on the primary. */
    <T> T read(ReadMode mode, boolean snapshot, BooleanSupplier untouched, ReadFn<T> fn) {
        Optional<Replicas.Replica> replica = mode == ReadMode.OUTDATED ? replicas.pick() : Optional.empty();
        if (replica.isPresent()) {
            try {
                return readOn(replica.get().pool(), snapshot, fn);
            } catch (SQLException e) {
                replicas.failed(replica.get(), e);
                if (!untouched.getAsBoolean()) {
                    throw PgFailures.unavailable("read failed on " + replica.get().name(), e);
                }
            }
        }
        for (int attempt = 0; ; attempt++) {
            try {
                return readOn(pool, snapshot, fn);
            } catch (SQLException e) {
                if (isStaleCatalog(e) && attempt < 3) {
                    catalog.reload();
                    continue;
                }
                throw PgFailures.unavailable("read failed", e);
            }
        }
    }

    /** A statement named a table another node dropped, or a plan chose an index dropped meanwhile. */
    boolean isStaleCatalog(SQLException e) {
        return dialect.isMissingTable(e) || e instanceof SqlEngine.SourceDropped;
    }

    private static <T> T readOn(HikariDataSource from, boolean snapshot, ReadFn<T> fn) throws SQLException {
        try (SqlConnection sql = new SqlConnection(from.getConnection())) {
            try {
                if (snapshot) {
                    sql.connection().setAutoCommit(false);
                    sql.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
                }
                T result = fn.apply(sql);
                if (snapshot) {
                    sql.connection().commit();
                }
                return result;
            } catch (SQLException | RuntimeException e) {
                if (snapshot) {
                    PgFailures.rollbackQuietly(sql.connection(), e);
                }
                throw e;
            }
        }
    }

    /**
     * {@code fn} in a snapshot transaction under the query's time limit: PostgreSQL's own
     * {@code statement_timeout} lowered to the time left, and its cancel then answered as the
     * limit's error (while the rows it hands to Java are checked by {@code time} itself).
     */
    <T> ReadFn<T> timed(QueryTime time, ReadFn<T> fn) {
        return sql -> {
            long left = time.remainingMs();
            boolean ours = left < statementTimeoutMs;
            if (ours) {
                sql.exec("SET LOCAL statement_timeout = " + left);
            }
            try {
                return fn.apply(sql);
            } catch (SQLException e) {
                if (ours && PgFailures.QUERY_CANCELED.equals(e.getSQLState())) {
                    throw time.exceeded();
                }
                throw e;
            }
        };
    }
}
