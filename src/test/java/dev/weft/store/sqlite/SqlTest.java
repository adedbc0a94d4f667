package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.store.QueryTime;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

class SqlTest {
    private static final String LONG_COUNT = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
            + " SELECT count(*) FROM n";

    private static long count(Sql sql, long upTo) throws SQLException {
        var ps = sql.prepare(LONG_COUNT);
        ps.setLong(1, upTo);
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aNativeStepPastTheDeadlineIsInterruptedAndItsStatementPreparedAnew() throws Exception {
        try (Sql sql = new Sql(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            sql.interruptible();
            assertThat(count(sql, 10)).isEqualTo(10);
            QueryTime time = QueryTime.start(20);
            sql.limit(time);
            long started = System.nanoTime();
            assertThatThrownBy(() -> count(sql, 10_000_000_000L)).isInstanceOfSatisfying(SQLiteException.class,
                    e -> assertThat(e.getResultCode()).isEqualTo(SQLiteErrorCode.SQLITE_INTERRUPT));
            assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(5_000);
            assertThat(time.expired()).isTrue();
            sql.limit(null);
            // sqlite-jdbc finalized the interrupted statement; the cache must not hand it out again
            assertThat(count(sql, 1000)).isEqualTo(1000);
        }
    }
}
