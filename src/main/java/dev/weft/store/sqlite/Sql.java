package dev.weft.store.sqlite;

import dev.weft.store.QueryTime;
import dev.weft.store.sql.SqlConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.sqlite.ProgressHandler;
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
