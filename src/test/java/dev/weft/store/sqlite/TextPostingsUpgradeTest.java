package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
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
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A text index kept in a former layout (terms as rows of a generic (key, id) table, or FTS5
 * postings in one column) is rebuilt as the dialect's own postings (FTS5, a column per weight)
 * when the store opens: searches and writes work on it.
 */
class TextPostingsUpgradeTest {
    @TempDir
    Path dir;

    @Test
    void aTextIndexOfTheFormerLayoutIsRebuiltOnOpen() throws Exception {
        rebuiltOnOpenFrom(table -> List.of("DROP TABLE " + table + "_t", "DROP TABLE " + table,
                "CREATE TABLE " + table + "(key BLOB NOT NULL, id BLOB NOT NULL, PRIMARY KEY(key, id)) WITHOUT ROWID"));
    }

    /** Postings in one column {@code terms}, before the columns by weight (which bm25 weighs). */
    @Test
    void postingsWithoutColumnsByWeightAreRebuiltOnOpen() throws Exception {
        rebuiltOnOpenFrom(table -> List.of("DROP TABLE " + table + "_t", "DELETE FROM " + table,
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(terms, content='', contentless_delete=1,"
                        + " tokenize=\"ascii tokenchars ''''\")"));
    }

    private void rebuiltOnOpenFrom(java.util.function.Function<String, List<String>> formerLayout) throws Exception {
        StoreTesting.assumeQueryImplemented();
        Namespace ns = new Namespace("txt", "c");
        String table;
        try (SqliteStore store = StoreTesting.open(dir)) {
            store.putDatabase("txt", obj("{}"), Optional.empty());
            store.putCollection(ns, obj("{}"), Optional.empty());
            store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":1,\"t\":\"cold brew coffee\"}"),
                    obj("{\"_id\":2,\"t\":\"green tea\"}"))));
            store.createIndex(ns, IndexSpec.text("t", new TextIndex(Map.of("t", 1), TextLanguage.ENGLISH, "language")));
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("weft.db"));
             Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT id FROM weft_indexes WHERE name = 't'")) {
                rs.next();
                table = "i" + rs.getLong(1);
            }
            for (String ddl : formerLayout.apply(table)) {
                s.execute(ddl);
            }
        }
        try (SqliteStore store = StoreTesting.open(dir)) {
            assertThat(ids(store, ns, "coffee")).containsExactly("1");
            store.write(new WriteOp.InsertMany(ns, List.of(obj("{\"_id\":3,\"t\":\"coffees\"}"))));
            assertThat(ids(store, ns, "coffee")).containsExactlyInAnyOrder("1", "3");
            assertThat(ids(store, ns, "tea")).containsExactly("2");
        }
    }

    private static List<String> ids(SqliteStore store, Namespace ns, String search) {
        List<String> out = new ArrayList<>();
        Filter f = Filter.parse(obj("{\"$text\":{\"$search\":\"" + search + "\"}}"), LIMITS);
        store.find(ns, new FindQuery(f, null, 0, 100, Optional.empty()),
                d -> out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
        return out;
    }
}
