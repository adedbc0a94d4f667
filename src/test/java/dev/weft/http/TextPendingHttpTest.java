package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static dev.weft.http.TrigramPendingHttpTest.pending;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * On SQLite a write's documents wait in a text index's pending table (here for a day:
 * {@code trigram-pending-idle-ms}); a {@code $text} query that finds some has the writer put them
 * into FTS5 first. So a query right after the writes finds every document, ranks and scores them
 * exactly as a server whose writes go straight into FTS5 ({@code text-pending-rows 0}) does (finds,
 * counts and an aggregation), and
 * misses documents deleted or changed while pending, through transactions, a restart with rows
 * pending and the index dropped and made again meanwhile. Under a readFilter a reader still sees
 * only what the rule allows. On PostgreSQL the settings do nothing and the two servers agree.
 */
class TextPendingHttpTest {
    private static final String KEEP_PENDING = "86400000";
    private static final String INDEX = "{\"keys\":{\"title\":\"text\",\"body\":\"text\"},\"ops\":{\"weights\":{\"title\":10}}}";
    private static final String SCORED = "&keys=" + q("{\"_id\":1,\"score\":{\"$meta\":\"textScore\"}}")
            + "&sort=" + q("{\"score\":{\"$meta\":\"textScore\"}}");

    @Test
    void queriedRightAfterTheWritesEveryDocumentIsFoundAndScoredAsIfWrittenStraightIntoFts5() throws Exception {
        TestServer pendingServer = new TestServer("--trigram-pending-idle-ms", KEEP_PENDING);
        TestServer straight = new TestServer("--text-pending-rows", "0");
        try {
            for (TestServer weft : List.of(pendingServer, straight)) {
                weft.createCollection("db", "c");
                assertThat(weft.put("/db/c/_indexes/search", INDEX).statusCode()).isEqualTo(201);
                assertThat(weft.post("/db/c", """
                        [{"_id":1,"title":"coffee","body":"a cup of coffee"},
                         {"_id":2,"title":"tea","body":"green tea and coffee beans in the shop"},
                         {"_id":3,"title":"shops","body":"the coffee shop sells coffee, coffee and more coffee"},
                         {"_id":4,"title":"nothing here","body":"water"},
                         {"_id":5,"title":"Coffee shop","body":"tea"},
                         {"_id":6,"title":"long","body":"coffee is one word among very many other words in this rather long body"}]""")
                        .statusCode()).isEqualTo(200);
            }
            assertThat(pending(pendingServer, "search")).isIn(-1L, 6L);
            assertSameAnswers(pendingServer, straight);
            assertThat(ranked(pendingServer, "coffee")).containsExactlyInAnyOrder(1, 2, 3, 5, 6);
            assertThat(pending(pendingServer, "search")).isIn(-1L, 0L);

            // pending documents deleted, changed, replaced; one written in a transaction
            for (TestServer weft : List.of(pendingServer, straight)) {
                assertThat(weft.post("/db/c", """
                        [{"_id":7,"title":"espresso","body":"coffee"},
                         {"_id":8,"title":"coffee","body":"coffee coffee"},
                         {"_id":9,"title":"plain","body":"nothing"}]""").statusCode()).isEqualTo(200);
                assertThat(weft.delete("/db/c/7?id_type=NUMBER").statusCode()).isEqualTo(204);
                assertThat(weft.patch("/db/c/8?id_type=NUMBER", "{\"$set\":{\"title\":\"tea\",\"body\":\"tea\"}}").statusCode())
                        .isEqualTo(200);
                assertThat(weft.patch("/db/c/9?id_type=NUMBER", "{\"$set\":{\"body\":\"coffee\"}}").statusCode()).isEqualTo(200);
                assertThat(weft.patch("/db/c/1?id_type=NUMBER", "{\"$set\":{\"body\":\"no longer\",\"title\":\"gone\"}}")
                        .statusCode()).isEqualTo(200);
                inTransaction(weft, "{\"_id\":10,\"title\":\"coffee in a transaction\"}");
            }
            assertThat(pending(pendingServer, "search")).isIn(-1L, 4L);
            assertSameAnswers(pendingServer, straight);
            assertThat(ranked(pendingServer, "coffee")).containsExactlyInAnyOrder(2, 3, 5, 6, 9, 10);

            // rows pending across a restart
            for (TestServer weft : List.of(pendingServer, straight)) {
                assertThat(weft.post("/db/c", "[{\"_id\":11,\"title\":\"coffee\"},{\"_id\":12,\"body\":\"tea\"}]").statusCode())
                        .isEqualTo(200);
            }
            pendingServer = pendingServer.restartWith("--trigram-pending-idle-ms", KEEP_PENDING);
            assertThat(pending(pendingServer, "search")).isIn(-1L, 2L);
            assertSameAnswers(pendingServer, straight);
            assertThat(ranked(pendingServer, "coffee")).containsExactlyInAnyOrder(2, 3, 5, 6, 9, 10, 11);

            // the index dropped with rows pending, and made again: built from the documents
            for (TestServer weft : List.of(pendingServer, straight)) {
                assertThat(weft.post("/db/c", "[{\"_id\":13,\"title\":\"coffee\"}]").statusCode()).isEqualTo(200);
                assertThat(weft.delete("/db/c/_indexes/search").statusCode()).isEqualTo(204);
                assertThat(weft.get("/db/c?filter=" + q(search("coffee"))).statusCode()).isEqualTo(400);
                assertThat(weft.put("/db/c/_indexes/search", INDEX).statusCode()).isEqualTo(201);
            }
            assertSameAnswers(pendingServer, straight);
            assertThat(ranked(pendingServer, "coffee")).containsExactlyInAnyOrder(2, 3, 5, 6, 9, 10, 11, 13);

            // the collection dropped with rows pending: a new one of the same name holds none of them
            for (TestServer weft : List.of(pendingServer, straight)) {
                assertThat(weft.post("/db/c", "[{\"_id\":14,\"title\":\"coffee\"}]").statusCode()).isEqualTo(200);
                String etag = weft.put("/db/c", "{\"x\":1}").headers().firstValue("ETag").orElseThrow();
                assertThat(weft.delete("/db/c", "If-Match", etag).statusCode()).isEqualTo(204);
                weft.createCollection("db", "c");
                assertThat(weft.put("/db/c/_indexes/search", INDEX).statusCode()).isEqualTo(201);
                assertThat(weft.post("/db/c", "[{\"_id\":15,\"title\":\"coffee\"}]").statusCode()).isEqualTo(200);
            }
            assertSameAnswers(pendingServer, straight);
            assertThat(ranked(pendingServer, "coffee")).containsExactly(15);
        } finally {
            pendingServer.close();
            straight.close();
        }
    }

