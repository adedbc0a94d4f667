package dev.weft.store.sqlite;

import dev.weft.store.MemoryOnly;
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
    /** A read transaction asked for and not yet begun: the first statement prepared begins it ({@link #deferSnapshot}). */
    private SnapshotCheck deferred;
    /** Whether this connection is inside a read transaction it began ({@link #beginSnapshot}). */
    private boolean inSnapshot;

    /**
     * What a deferred read transaction checks right after it has pinned its snapshot: that what
     * the read looked at in memory before (the catalog, multikey flags) still holds for it.
     */
    interface SnapshotCheck {
        /** Throws {@link StaleSnapshot} when the read must start over with its snapshot pinned first. */
        void verify() throws StaleSnapshot;
    }

    /** The catalog changed between a deferred read's start and its snapshot: the read starts over. */
    static final class StaleSnapshot extends SQLException {
        StaleSnapshot() {
            super("the catalog changed before the read's snapshot was taken", null, 0, null);
        }
    }

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
    private void readControl(String sql) throws SQLException {
        stepOnce(sql, Codes.SQLITE_DONE);
    }

    /**
     * Inside a read transaction just begun, makes SQLite take its snapshot now (a deferred BEGIN
     * takes it at the first read): one step of a read of a small table, without the result set
     * (and its column names) sqlite-jdbc would make for it. The snapshot stays until COMMIT.
     */
    private void pinSnapshot() throws SQLException {
        stepOnce("SELECT count(*) FROM weft_dbs", Codes.SQLITE_ROW);
    }

    /** Begins a read transaction and pins its snapshot (SQLite takes it at the first read). */
    void beginSnapshot() throws SQLException {
        deferred = null;
        readControl("BEGIN");
        inSnapshot = true;
        pinSnapshot();
    }

    /**
     * Asks for a read transaction begun only when the read first runs a statement: a read answered
     * from memory (the held rows of a small collection, with every planning count remembered)
     * then costs no BEGIN, snapshot and COMMIT (5-9% of the samples of such a find under load,
     * bench/results/held-snapshot-1.txt). {@code check} runs right after the snapshot is pinned.
     */
    void deferSnapshot(SnapshotCheck check) {
        deferred = check;
    }

    /** Ends the read transaction (COMMIT) if one was begun; forgets one asked for and never begun. */
    void endSnapshot() throws SQLException {
        deferred = null;
        if (inSnapshot) {
            inSnapshot = false;
            readControl("COMMIT");
        }
    }

    /** Rolls back the read transaction if one was begun (after a failure); never throws. */
    void abandonSnapshot() {
        deferred = null;
        if (inSnapshot) {
            inSnapshot = false;
            try {
                readControl("ROLLBACK");
            } catch (SQLException ignored) {
                // no transaction left
            }
        }
    }

    /** A cached statement; the first one of a deferred read transaction begins it and checks its snapshot. */
    @Override
    public PreparedStatement prepare(String sql) throws SQLException {
        MemoryOnly.refuse(); // a statement may wait on SQLite's locks and the disk
        if (deferred != null) {
            SnapshotCheck check = deferred;
            beginSnapshot();
            check.verify();
        }
        return super.prepare(sql);
    }

    /** One step of a cached parameterless statement, then its reset; fails unless the step answered {@code expected}. */
    private void stepOnce(String sql, int expected) throws SQLException {
        PreparedStatement ps = super.prepare(sql);
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
