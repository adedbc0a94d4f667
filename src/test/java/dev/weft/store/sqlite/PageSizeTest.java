package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sqlite-page-size: new data directories get it, existing ones keep theirs and keep working. */
class PageSizeTest {
    private static final Namespace NS = new Namespace("db", "c");

    @Test
    void aNewDataDirectoryGetsTheDefaultPageSize(@TempDir Path dir) throws Exception {
        try (SqliteStore store = StoreTesting.open(dir)) {
            store.putDatabase("db", obj("{}"), Optional.empty());
        }
        assertThat(pageSize(dir)).isEqualTo(16_384);
    }

    @Test
    void aNewDataDirectoryGetsTheConfiguredPageSize(@TempDir Path dir) throws Exception {
        try (SqliteStore store = StoreTesting.open(dir, "--sqlite-page-size", "65536")) {
            store.putDatabase("db", obj("{}"), Optional.empty());
        }
        assertThat(pageSize(dir)).isEqualTo(65_536);
        assertThat(journalMode(dir)).isEqualTo("wal");
    }

    @Test
    void anOldDataDirectoryKeepsItsPageSizeAndKeepsWorking(@TempDir Path dir) throws Exception {
        try (SqliteStore old = StoreTesting.open(dir, "--sqlite-page-size", "4096")) { // the old default
            old.putDatabase("db", obj("{}"), Optional.empty());
            old.putCollection(NS, obj("{}"), Optional.empty());
            assertThat(old.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":\"a\",\"x\":1}")))).ok()).isTrue();
        }
        try (SqliteStore store = StoreTesting.open(dir)) {
            assertThat(store.get(NS, StoreTesting.node("\"a\""))).isPresent();
            assertThat(store.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":\"b\",\"x\":2}")))).ok()).isTrue();
            assertThat(store.count(NS, Filter.all())).isEqualTo(2);
        }
        assertThat(pageSize(dir)).isEqualTo(4096);
    }

    @Test
    void aPageSizeThatIsNotAPowerOfTwoInRangeStopsStartupNamingTheSetting() {
        for (String bad : List.of("12288", "2048", "131072", "big")) {
            assertThatThrownBy(() -> Settings.parse(new String[] {"--sqlite-page-size", bad}, Map.of()))
                    .isInstanceOf(WeftException.class)
                    .hasMessageContaining("sqlite-page-size");
        }
        assertThatThrownBy(() -> Settings.parse(new String[] {"--sqlite-page-size", "12288"}, Map.of()))
                .hasMessage("setting sqlite-page-size must be a power of two between 4096 and 65536: 12288");
    }

    private static long pageSize(Path dir) throws Exception {
        return Long.parseLong(pragma(dir, "page_size"));
    }

    private static String journalMode(Path dir) throws Exception {
        return pragma(dir, "journal_mode");
    }

    private static String pragma(Path dir, String name) throws Exception {
        try (var c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("weft.db"));
             var s = c.createStatement(); var rs = s.executeQuery("PRAGMA " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