    @Test
    void underAReadFilterPendingDocumentsAreSeenOnlyAsTheRuleAllows() throws Exception {
        try (TestServer server = new TestServer("--trigram-pending-idle-ms", KEEP_PENDING)) {
            TrigramPendingHttpTest.notesIndexed(server, "text");
            AuthorizationMatrixTest.rules(server, "admin");
            send(server, "admin", "POST", "/db/notes", """
                    [{"_id":"a1","owner":"alice","text":"shared words here","secret":"alice-secret"},
                     {"_id":"a2","owner":"alice","text":"shared shared words","secret":"alice-secret"},
                     {"_id":"b1","owner":"bob","text":"shared words there","secret":"bob-secret"}]""");
            assertThat(pending(server, "t")).isIn(-1L, 3L);
            HttpResponse<String> scored = send(server, "alice", "GET", "/db/notes?filter=" + q(search("shared")) + SCORED, null);
            assertThat(scored.statusCode()).as(scored.body()).isEqualTo(200);
            // MongoDB's per-document score (README "Text search"): 0.75 for one occurrence in two terms, 1.25 for two in three
            assertThat(scored.body()).isEqualTo("[{\"_id\":\"a2\",\"score\":1.25},{\"_id\":\"a1\",\"score\":0.75}]");
            send(server, "admin", "POST", "/db/notes", "[{\"_id\":\"b2\",\"owner\":\"bob\",\"text\":\"shared\"}]");
            HttpResponse<String> unranked = send(server, "alice", "GET", "/db/notes?filter=" + q(search("shared words")), null);
            assertThat(unranked.statusCode()).as(unranked.body()).isEqualTo(200);
            assertThat(unranked.body()).contains("\"a1\"", "\"a2\"").doesNotContain("\"b1\"", "\"b2\"", "bob", "secret");
        }
    }

