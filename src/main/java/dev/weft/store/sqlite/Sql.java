package dev.weft.store.sqlite;

import dev.weft.store.QueryTime;
import dev.weft.store.sql.SqlConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.sqlite.ProgressHandler;
import org.sqlite.core.Codes;
import org.sqlite.core.CoreStatement;

/**
 * A SQLite connection of this store: the engine's {@link SqlConnection} with a deadline that
 * interrupts a statement even inside a long native step, and a statement cache that knows when
 * sqlite-jdbc has finalized a statement under it.
 */
final class Sql extends SqlConnection {
    /** SQLite VM operations between two looks at the deadline: a few dozen rows. */
    private static final int PROGRESS_OPS = 10_000;

    private volatile long deadlineNanos;

    Sql(Connection connection) {
        super(connection);
    }

    /**
     * Makes a statement of this connection stop with SQLITE_INTERRUPT once the deadline set by
     * {@link #limit} passes, also inside a long native step (a count, an index walk) that hands
     * no row to Java meanwhile.
     */
    void interruptible() throws SQLException {
        ProgressHandler.setHandler(connection(), PROGRESS_OPS, new ProgressHandler() {
            @Override
            protected int progress() {
                long deadline = deadlineNanos;
                return deadline != 0 && System.nanoTime() - deadline > 0 ? 1 : 0;
            }
        });
    }

    /**
     * Runs a read transaction's {@code BEGIN}, {@code COMMIT} or {@code ROLLBACK} straight through
     * SQLite. sqlite-jdbc's execute follows each statement that ends while the connection is in
     * autocommit mode with a check of its own (it steps a {@code BEGIN}, and when that succeeds a
     * {@code COMMIT}, so that no transaction is left open): three more steps for every read
     * transaction, about as much as the transaction's own statements. A reader's transactions
     * are opened and closed here in pairs, so the check has nothing to find; the statement stays
     * cached and usable when its step fails (sqlite-jdbc would have finalized it).
     */
    void readControl(String sql) throws SQLException {
        stepOnce(sql, Codes.SQLITE_DONE);
    }

    /**
     * Inside a read transaction just begun, makes SQLite take its snapshot now (a deferred BEGIN
     * takes it at the first read): one step of a read of a small table, without the result set
     * (and its column names) sqlite-jdbc would make for it. The snapshot stays until COMMIT.
     */
    void pinSnapshot() throws SQLException {
        stepOnce("SELECT count(*) FROM weft_dbs", Codes.SQLITE_ROW);
    }

    /** One step of a cached parameterless statement, then its reset; fails unless the step answered {@code expected}. */
    private void stepOnce(String sql, int expected) throws SQLException {
        PreparedStatement ps = prepare(sql);
        if (!(ps instanceof CoreStatement core)) {
            ps.execute();
            return;
        }
        int rc = core.pointer.safeRunInt((db, ptr) -> {
            int step = db.step(ptr);
            db.reset(ptr);
            return step;
        });
        if (rc != expected) {
            core.conn.getDatabase().throwex(rc);
        }
    }

    /** The deadline of the query this connection runs now; null: none. */
    void limit(QueryTime time) {
        deadlineNanos = time == null ? 0 : time.deadlineNanos();
    }

    /**
     * sqlite-jdbc finalizes a statement whose step failed with anything but busy, locked,
     * constraint or misuse (a full disk, an I/O error, an interrupt), and the statement object
     * then fails every later use with "statement is not executing": so it is prepared anew.
     */
    @Override
    protected boolean unusable(PreparedStatement ps) {
        return ps instanceof CoreStatement core && core.pointer.isClosed();
    }
}
