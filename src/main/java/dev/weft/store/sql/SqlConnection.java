package dev.weft.store.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One JDBC connection with a bounded cache of prepared statements, keyed by SQL text: the
 * handle every statement of the {@link SqlEngine} runs on. Used by one thread at a time (the
 * SQLite writer, or whoever took the connection from a pool).
 *
 * <p>Statements are cached, not closed after each use, because the engine runs the same few
 * texts over and over (a chunk of a scan, a key insert per index): a long-lived connection
 * (SQLite's) keeps them for its lifetime, a pooled one (PostgreSQL's) for one borrowing, and
 * {@link #close} closes them with the connection (returning a pooled one to its pool).
 */
public class SqlConnection implements AutoCloseable {
    private static final int CACHE = 256;

    private final Connection connection;
    private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(64, 0.75f, true);

    public SqlConnection(Connection connection) {
        this.connection = connection;
    }

    public Connection connection() {
        return connection;
    }

    /** A cached statement with its parameters cleared. */
    public PreparedStatement prepare(String sql) throws SQLException {
        PreparedStatement ps = statements.get(sql);
        if (ps != null && unusable(ps)) {
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

    /** Whether a cached statement can no longer run and must be prepared anew (a driver's quirk). */
    protected boolean unusable(PreparedStatement ps) {
        return false;
    }

    /** What {@link #assumedBody} answers for a document it knows is not stored. */
    public static final byte[] ABSENT = new byte[0];

    /**
     * Reads and locks the documents {@code ids} of {@code table} (those stored) in one go, for the
     * loads of the same op that follow ({@link #assumedBody}); a connection may do nothing here,
     * and then each load reads its document.
     */
    public void lockAll(String table, java.util.List<byte[]> ids) throws SQLException {
        // each load reads and locks its own document
    }

    /**
     * The stored bytes a write on this connection may assume for the document {@code id} of
     * {@code table} without reading it ({@link #ABSENT}: none is stored), or null to read it. A
     * connection that answers must have locked the row, or make its transaction fail unless they
     * are still the stored bytes when it commits.
     */
    public byte[] assumedBody(String table, byte[] id) throws SQLException {
        return null;
    }

    /** Runs a frequent parameterless statement (transaction control, savepoints) through the cache. */
    public void control(String sql) throws SQLException {
        prepare(sql).execute();
    }

    /** Runs a one-off parameterless statement (DDL, settings). */
    public void exec(String sql) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.execute(sql);
        }
    }

    /** Drops cached statements (after DDL removed the tables some of them read). */
    public void forgetStatements() {
        statements.values().forEach(SqlConnection::closeQuietly);
        statements.clear();
    }

    private static void closeQuietly(PreparedStatement ps) {
        try {
            ps.close();
        } catch (SQLException ignored) {
            // closing a statement of a dropped table may complain; it is gone either way
        }
    }

    /** Closes the statements and the connection (a pooled connection goes back to its pool). */
    @Override
    public void close() {
        forgetStatements();
        try {
            connection.close();
        } catch (SQLException ignored) {
            // nothing to do: the connection is gone either way
        }
    }
}
