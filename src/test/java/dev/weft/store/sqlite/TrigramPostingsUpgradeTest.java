package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trigram index kept in the former layout (one row per trigram and document in a generic
 * {@code (key, id)} table) is rebuilt as FTS5 trigram postings when the store opens: lookups and
 * writes work on it, and the old table is gone.
 */
class TrigramPostingsUpgradeTest {
    @TempDir
    Path dir;

    @Test
    void aTrigramIndexOfTheFormerLayoutIsRebuiltOnOpen() throws Exception {
        StoreTesting.assumeQueryImplemented();
        Namespace ns = new Namespace("tri", "c");
        try (SqliteStore store = StoreTesting.open(dir)) {
            store.putDatabase("tri", obj("{}"), Optional.empty());
            store.putCollection(ns, obj("{}"), Optional.empty());
            store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1,\"u\":\"https://apache.org\"}"),
                    obj("{\"_id\":2,\"u\":[\"x\",\"https://example.com\"]}"))));
            store.createIndex(ns, IndexSpec.trigram("u_tri", "u"));
        }
        String table;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("weft.db"));
             Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT id FROM weft_indexes WHERE name = 'u_tri'")) {
                rs.next();
                table = "i" + rs.getLong(1);
            }
            s.execute("DROP TABLE " + table + "_t");
            s.execute("DROP TABLE " + table);
            // the former layout, empty: an answer read from it would be empty
            s.execute("CREATE TABLE " + table + "(key BLOB NOT NULL, id BLOB NOT NULL, PRIMARY KEY(key, id)) WITHOUT ROWID");
        }
        try (SqliteStore store = StoreTesting.open(dir)) {
            assertThat(ids(store, ns, "apache")).containsExactly("1");
            assertThat(ids(store, ns, "example")).containsExactly("2");
            assertThat(store.lastPlan().description()).startsWith("TRIGRAMS");
            store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":3,\"u\":\"svn.apache.org\"}"))));
            assertThat(ids(store, ns, "apache")).containsExactlyInAnyOrder("1", "3");
            assertThat(tables(table)).isEqualTo(List.of(table, table + "_t"));
            assertThat(number("SELECT count(*) FROM " + table + " WHERE n > 0")).isEqualTo(3);
            // dropped with the index: its tables and FTS5's own
            store.dropIndex(ns, "u_tri");
            assertThat(tables(table)).isEmpty();
        }
    }

    /** The tables named {@code table} or {@code table_t} (FTS5's shadow tables left out). */
    private List<String> tables(String table) throws Exception {
        List<String> names = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("weft.db"));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name FROM sqlite_master WHERE name IN ('"
                     + table + "', '" + table + "_t') ORDER BY name")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }

    private long number(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("weft.db"));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Hinted, so the trigram index answers whatever the planner's estimate. */
    private static List<String> ids(SqliteStore store, Namespace ns, String regex) {
        List<String> out = new ArrayList<>();
        Filter f = Filter.parse(obj("{\"u\":{\"$regex\":\"" + regex + "\"}}"), LIMITS);
        store.find(ns, new FindQuery(f, null, 0, 100, Optional.of("u_tri")),
                d -> out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
        return out;
    }
}
