package dev.weft.store.sqlite;

import dev.weft.store.sql.ByteRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.sqlite.core.Codes;
import org.sqlite.core.CoreResultSet;
import org.sqlite.core.CoreStatement;
import org.sqlite.core.DB;

/**
 * A scan's rows stepped straight through sqlite-jdbc's {@link DB} (as {@link Sql#readControl}
 * steps its statements): one {@code step} and one {@code column_blob} a row, the calls sqlite-jdbc
 * makes itself, without its result set's wrappers around each (a {@code safeRun} with its lambda
 * and its own lock of the database, the open and column checks). Measured on one thread over 1M
 * seed-000 rows, 25 rounds in turns: ~16 ns of the ~440 a row costs to reach Java, lower in 18
 * rounds of 25 (bench/results/scan-rows-1.txt); holding the lock around the whole read as well
 * saved nothing more.
 *
 * <p>The result set stays the owner of the statement: sqlite-jdbc's {@code executeQuery} has
 * already stepped to the first row (its {@code emptyResultSet} says whether there was one), and
 * closing the result set resets the statement, whether it was stepped to its end or not. A
 * failed step throws what sqlite-jdbc's {@code next} throws ({@link DB#throwex}): the same
 * {@code SQLiteException}, its code (an interrupt past the deadline, a busy database) as the
 * store classifies it.
 */
final class SteppedRows implements ByteRows {
    private final DB db;
    private final long stmt;
    private final CoreResultSet rs;
    private boolean started;

    private SteppedRows(DB db, long stmt, CoreResultSet rs) {
        this.db = db;
        this.stmt = stmt;
        this.rs = rs;
    }

    /** The rows of {@code rs} from {@code ps}, stepped directly when both are sqlite-jdbc's; else through JDBC. */
    static ByteRows of(PreparedStatement ps, ResultSet rs) throws SQLException {
        if (ps instanceof CoreStatement core && rs instanceof CoreResultSet crs && !core.pointer.isClosed()) {
            return new SteppedRows(core.getDatabase(), core.pointer.safeRunLong((db, ptr) -> ptr), crs);
        }
        return ByteRows.of(rs);
    }

    @Override
    public boolean next() throws SQLException {
        if (!started) {
            started = true;
            return rs.isOpen() && !rs.emptyResultSet; // executeQuery stepped to the first row
        }
        int rc = db.step(stmt);
        if (rc == Codes.SQLITE_ROW) {
            return true;
        }
        if (rc != Codes.SQLITE_DONE) {
            db.throwex(rc);
        }
        return false;
    }

    @Override
    public byte[] bytes(int column) throws SQLException {
        return db.column_blob(stmt, column - 1);
    }
}
