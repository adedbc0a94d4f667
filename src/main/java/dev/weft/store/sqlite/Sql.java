package dev.weft.store.sqlite;

import dev.weft.store.QueryTime;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.sqlite.ProgressHandler;
import org.sqlite.core.CoreStatement;

/**
 * One SQLite connection with a bounded cache of prepared statements, keyed by SQL text. Used by
 * one thread at a time (the writer, or the reader that took it from the pool).
 */
final class Sql implements AutoCloseable {
    private static final int CACHE = 256;
    /** SQLite VM operations between two looks at the deadline: a few dozen rows. */
    private static final int PROGRESS_OPS = 10_000;

    private final Connection connection;
    private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(64, 0.75f, true);
    private volatile long deadlineNanos;

    Sql(Connection connection) {
        this.connection = connection;
    }

    Connection connection() {
        return connection;
    }

    /**
     * Makes a statement of this connection stop with SQLITE_INTERRUPT once the deadline set by
     * {@link #limit} passes, also inside a long native step (a count, an index walk) that hands
     * no row to Java meanwhile.
     */
    void interruptible() throws SQLException {
        ProgressHandler.setHandler(connection, PROGRESS_OPS, new ProgressHandler() {
            @Override
            protected int progress() {
                long deadline = deadlineNanos;
                // an interrupted thread is a parallel scan's helper whose query already failed
                return (deadline != 0 && System.nanoTime() - deadline > 0) || Thread.currentThread().isInterrupted() ? 1 : 0;
            }
        });
    }

    /** The deadline of the query this connection runs now; null: none. */
    void limit(QueryTime time) {
        deadlineNanos = time == null ? 0 : time.deadlineNanos();
    }

    /** A cached statement with its parameters cleared. */
    PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps != null && finalizedByDriver(ps)) {
            statements.remove(sql);
            closeQuietly(ps);
            ps = null;
        }
        if (ps == null) {
            ps = connection.prepareStatement(sql);
            statements.put(sql, ps);
            if (statements.size() > CACHE) {
                Iterator<PreparedStatement> eldest = statements.values().iterator();
                PreparedStatement old = eldest.next();
                eldest.remove();
                closeQuietly(old);
            }
        } else {
            ps.clearParameters();
        }
        return ps;
    }

    /**
     * sqlite-jdbc finalizes a statement whose step failed with anything but busy, locked,
     * constraint or misuse (a full disk, an I/O error, an interrupt), and the statement object
     * then fails every later use with "statement is not executing": so it is prepared anew.
     */
    private static boolean finalizedByDriver(PreparedStatement ps) {
        return ps instanceof CoreStatement core && core.pointer.isClosed();
    }

    /** Runs a frequent parameterless statement (transaction control) through the cache. */
    void control(String sql) throws SQLException {
        prepare(sql).execute();
    }

    /** Runs a one-off parameterless statement (DDL, pragmas). */
    void exec(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /** Drops cached statements (after DDL removed the tables some of them read). */
    void forgetStatements() {
        statements.values().forEach(Sql::closeQuietly);
        statements.clear();
    }

    private static void closeQuietly(PreparedStatement ps) {
        try {
            ps.close();
        } catch (SQLException ignored) {
            // closing a statement of a dropped table may complain; it is gone either way
        }
    }

    @Override
    public void close() {
        forgetStatements();
        try {
            connection.close();
        } catch (SQLException ignored) {
            // nothing to do at shutdown
        }
    }
}
