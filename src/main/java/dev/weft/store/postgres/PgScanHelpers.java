package dev.weft.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.weft.store.QueryTime;
import dev.weft.store.sql.ParallelScans;
import dev.weft.store.sql.SqlConnection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The parts of a split scan beyond the first, on idle connections of the primary's pool, each in
 * a read-only repeatable-read transaction on the querying transaction's own snapshot
 * ({@code pg_export_snapshot}): the parts together see exactly what one transaction would. A
 * connection is taken only while another stays idle for the small reads or the pool may still
 * grow; a read on a replica is not split.
 */
final class PgScanHelpers implements ParallelScans.Helpers {
    /** Idle connections a split leaves in the pool for everything else. */
    private static final int KEEP_IDLE = 1;

    private final HikariDataSource pool;

    PgScanHelpers(HikariDataSource pool) {
        this.pool = pool;
    }

    @Override
    public SqlConnection tryTake(SqlConnection main, QueryTime time) throws SQLException {
        var state = pool.getHikariPoolMXBean();
        if (state == null || (state.getIdleConnections() <= KEEP_IDLE
                && state.getTotalConnections() >= pool.getMaximumPoolSize())) {
            return null;
        }
        String snapshot;
        // a replica (in recovery) is not asked to export: the helpers read the primary
        try (ResultSet rs = main.prepare("SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_export_snapshot() END")
                .executeQuery()) {
            rs.next();
            snapshot = rs.getString(1);
        }
        if (snapshot == null) {
            return null;
        }
        SqlConnection sql = new SqlConnection(pool.getConnection());
        try {
            sql.connection().setAutoCommit(false);
            sql.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            sql.exec("SET TRANSACTION SNAPSHOT '" + snapshot.replace("'", "''") + "'");
            sql.exec("SET LOCAL statement_timeout = " + time.remainingMs());
            return sql;
        } catch (SQLException e) {
            giveBack(sql);
            return null;
        }
    }

    @Override
    public void giveBack(SqlConnection helper) {
        try {
            helper.connection().rollback();
        } catch (SQLException ignored) {
            // the connection goes back either way; the pool tests it
        }
        helper.close();
    }
}
