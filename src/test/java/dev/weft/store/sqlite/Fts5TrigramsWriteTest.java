package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * A write's documents enter a trigram index in one statement per table (their texts as a JSON
 * array): every character survives the trip, and each document is found by its own literal.
 */
class Fts5TrigramsWriteTest {
    /** Strings with what JSON escapes or SQLite could misread: quotes, backslashes, controls, line feeds, astral characters. */
    private static final List<String> ODD = List.of("quo\"te", "back\\slash", "line\nfeed", "tab\there", "ctl\u0001x",
            "é accent", "中文字符", "emoji 😀 face", "per%cent_under", "'single'", "[1,2]", "{\"k\":1}");

    @TempDir
    Path dir;

    @Test
    void aWritesDocumentsGoInWholeEveryCharacterKept() throws Exception {
        StoreTesting.assumeQueryImplemented();
        Namespace ns = new Namespace("tri", "c");
        try (SqliteStore store = StoreTesting.open(dir)) {
            store.putDatabase("tri", obj("{}"), Optional.empty());
            store.putCollection(ns, obj("{}"), Optional.empty());
            store.createIndex(ns, IndexSpec.trigram("u_tri", "u"));
            List<ObjectNode> docs = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                ObjectNode doc = Json.NODES.objectNode().put("_id", i);
                doc.putArray("u").add("https://host" + i + ".example/" + ODD.get(i % ODD.size()) + "/z" + i + "z").add("x");
                docs.add(doc);
            }
            assertThat(store.write(new WriteOp.InsertMany(ns, docs)).ok()).isTrue();
            for (int i = 0; i < 1000; i += 37) {
                String literal = "host" + i + ".example/" + ODD.get(i % ODD.size()) + "/z" + i + "z";
                assertThat(ids(store, ns, java.util.regex.Pattern.quote(literal))).as(literal).containsExactly(String.valueOf(i));
            }
            assertThat(ids(store, ns, "😀 face/z7z")).containsExactly("7");
            assertThat(ids(store, ns, "HOST99\\.EXAMPLE")).isEmpty();
        }
    }

    /**
     * An index whose pending table holds a row per document (an older Weft) has those documents
     * put into FTS5 at open and the table made again as chunks; the lookups find documents in
     * FTS5, in a chunk, and not one removed while pending.
     */
    @Test
    void aRowPerDocumentPendingTableIsPutIntoFts5AtOpenAndChunksServeLookups() throws Exception {
        PendingPostings pending = new PendingPostings();
        Fts5Trigrams trigrams = new Fts5Trigrams(1000, pending);
        try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("old.db"))) {
            for (String ddl : List.of("CREATE TABLE ix(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                    "CREATE VIRTUAL TABLE ix_t USING fts5(s, content='', contentless_delete=1, detail=none,"
                            + " tokenize='trigram case_sensitive 1')",
                    "CREATE TABLE ix_p(n INTEGER PRIMARY KEY, s TEXT NOT NULL)",
                    "INSERT INTO ix(n, id) VALUES (1, x'01'), (2, x'02')",
                    "INSERT INTO ix_t(rowid, s) VALUES (1, 'rare one')",
                    "INSERT INTO ix_p(n, s) VALUES (2, 'rare two')")) {
                c.createStatement().execute(ddl);
            }
            c.setAutoCommit(false);
            dev.weft.store.sql.SqlConnection sql = new dev.weft.store.sql.SqlConnection(c);
            trigrams.opened(sql, "ix");
            try (java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT group_concat(name) FROM pragma_table_info('ix_p')")) {
                assertThat(rs.getString(1)).isEqualTo("n,last,rows");
            }
            assertThat(lookedUp(c, trigrams, "rar")).containsExactlyInAnyOrder(1, 2);
            trigrams.addAll(sql, "ix", List.of(new byte[] {3}, new byte[] {4}),
                    List.of(new dev.weft.query.Trigrams.Indexed("rare \"three\""), new dev.weft.query.Trigrams.Indexed("other")));
            assertThat(pending.hasPending()).isTrue();
            assertThat(lookedUp(c, trigrams, "rar")).containsExactlyInAnyOrder(1, 2, 3);
            assertThat(lookedUp(c, trigrams, "\"th")).containsExactly(3);
            trigrams.remove(sql, "ix", new byte[] {3});
            assertThat(lookedUp(c, trigrams, "rar")).containsExactlyInAnyOrder(1, 2);
            trigrams.addAll(sql, "ix", List.of(new byte[] {5}), List.of(new dev.weft.query.Trigrams.Indexed("rare five")));
            pending.moveAll(sql, "ix");
            assertThat(lookedUp(c, trigrams, "rar")).containsExactlyInAnyOrder(1, 2, 5);
            try (java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT count(*), count(DISTINCT n) FROM ix")) {
                assertThat(rs.getInt(1)).isEqualTo(4);
                assertThat(rs.getInt(2)).isEqualTo(4);
            }
        }
    }

    /** The first byte of each id the lookup of one trigram returns. */
    private static List<Integer> lookedUp(java.sql.Connection c, Fts5Trigrams trigrams, String gram) throws Exception {
        var lookup = trigrams.lookup("ix", new dev.weft.query.Trigrams.Gram(gram.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        List<Integer> out = new ArrayList<>();
        try (java.sql.PreparedStatement ps = c.prepareStatement(lookup.sql())) {
            for (int i = 0; i < lookup.args().size(); i++) {
                ps.setObject(i + 1, lookup.args().get(i));
            }
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add((int) rs.getBytes(1)[0]);
                }
            }
        }
        return out;
    }

    /** Hinted, so the trigram index answers. */
    private static List<String> ids(SqliteStore store, Namespace ns, String regex) {
        List<String> out = new ArrayList<>();
        ObjectNode spec = Json.NODES.objectNode();
        spec.putObject("u").put("$regex", regex);
        Filter f = Filter.parse(spec, LIMITS);
        store.find(ns, new FindQuery(f, null, 0, 100, Optional.of("u_tri")), d -> out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
        return out;
    }
}
