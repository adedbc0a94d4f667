package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.store.QueryTime;
import dev.weft.store.sql.ByteRows;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/** {@link SteppedRows} reads what sqlite-jdbc's result set reads, row for row, and leaves its statement reusable. */
class SteppedRowsTest {
    private static final String ROWS = "WITH RECURSIVE n(i) AS (SELECT 1 WHERE ? > 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            + " SELECT CAST('body ' || i AS BLOB), CASE WHEN i % 3 = 0 THEN NULL ELSE CAST('id ' || i AS BLOB) END FROM n";

    /** Reads up to {@code max} rows of {@link #ROWS} with {@code n} rows, both columns, through {@code direct} or JDBC. */
    private static List<String> read(Sql sql, int n, int max, boolean direct) throws SQLException {
        PreparedStatement ps = sql.prepare(ROWS);
        ps.setInt(1, n);
        ps.setInt(2, n);
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            ByteRows rows = direct ? SteppedRows.of(ps, rs) : ByteRows.of(rs);
            while (out.size() < max && rows.next()) {
                byte[] id = rows.bytes(2);
                out.add(text(rows.bytes(1)) + "/" + (id == null ? "null" : text(id)));
            }
        }
        return out;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void readsEveryRowAsTheResultSetDoesFromNoneToMany() throws Exception {
        try (Sql sql = new Sql(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            for (int n : new int[] {0, 1, 2, 3, 1000}) {
                List<String> direct = read(sql, n, Integer.MAX_VALUE, true);
                assertThat(direct).hasSize(n).isEqualTo(read(sql, n, Integer.MAX_VALUE, false));
                if (n > 0) {
                    assertThat(direct.getFirst()).isEqualTo("body 1/id 1");
                    assertThat(direct.getLast()).isEqualTo("body " + n + "/" + (n % 3 == 0 ? "null" : "id " + n));
                }
            }
        }
    }

    @Test
    void aReadStoppedEarlyLeavesTheCachedStatementToStartAgain() throws Exception {
        try (Sql sql = new Sql(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            assertThat(read(sql, 100, 5, true)).containsExactly("body 1/id 1", "body 2/id 2", "body 3/null", "body 4/id 4",
                    "body 5/id 5");
            assertThat(read(sql, 100, Integer.MAX_VALUE, true)).hasSize(100).startsWith("body 1/id 1");
        }
    }

    @Test
    void aStepThatFailsThrowsSqlitesErrorAndTheStatementRunsAgain() throws Exception {
        String failing = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)"
                + " SELECT CASE WHEN i = 4 THEN json('{') ELSE CAST(i AS BLOB) END FROM n";
        try (Sql sql = new Sql(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            for (int attempt = 0; attempt < 2; attempt++) {
                PreparedStatement ps = sql.prepare(failing);
                List<String> seen = new ArrayList<>();
                assertThatThrownBy(() -> {
                    try (ResultSet rs = ps.executeQuery()) {
                        ByteRows rows = SteppedRows.of(ps, rs);
                        while (rows.next()) {
                            seen.add(text(rows.bytes(1)));
                        }
                    }
                }).isInstanceOf(SQLiteException.class).hasMessageContaining("malformed JSON");
                assertThat(seen).containsExactly("1", "2", "3");
            }
        }
    }

    @Test
    void aStepPastTheQueryDeadlineIsInterrupted() throws Exception {
        try (Sql sql = new Sql(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            sql.interruptible();
            QueryTime time = QueryTime.start(20);
            sql.limit(time);
            assertThatThrownBy(() -> read(sql, 2_000_000_000, Integer.MAX_VALUE, true))
                    .isInstanceOfSatisfying(SQLiteException.class,
                            e -> assertThat(e.getResultCode()).isEqualTo(SQLiteErrorCode.SQLITE_INTERRUPT));
            sql.limit(null);
            assertThat(read(sql, 10, Integer.MAX_VALUE, true)).hasSize(10);
        }
    }
}