    /** The same queries, an aggregation first (the first to find pending documents), ranked, unranked and counted, answered alike (ids, order and scores). */
    private static void assertSameAnswers(TestServer pendingServer, TestServer straight) throws Exception {
        String pipeline = "[{\"$match\":" + search("coffee shop") + "},{\"$sort\":{\"score\":{\"$meta\":\"textScore\"},\"_id\":1}},"
                + "{\"$project\":{\"_id\":1,\"score\":{\"$meta\":\"textScore\"}}}]";
        HttpResponse<String> aggregated = straight.post("/db/c/_aggrs", pipeline);
        assertThat(aggregated.statusCode()).as(aggregated.body()).isEqualTo(200);
        assertThat(aggregated.body()).contains("\"score\"");
        assertThat(pendingServer.post("/db/c/_aggrs", pipeline).body()).isEqualTo(aggregated.body());
        for (String words : List.of("coffee", "coffee shop", "tea -coffee", "\\\"coffee shop\\\"", "shop water")) {
            for (String path : List.of("/db/c?filter=" + q(search(words)) + SCORED,
                    "/db/c?filter=" + q(search(words)) + SCORED + "&pagesize=2&page=2",
                    "/db/c?keys=" + q("{\"_id\":1}") + "&sort=" + q("{\"_id\":1}") + "&filter=" + q(search(words)),
                    "/db/c/_size?filter=" + q(search(words)))) {
                HttpResponse<String> expected = straight.get(path);
                assertThat(expected.statusCode()).as(path + ": " + expected.body()).isEqualTo(200);
                assertThat(pendingServer.get(path).body()).as(path).isEqualTo(expected.body());
            }
        }
    }

    /** The ids of the page of a search sorted by score, after checking that the scores do not rise. */
    private static List<Integer> ranked(TestServer weft, String words) throws Exception {
        HttpResponse<String> r = weft.get("/db/c?filter=" + q(search(words)) + SCORED);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode page = Json.standard().parse(r.body(), "page");
        double previous = Double.MAX_VALUE;
        List<Integer> ids = new java.util.ArrayList<>();
        for (JsonNode doc : page) {
            double score = doc.get("score").asDouble();
            assertThat(score).as(r.body()).isPositive().isLessThanOrEqualTo(previous);
            previous = score;
            ids.add(doc.get("_id").asInt());
        }
        return ids;
    }

    private static void inTransaction(TestServer weft, String doc) throws Exception {
        String location = weft.post("/_sessions", null).headers().firstValue("Location").orElseThrow();
        String sid = location.substring(location.length() - 36);
        String txnLocation = weft.post("/_sessions/" + sid + "/_txns", null).headers().firstValue("Location").orElseThrow();
        String txn = txnLocation.substring(txnLocation.lastIndexOf('/') + 1);
        assertThat(weft.post("/db/c?sid=" + sid + "&txn=" + txn, doc).statusCode()).isEqualTo(201);
        assertThat(weft.patch("/_sessions/" + sid + "/_txns/" + txn, null).statusCode()).isEqualTo(200);
    }

    private static String search(String words) {
        return "{\"$text\":{\"$search\":\"" + words + "\"}}";
    }
}
