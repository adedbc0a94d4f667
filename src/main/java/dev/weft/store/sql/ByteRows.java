package dev.weft.store.sql;

import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The rows of a query just run, each column read as bytes: what a scan needs of a result (a
 * body, an id), and all it asks of it. {@link #of} reads them the JDBC way; a {@link Dialect}
 * may read its driver's rows more directly ({@link Dialect#byteRows}), for scans that hand a
 * million rows to Java, where the driver's own bookkeeping per row costs about as much as a
 * short document's filter.
 *
 * <p>Used by one thread, while the result is open; {@link #bytes} only after {@link #next}
 * answered true, and only until the next call of it.
 */
public interface ByteRows {
    /** Moves to the next row; false when there is none. */
    boolean next() throws SQLException;

    /** The value of {@code column} (1-based) of the current row, as bytes (null for SQL NULL). */
    byte[] bytes(int column) throws SQLException;

    /** The rows of {@code rs} through JDBC. */
    static ByteRows of(ResultSet rs) {
        return new ByteRows() {
            @Override
            public boolean next() throws SQLException {
                return rs.next();
            }

            @Override
            public byte[] bytes(int column) throws SQLException {
                return rs.getBytes(column);
            }
        };
    }
}
