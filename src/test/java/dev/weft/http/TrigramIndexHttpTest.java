package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, item 2: {@code {"keys":{"links.url":"trigram"}}} answers {@code $regex} on that path
 * from the trigrams of its required literals, exactly as the evaluator (arrays, dotted paths,
 * case-insensitive options), is built over existing documents, kept by every write path, dropped
 * with the collection, and obeys the access rules.
 */
class TrigramIndexHttpTest {
    static String ids(TestServer weft, String filter, String more) throws Exception {
        HttpResponse<String> r = weft.get("/db/c?keys=" + q("{\"_id\":1}") + "&sort=" + q("{\"_id\":1}") + "&filter=" + q(filter) + more);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    @Test
    void regexesOnTheIndexedPathAreAnsweredFromItsTrigrams() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "c");
            assertThat(weft.post("/db/c", """
                    [{"_id":1,"links":[{"url":"https://apache.org"},{"url":"https://example.com"}]},
                     {"_id":2,"links":{"url":["http://PACH.example","x"]}},
                     {"_id":3,"links":[{"url":"https://pac.h"}]},
                     {"_id":4,"title":"apache"}]""").statusCode()).isEqualTo(200);
            // built over the documents already there
            assertThat(weft.put("/db/c/_indexes/url", "{\"keys\":{\"links.url\":\"trigram\"}}").statusCode()).isEqualTo(201);
            assertThat(weft.get("/db/c/_indexes").body()).contains("{\"_id\":\"url\",\"key\":{\"links.url\":\"trigram\"}}");

            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\".*pach.*\"}}", "")).isEqualTo("[{\"_id\":1}]");
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"pach\",\"$options\":\"i\"}}", "")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"apache|example\"}}", "")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"^https://pac\"},\"_id\":{\"$gt\":1}}", "")).isEqualTo("[{\"_id\":3}]");
            // nothing to look up: the scan answers
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\".*\"}}", "")).isEqualTo("[{\"_id\":1},{\"_id\":2},{\"_id\":3}]");
            // the hint names the trigram index: it is used (TrigramDifferentialTest checks unhinted plans take it),
            // and with nothing to look up it is 400
            HttpResponse<String> nothing = weft.get("/db/c?filter=" + q("{\"links.url\":{\"$regex\":\"a.\"}}") + "&hint=url");
            assertThat(nothing.statusCode()).isEqualTo(400);
            assertThat(nothing.body()).contains("the trigram index url has nothing to look up");
            // a hint by keys never resolves to the trigram index: it serves no order
            assertThat(weft.get("/db/c?hint=" + q("{\"links.url\":1}")).statusCode()).isEqualTo(400);
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"example\"}}", "&hint=url")).isEqualTo("[{\"_id\":1},{\"_id\":2}]");

            // every write path keeps it: single, bulk update, replace, delete, ndjson
            assertThat(weft.post("/db/c", "{\"_id\":5,\"links\":[{\"url\":\"svn.apache.org\"}]}").statusCode()).isEqualTo(201);
            assertThat(weft.patch("/db/c/1?id_type=NUMBER", "{\"$set\":{\"links\":[{\"url\":\"nothing here\"}]}}").statusCode()).isEqualTo(200);
            assertThat(weft.patch("/db/c/*?filter=" + q("{\"_id\":3}"), "{\"$set\":{\"links.0.url\":\"apache.net\"}}").statusCode())
                    .isEqualTo(200);
            assertThat(weft.delete("/db/c/2?id_type=NUMBER").statusCode()).isEqualTo(204);
            assertThat(weft.send("POST", "/db/c", "{\"_id\":6,\"links\":{\"url\":\"https://apache.org/x\"}}\n",
                    "Content-Type", "application/x-ndjson").statusCode()).isEqualTo(200);
            // in a transaction: its documents are looked up once it commits, and an aborted one's never
            String location = weft.post("/_sessions", null).headers().firstValue("Location").orElseThrow();
            String sid = location.substring(location.length() - 36);
            String committed = txn(weft, sid);
            assertThat(weft.post("/db/c?sid=" + sid + "&txn=" + committed, "{\"_id\":7,\"links\":{\"url\":\"apache.com\"}}")
                    .statusCode()).isEqualTo(201);
            assertThat(weft.patch("/_sessions/" + sid + "/_txns/" + committed, null).statusCode()).isEqualTo(200);
            String aborted = txn(weft, sid);
            assertThat(weft.post("/db/c?sid=" + sid + "&txn=" + aborted, "{\"_id\":8,\"links\":{\"url\":\"apache.de\"}}")
                    .statusCode()).isEqualTo(201);
            assertThat(weft.delete("/_sessions/" + sid + "/_txns/" + aborted).statusCode()).isEqualTo(204);
            // a string with too many distinct trigrams to index is a candidate of every lookup
            StringBuilder longUrl = new StringBuilder("https://");
            for (int i = 0; i < 12_000; i++) {
                longUrl.appendCodePoint(0x4e00 + (i * 7919) % 20_000);
            }
            assertThat(weft.post("/db/c", "{\"_id\":9,\"links\":{\"url\":\"" + longUrl + "/apache.\"}}").statusCode()).isEqualTo(201);
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"apache\\\\.\"}}", "&hint=url"))
                    .isEqualTo("[{\"_id\":3},{\"_id\":5},{\"_id\":6},{\"_id\":7},{\"_id\":9}]");
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"example\"}}", "&hint=url")).isEqualTo("[]");
            // LIKE's wildcards in a literal (PostgreSQL's lookup escapes them); FTS5 quotes each trigram
            assertThat(weft.post("/db/c", "{\"_id\":11,\"links\":{\"url\":\"to 100%_ ok\"}}").statusCode()).isEqualTo(201);
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"0%_ o\"}}", "&hint=url")).isEqualTo("[{\"_id\":11}]");
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"0x_ \"}}", "&hint=url")).isEqualTo("[]");
            assertThat(weft.delete("/db/c/11?id_type=NUMBER").statusCode()).isEqualTo(204);
            assertThat(weft.delete("/db/c/7?id_type=NUMBER").statusCode()).isEqualTo(204);
            assertThat(weft.delete("/db/c/9?id_type=NUMBER").statusCode()).isEqualTo(204);
            assertThat(ids(weft, "{\"links.url\":{\"$regex\":\"apache\\\\.\"}}", "")).isEqualTo("[{\"_id\":3},{\"_id\":5},{\"_id\":6}]");
            assertThat(weft.get("/db/c?count&pagesize=0&filter=" + q("{\"links.url\":{\"$regex\":\"apache\"}}"))
                    .headers().firstValue("X-Total-Count")).hasValue("3");

            // dropped with the collection: a new one of the same name has no such index
            String etag = weft.put("/db/c", "{\"x\":1}").headers().firstValue("ETag").orElseThrow();
            assertThat(weft.delete("/db/c", "If-Match", etag).statusCode()).isEqualTo(204);
            weft.createCollection("db", "c");
            assertThat(weft.get("/db/c/_indexes").body()).doesNotContain("trigram");
        }
    }

    private static String txn(TestServer weft, String sid) throws Exception {
        String location = weft.post("/_sessions/" + sid + "/_txns", null).headers().firstValue("Location").orElseThrow();
        return location.substring(location.lastIndexOf('/') + 1);
    }

    @Test
    void badDefinitionsAreRefusedAndNothingIsStored() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "c");
            for (String bad : new String[] {"{\"keys\":{\"a\":\"trigram\",\"b\":1}}", "{\"keys\":{\"a\":\"trigram\"},\"ops\":{\"unique\":true}}",
                    "{\"keys\":{\"$a\":\"trigram\"}}", "{\"keys\":{\"a\":\"trigrams\"}}"}) {
                HttpResponse<String> r = weft.put("/db/c/_indexes/t", bad);
                assertThat(r.statusCode()).as(bad + ": " + r.body()).isEqualTo(400);
            }
            assertThat(weft.get("/db/c/_indexes").body()).doesNotContain("\"t\"");
        }
    }

    @Test
    void underAReadFilterARegexSeesOnlyWhatTheRuleAllowsAndHiddenFieldsAre403() throws Exception {
        try (TestServer server = new TestServer()) {
            AuthorizationMatrixTest.users(server);
            send(server, "admin", "PUT", "/db", null);
            send(server, "admin", "PUT", "/db/notes", null);
            send(server, "admin", "POST", "/db/notes", """
                    [{"_id":"a1","owner":"alice","text":"shared words","secret":"alice-secret"},
                     {"_id":"b1","owner":"bob","text":"shared words","secret":"bob-secret"}]""");
            assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"trigram\"}}").statusCode())
                    .isEqualTo(201);
            assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/s", "{\"keys\":{\"secret\":\"trigram\"}}").statusCode())
                    .isEqualTo(201);
            AuthorizationMatrixTest.rules(server, "admin");
            HttpResponse<String> mine = send(server, "alice", "GET", "/db/notes?filter=" + q("{\"text\":{\"$regex\":\"shared\"}}"), null);
            assertThat(mine.statusCode()).isEqualTo(200);
            assertThat(mine.body()).contains("\"a1\"").doesNotContain("\"b1\"", "bob");
            // answered from the trigram index (hinted): still only what the rule allows
            HttpResponse<String> hinted = send(server, "alice", "GET", "/db/notes?hint=t&filter=" + q("{\"text\":{\"$regex\":\"shared\"}}"), null);
            assertThat(hinted.statusCode()).isEqualTo(200);
            assertThat(hinted.body()).contains("\"a1\"").doesNotContain("\"b1\"", "bob");
            HttpResponse<String> hidden = send(server, "alice", "GET", "/db/notes?filter=" + q("{\"secret\":{\"$regex\":\"bob-sec\"}}"), null);
            assertThat(hidden.statusCode()).isEqualTo(403);
        }
    }
}
