package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static dev.weft.http.TrigramIndexHttpTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/**
 * On SQLite a write's documents wait in a trigram index's pending table until the writer is idle
 * ({@code trigram-pending-idle-ms}, here a day, so they stay pending): a regex answered from the
 * index finds them, misses those deleted and the old text of those changed, under a readFilter
 * still sees only what the rule allows, and all of it across a restart and once the writer has
 * put them into FTS5. On PostgreSQL the settings do nothing and the answers are the same.
 */
class TrigramPendingHttpTest {
    private static final String KEEP_PENDING = "86400000";

    @Test
    void pendingDocumentsAreFoundDeletedAndChangedExactlyAcrossARestartAndOnceIndexed() throws Exception {
        TestServer weft = new TestServer("--trigram-pending-idle-ms", KEEP_PENDING);
        try {
            weft.createCollection("db", "c");
            assertThat(weft.put("/db/c/_indexes/url", "{\"keys\":{\"links.url\":\"trigram\"}}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", """
                    [{"_id":1,"links":[{"url":"https://apache.org"}]},
                     {"_id":2,"links":{"url":["http://PACH.example","x"]}},
                     {"_id":3,"links":[{"url":"https://pac.h"}]},
                     {"_id":4,"links":[{"url":"svn.apache.org"}]}]""").statusCode()).isEqualTo(200);
            assertThat(pending(weft)).isIn(-1L, 4L);
            assertThat(hinted(weft, "pach")).isEqualTo("[{\"_id\":1},{\"_id\":4}]");
            // a pending document deleted, another changed: neither is found by what it no longer holds
            assertThat(weft.delete("/db/c/4?id_type=NUMBER").statusCode()).isEqualTo(204);
            assertThat(weft.patch("/db/c/1?id_type=NUMBER", "{\"$set\":{\"links\":[{\"url\":\"https://example.com\"}]}}")
                    .statusCode()).isEqualTo(200);
            assertThat(pending(weft)).isIn(-1L, 3L);
            assertThat(hinted(weft, "pach")).isEqualTo("[]");
            assertThat(hinted(weft, "example")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"pach\",\"$options\":\"i\"}}", "&hint=url")).isEqualTo("[{\"_id\":2}]");

            weft = weft.restartWith("--trigram-pending-idle-ms", KEEP_PENDING);
            assertThat(pending(weft)).isIn(-1L, 3L);
            assertThat(hinted(weft, "example")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");

            // an idle writer puts them into FTS5: the same answers
            weft = weft.restartWith("--trigram-pending-idle-ms", "0");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (pending(weft) > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(pending(weft)).isIn(-1L, 0L);
            assertThat(hinted(weft, "example")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");
            assertThat(hinted(weft, "pac\\.h")).isEqualTo("[{\"_id\":3}]");
            assertThat(hinted(weft, "apache")).isEqualTo("[]");
        } finally {
            weft.close();
        }
    }

    @Test
    void pastTheBoundAWritePutsThePendingDocumentsIntoFts5Itself() throws Exception {
        try (TestServer weft = new TestServer("--trigram-pending-idle-ms", KEEP_PENDING, "--trigram-pending-rows", "3")) {
            weft.createCollection("db", "c");
            assertThat(weft.put("/db/c/_indexes/url", "{\"keys\":{\"links.url\":\"trigram\"}}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "[{\"_id\":1,\"links\":{\"url\":\"a-apache\"}},{\"_id\":2,\"links\":{\"url\":\"b-apache\"}}]")
                    .statusCode()).isEqualTo(200);
            assertThat(pending(weft)).isIn(-1L, 2L);
            assertThat(weft.post("/db/c", "[{\"_id\":3,\"links\":{\"url\":\"c-apache\"}},{\"_id\":4,\"links\":{\"url\":\"d-other\"}}]")
                    .statusCode()).isEqualTo(200);
            assertThat(pending(weft)).isIn(-1L, 0L);
            assertThat(hinted(weft, "apache")).isEqualTo("[{\"_id\":1},{\"_id\":2},{\"_id\":3}]");
        }
    }

    /** Every lookup reads the pending texts: one longer than 4,096 characters is put into FTS5 by its write. */
    @Test
    void aLongTextIsNotLeftPending() throws Exception {
        try (TestServer weft = new TestServer("--trigram-pending-idle-ms", KEEP_PENDING)) {
            weft.createCollection("db", "c");
            assertThat(weft.put("/db/c/_indexes/url", "{\"keys\":{\"links.url\":\"trigram\"}}").statusCode()).isEqualTo(201);
            String longUrl = "https://apache.org/" + "ab".repeat(2100);
            assertThat(weft.post("/db/c", "[{\"_id\":1,\"links\":{\"url\":\"" + longUrl + "\"}},{\"_id\":2,\"links\":{\"url\":\"apache\"}}]")
                    .statusCode()).isEqualTo(200);
            assertThat(pending(weft)).isIn(-1L, 1L);
            assertThat(hinted(weft, "apache")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");
            assertThat(hinted(weft, "babab")).isEqualTo("[{\"_id\":1}]");
        }
    }

    @Test
    void underAReadFilterPendingDocumentsAreSeenOnlyAsTheRuleAllows() throws Exception {
        try (TestServer server = new TestServer("--trigram-pending-idle-ms", KEEP_PENDING)) {
            notesIndexed(server, "trigram");
            send(server, "admin", "POST", "/db/notes", """
                    [{"_id":"a1","owner":"alice","text":"shared words","secret":"alice-secret"},
                     {"_id":"b1","owner":"bob","text":"shared words","secret":"bob-secret"}]""");
            assertThat(pending(server, "t")).isIn(-1L, 2L);
            AuthorizationMatrixTest.rules(server, "admin");
            HttpResponse<String> hinted = send(server, "alice", "GET", "/db/notes?hint=t&filter=" + q("{\"text\":{\"$regex\":\"shared\"}}"), null);
            assertThat(hinted.statusCode()).isEqualTo(200);
            assertThat(hinted.body()).contains("\"a1\"").doesNotContain("\"b1\"", "bob");
        }
    }

    /** Users alice and bob, and the collection /db/notes with an index {@code t} of kind {@code kind} on its field {@code text}. */
    static void notesIndexed(TestServer server, String kind) throws Exception {
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", null);
        assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"" + kind + "\"}}").statusCode())
                .isEqualTo(201);
    }

    private static String hinted(TestServer weft, String regex) throws Exception {
        return ids(weft, "{\"links.url\":{\"$regex\":\"" + regex.replace("\\", "\\\\") + "\"}}", "&hint=url");
    }

    private static long pending(TestServer weft) throws Exception {
        return pending(weft, "url");
    }

    /**
     * The pending documents of the index {@code name}, read from the SQLite file; -1 on PostgreSQL,
     * which has none. A text index's pending table holds a row per write, its documents' rows in
     * a JSON array: those whose numbers are still in use are counted.
     */
    static long pending(TestServer weft, String name) throws Exception {
        if (weft.pgSchema != null) {
            return -1;
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + weft.data.resolve("weft.db"));
             ResultSet id = c.createStatement().executeQuery("SELECT id FROM weft_indexes WHERE name = '" + name + "'")) {
            assertThat(id.next()).isTrue();
            String table = "i" + id.getLong(1);
            boolean chunks;
            try (ResultSet rows = c.createStatement().executeQuery("SELECT 1 FROM pragma_table_info('" + table + "_p') WHERE name = 'rows'")) {
                chunks = rows.next();
            }
            try (ResultSet n = c.createStatement().executeQuery(chunks ? "SELECT count(*) FROM " + table + "_p p, json_each(p.rows) j"
                    + " WHERE EXISTS (SELECT 1 FROM " + table + " m WHERE m.n = p.n + j.key)" : "SELECT count(*) FROM " + table + "_p")) {
                n.next();
                return n.getLong(1);
            }
        }
    }
}
