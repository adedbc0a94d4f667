package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.filter;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/** Document heads on SQLite: what each write stores, and a data directory written before heads. */
class DocumentHeadStoreTest {
    private static final Namespace NS = new Namespace("heads", "docs");
    private static final List<String> FILTERS = List.of("{}", "{\"k\":{\"$gt\":10}}", "{\"k.deep\":{\"$lt\":30}}",
            "{\"big\":{\"$exists\":false}}", "{\"k\":{\"$type\":\"string\"}}", "{\"n\":{\"$gte\":20}}");

    @TempDir
    Path dir;

    private static List<ObjectNode> documents() {
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            String k = i % 3 == 0 ? "\"" + "long".repeat(40) + i + "\"" : i % 3 == 1 ? "{\"deep\":" + i + "}" : String.valueOf(i);
            docs.add(obj("{\"_id\":" + i + ",\"n\":" + (i * 7 % 60) + ",\"k\":" + k
                    + (i % 5 == 0 ? "" : ",\"big\":\"" + "b".repeat(300) + "\"") + "}"));
        }
        return docs;
    }

    private static List<String> answers(SqliteStore store) {
        List<String> out = new ArrayList<>();
        for (String f : FILTERS) {
            Filter filter = filter(f);
            out.add(f + " count " + store.count(NS, filter));
            List<String> page = new ArrayList<>();
            store.find(NS, new FindQuery(filter, Sort.parse("{\"n\":-1}", LIMITS), 2, 5, Optional.empty()),
                    d -> page.add(JSON.parse(d.json(), "doc").get("_id").asText()));
            out.add(f + " page " + page);
        }
        return out;
    }

    private long rowsWithHeads() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("weft.db"));
             var rs = c.createStatement().executeQuery("SELECT count(head) FROM d1")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The same answers from the reference evaluator over {@code docs}. */
    private static List<String> reference(List<ObjectNode> docs) {
        List<String> out = new ArrayList<>();
        Sort sort = Sort.parse("{\"n\":-1}", LIMITS);
        java.util.Comparator<tools.jackson.databind.JsonNode> order = sort.comparator()
                .thenComparing((a, b) -> dev.weft.query.Values.compare(a.get("_id"), b.get("_id")));
        for (String f : FILTERS) {
            Filter filter = filter(f);
            out.add(f + " count " + docs.stream().filter(filter::matches).count());
            out.add(f + " page " + docs.stream().filter(filter::matches).sorted(order).skip(2).limit(5)
                    .map(d -> d.get("_id").asText()).toList());
        }
        return out;
    }

    @Test
    void aDataDirectoryWrittenBeforeHeadsOpensAndAnswersTheSame() throws SQLException {
        List<ObjectNode> docs = documents();
        try (SqliteStore store = StoreTesting.open(dir, "--document-head-bytes", "64")) {
            store.putDatabase("heads", obj("{}"), Optional.empty());
            store.putCollection(NS, obj("{}"), Optional.empty());
            assertThat(store.write(new WriteOp.InsertMany(NS, documents())).ok()).isTrue();
            assertThat(answers(store)).isEqualTo(reference(docs));
        }
        // the 48 documents with "big" (300 B): the twelve without it are too small for a head of at
        // most a quarter of them (DocumentHead.stored), and are read whole
        assertThat(rowsWithHeads()).isEqualTo(48);
        try (SqliteStore store = StoreTesting.open(dir, "--document-head-bytes", "64")) {
            assertThat(answers(store)).isEqualTo(reference(docs)); // a data directory with heads opens again as it is
        }
        assertThat(rowsWithHeads()).isEqualTo(48);
        // the table as a version before heads wrote it: no head, no rest
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("weft.db")); var s = c.createStatement()) {
            s.execute("ALTER TABLE d1 DROP COLUMN head");
            s.execute("ALTER TABLE d1 DROP COLUMN rest");
        }
        try (SqliteStore store = StoreTesting.open(dir, "--document-head-bytes", "64")) {
            assertThat(rowsWithHeads()).isZero();
            assertThat(answers(store)).isEqualTo(reference(docs));
            // a row written again gets its head, and the answers follow the write
            assertThat(store.write(new WriteOp.UpdateMany(NS, filter("{\"_id\":{\"$in\":[7,11]}}"),
                    dev.weft.query.Update.parse(JSON.parse("{\"$set\":{\"n\":99},\"$unset\":{\"k\":1}}", "u"), LIMITS))).ok())
                    .isTrue();
            assertThat(rowsWithHeads()).isEqualTo(2);
            for (ObjectNode d : docs) {
                if (d.get("_id").asInt() == 7 || d.get("_id").asInt() == 11) {
                    d.put("n", 99);
                    d.remove("k");
                }
            }
            assertThat(answers(store)).isEqualTo(reference(docs));
        }
    }
}
