package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.store.QueryTime;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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

    private static long rows(Sql sql) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT count(*) FROM t").executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Connection walFile(Path dir) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("t.db"));
        try (var st = c.createStatement()) {
            st.execute("PRAGMA journal_mode = WAL");
        }
        return c;
    }

    @Test
    void aDeferredReadTransactionBeginsAtTheFirstStatementAndHoldsItsSnapshotUntilItEnds(@TempDir Path dir) throws Exception {
        try (Connection writer = walFile(dir); Sql reader = new Sql(walFile(dir))) {
            writer.createStatement().execute("CREATE TABLE t (x)");
            writer.createStatement().execute("CREATE TABLE weft_dbs (name)"); // what a snapshot is pinned by
            writer.createStatement().execute("INSERT INTO t VALUES (1)");
            int[] checks = {0};
            reader.deferSnapshot(() -> checks[0]++);
            writer.createStatement().execute("INSERT INTO t VALUES (2)"); // before the first statement: seen
            assertThat(checks[0]).isZero();
            assertThat(rows(reader)).isEqualTo(2);
            assertThat(checks[0]).isEqualTo(1);
            writer.createStatement().execute("INSERT INTO t VALUES (3)"); // after it: not in this snapshot
            assertThat(rows(reader)).isEqualTo(2);
            assertThat(checks[0]).isEqualTo(1);
            reader.endSnapshot();
            assertThat(rows(reader)).isEqualTo(3); // autocommit again: each statement sees the latest commit
        }
    }

    @Test
    void aDeferredReadTransactionNeverBegunEndsWithoutACommit() throws Exception {
        try (Sql sql = new Sql(DriverManager.getConnection("jdbc:sqlite::memory:"))) {
            sql.deferSnapshot(() -> {
                throw new AssertionError("no statement ran, so no snapshot was taken to check");
            });
            sql.endSnapshot(); // a COMMIT outside a transaction would fail
            sql.abandonSnapshot();
            assertThat(count(sql, 3)).isEqualTo(3);
        }
    }

    @Test
    void aStaleCheckFailsTheFirstStatementAndAbandoningEndsTheTransaction(@TempDir Path dir) throws Exception {
        try (Connection writer = walFile(dir); Sql reader = new Sql(walFile(dir))) {
            writer.createStatement().execute("CREATE TABLE t (x)");
            writer.createStatement().execute("CREATE TABLE weft_dbs (name)"); // what a snapshot is pinned by
            reader.deferSnapshot(() -> {
                throw new Sql.StaleSnapshot();
            });
            assertThatThrownBy(() -> rows(reader)).isInstanceOf(Sql.StaleSnapshot.class);
            reader.abandonSnapshot();
            writer.createStatement().execute("INSERT INTO t VALUES (1)");
            assertThat(rows(reader)).isEqualTo(1); // the snapshot of the failed read was let go
            reader.beginSnapshot();
            writer.createStatement().execute("INSERT INTO t VALUES (2)");
            assertThat(rows(reader)).isEqualTo(1);
            reader.endSnapshot();
        }
    }

    @Test
    void underMemoryOnlyNoStatementRunsAndNoTransactionBegins(@TempDir Path dir) throws Exception {
        try (Connection writer = walFile(dir); Sql reader = new Sql(walFile(dir))) {
            writer.createStatement().execute("CREATE TABLE t (x)");
            writer.createStatement().execute("CREATE TABLE weft_dbs (name)");
            reader.deferSnapshot(() -> {
                throw new AssertionError("a refused read takes no snapshot");
            });
            var answered = dev.weft.store.MemoryOnly.attempt(1_000_000_000L, () -> {
                try {
                    rows(reader);
                    return true;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(answered).isEqualTo(dev.weft.store.MemoryOnly.Outcome.WOULD_WAIT);
            reader.endSnapshot(); // nothing begun: no COMMIT to fail
            writer.createStatement().execute("INSERT INTO t VALUES (1)");
            assertThat(rows(reader)).isEqualTo(1);
        }
    }
}
