package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, items 1 and 3: MongoDB's text indexes and {@code $text} through the API, with the
 * cases of MongoDB's $text manual page (words ORed, negation, phrases, stemming, case and
 * diacritics, textScore in keys and sort), built over existing documents, kept by every write
 * path (single, array, ndjson, PUT, bulk PATCH, deletes, a committed transaction), dropped with the collection, and under the access rules. Runs on both stores.
 */
class TextSearchHttpTest {
    /** The articles of MongoDB's $text manual page. */
    private static final String ARTICLES = """
            [{"_id":1,"subject":"coffee","author":"xyz","views":50},
             {"_id":2,"subject":"Coffee Shopping","author":"efg","views":5},
             {"_id":3,"subject":"Baking a cake","author":"abc","views":90},
             {"_id":4,"subject":"baking","author":"xyz","views":100}]""";

    private static String ids(TestServer weft, String filter) throws Exception {
        HttpResponse<String> r = weft.get("/db/articles?keys=" + q("{\"_id\":1}") + "&sort=" + q("{\"_id\":1}") + "&filter=" + q(filter));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    private static String search(String words) {
        return "{\"$text\":{\"$search\":\"" + words.replace("\"", "\\\"") + "\"}}";
    }

    /** Terms the store's full-text postings must keep as Weft's analyzer cut them. */
    @Test
    void apostrophesLongWordsAndStopWordsOnlyDocumentsInTheStoresPostings() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "articles");
            String longWord = "x".repeat(1500);
            assertThat(weft.put("/db/articles/_indexes/t", "{\"keys\":{\"s\":\"text\"}}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/articles", "[{\"_id\":1,\"s\":\"O'Neil's café\"},{\"_id\":2,\"s\":\"neil\"},"
                    + "{\"_id\":3,\"s\":\"the and of\"},{\"_id\":4,\"s\":\"a " + longWord + " b\"},{\"_id\":5,\"s\":\"x\"}]")
                    .statusCode()).isEqualTo(200);
            assertThat(ids(weft, search("o'neil"))).isEqualTo("[{\"_id\":1}]");
            assertThat(ids(weft, search("neil"))).isEqualTo("[{\"_id\":2}]");
            assertThat(ids(weft, search("CAFE"))).isEqualTo("[{\"_id\":1}]");
            assertThat(ids(weft, search(longWord))).isEqualTo("[{\"_id\":4}]");
            assertThat(ids(weft, search("x"))).isEqualTo("[{\"_id\":5}]");
            assertThat(ids(weft, search("the"))).isEqualTo("[]");
            assertThat(weft.delete("/db/articles/4?id_type=NUMBER").statusCode()).isEqualTo(204);
            assertThat(ids(weft, search(longWord))).isEqualTo("[]");
        }
    }

    @Test
    void mongoManualCasesOnATextIndexKeptByEveryWritePath() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "articles");
            assertThat(weft.post("/db/articles", ARTICLES).statusCode()).isEqualTo(200);
            // without a text index: MongoDB's 400
            HttpResponse<String> none = weft.get("/db/articles?filter=" + q(search("coffee")));
            assertThat(none.statusCode()).isEqualTo(400);
            assertThat(none.body()).contains("text index required for $text query");

            // built over the documents already there; the other writes arrive by every path
            assertThat(weft.put("/db/articles/_indexes/subject_text", "{\"keys\":{\"subject\":\"text\"}}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/articles", "{\"_id\":5,\"subject\":\"Café Con Leche\",\"author\":\"abc\",\"views\":200}")
                    .statusCode()).isEqualTo(201);
            assertThat(weft.send("POST", "/db/articles", "{\"_id\":6,\"subject\":\"Сырники\",\"author\":\"jkl\",\"views\":80}\n"
                    + "{\"_id\":7,\"subject\":\"coffee and cream\",\"author\":\"efg\",\"views\":10}\n",
                    "Content-Type", "application/x-ndjson").statusCode()).isEqualTo(200);
            assertThat(weft.post("/db/articles", "{\"_id\":8,\"subject\":\"tea\",\"author\":\"xyz\",\"views\":10}").statusCode())
                    .isEqualTo(201);
            assertThat(weft.put("/db/articles/8?id_type=NUMBER", "{\"subject\":\"green tea\",\"author\":\"xyz\",\"views\":10}")
                    .statusCode()).isEqualTo(200);
            assertThat(ids(weft, search("green"))).isEqualTo("[{\"_id\":8}]");
            assertThat(weft.patch("/db/articles/*?filter=" + q("{\"_id\":8}"), "{\"$set\":{\"subject\":\"Cafe con Leche\"}}")
                    .statusCode()).isEqualTo(200);

            assertThat(weft.get("/db/articles/_indexes").body()).contains("{\"_id\":\"subject_text\",\"key\":{\"_fts\":\"text\","
                    + "\"_ftsx\":1},\"weights\":{\"subject\":1},\"default_language\":\"english\",\"language_override\":\"language\","
                    + "\"textIndexVersion\":3}");

            assertThat(ids(weft, search("coffee"))).isEqualTo("[{\"_id\":1},{\"_id\":2},{\"_id\":7}]");
            assertThat(ids(weft, search("bake coffee cake"))).isEqualTo("[{\"_id\":1},{\"_id\":2},{\"_id\":3},{\"_id\":4},{\"_id\":7}]");
            assertThat(ids(weft, search("\"coffee shop\""))).isEqualTo("[{\"_id\":2}]");
            assertThat(ids(weft, search("coffee -shop"))).isEqualTo("[{\"_id\":1},{\"_id\":7}]");
            assertThat(ids(weft, search("leche"))).isEqualTo("[{\"_id\":5},{\"_id\":8}]");
            assertThat(ids(weft, "{\"$text\":{\"$search\":\"Coffee\",\"$caseSensitive\":true}}")).isEqualTo("[{\"_id\":2}]");
            assertThat(ids(weft, "{\"$text\":{\"$search\":\"\\\"Café Con Leche\\\"\",\"$caseSensitive\":true}}")).isEqualTo("[{\"_id\":5}]");
            assertThat(ids(weft, "{\"$text\":{\"$search\":\"CAFÉ\",\"$diacriticSensitive\":true}}")).isEqualTo("[{\"_id\":5}]");
            assertThat(ids(weft, search("сы́рники CAFÉS"))).isEqualTo("[{\"_id\":5},{\"_id\":6},{\"_id\":8}]");
            // with other filter terms, in $and, and counted
            assertThat(ids(weft, "{\"$text\":{\"$search\":\"coffee\"},\"views\":{\"$gt\":20}}")).isEqualTo("[{\"_id\":1}]");
            assertThat(ids(weft, "{\"$and\":[{\"author\":\"xyz\"},{\"$text\":{\"$search\":\"baking coffee\"}}]}"))
                    .isEqualTo("[{\"_id\":1},{\"_id\":4}]");
            assertThat(weft.get("/db/articles/_size?filter=" + q(search("coffee"))).body()).isEqualTo("{\"_size\":3}");

            // textScore in keys and sort: the whole-word match first, ties by _id
            HttpResponse<String> scored = weft.get("/db/articles?filter=" + q(search("coffee")) + "&keys="
                    + q("{\"subject\":1,\"score\":{\"$meta\":\"textScore\"}}") + "&sort=" + q("{\"score\":{\"$meta\":\"textScore\"}}"));
            assertThat(scored.statusCode()).as(scored.body()).isEqualTo(200);
            // (the store's relevance score: its values are the store's, see README "Text search")
            assertThat(scored.body()).matches("\\[\\{\"_id\":1,\"subject\":\"coffee\",\"score\":([0-9.E-]+)\\},"
                    + "\\{\"_id\":2,\"subject\":\"Coffee Shopping\",\"score\":([0-9.E-]+)\\},"
                    + "\\{\"_id\":7,\"subject\":\"coffee and cream\",\"score\":\\2\\}]");

            // a transaction's writes reach the index when it commits
            String location = weft.post("/_sessions", null).headers().firstValue("Location").orElseThrow();
            String sid = location.substring(location.length() - 36);
            String txnLocation = weft.post("/_sessions/" + sid + "/_txns", null).headers().firstValue("Location").orElseThrow();
            String txn = txnLocation.substring(txnLocation.lastIndexOf('/') + 1);
            assertThat(weft.post("/db/articles?sid=" + sid + "&txn=" + txn, "{\"_id\":9,\"subject\":\"espresso beans\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(ids(weft, search("espresso"))).isEqualTo("[]");
            assertThat(weft.patch("/_sessions/" + sid + "/_txns/" + txn, null).statusCode()).isEqualTo(200);
            assertThat(ids(weft, search("espresso"))).isEqualTo("[{\"_id\":9}]");

            // deletes and bulk deletes leave the index
            assertThat(weft.delete("/db/articles/1?id_type=NUMBER").statusCode()).isEqualTo(204);
            assertThat(weft.delete("/db/articles/*?filter=" + q(search("shopping"))).statusCode()).isEqualTo(200);
            assertThat(ids(weft, search("coffee"))).isEqualTo("[{\"_id\":7}]");

            // dropped with the collection
            String etag = weft.put("/db/articles", "{\"x\":1}").headers().firstValue("ETag").orElseThrow();
            assertThat(weft.delete("/db/articles", "If-Match", etag).statusCode()).isEqualTo(204);
            weft.createCollection("db", "articles");
            assertThat(weft.post("/db/articles", ARTICLES).statusCode()).isEqualTo(200);
            assertThat(weft.get("/db/articles?filter=" + q(search("coffee"))).statusCode()).isEqualTo(400);
        }
    }

    @Test
    void weightsWildcardsLanguagesAndWhatIsRefused() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "articles");
            assertThat(weft.post("/db/articles", """
                    [{"_id":1,"title":"notes","body":"running shoes","lang":"none"},
                     {"_id":2,"title":"running","body":"shoes"},
                     {"_id":3,"meta":{"tags":["trail running"]}}]""").statusCode()).isEqualTo(200);
            HttpResponse<String> created = weft.put("/db/articles/_indexes/search", """
                    {"keys":{"$**":"text"},"ops":{"weights":{"title":10},"default_language":"english","language_override":"lang"}}""");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            // one text index per collection, as MongoDB
            HttpResponse<String> second = weft.put("/db/articles/_indexes/other", "{\"keys\":{\"body\":\"text\"}}");
            assertThat(second.statusCode()).isEqualTo(409);
            assertThat(second.body()).contains("only one text index per collection allowed, found existing text index \\\"search\\\"");
            // document 1 is in no language: "running" is its term, not "run"
            assertThat(ids(weft, search("run"))).isEqualTo("[{\"_id\":2},{\"_id\":3}]");
            assertThat(ids(weft, "{\"$text\":{\"$search\":\"running\",\"$language\":\"none\"}}")).isEqualTo("[{\"_id\":1}]");
            // the title weighs 10: document 2 first
            HttpResponse<String> ranked = weft.get("/db/articles?filter=" + q(search("running shoes")) + "&keys=" + q("{\"_id\":1}")
                    + "&sort=" + q("{\"s\":{\"$meta\":\"textScore\"},\"_id\":1}"));
            assertThat(ranked.body()).isEqualTo("[{\"_id\":2},{\"_id\":3}]");
            for (String[] bad : new String[][] {
                    {"/db/articles?filter=" + q("{\"$or\":[" + search("a") + ",{\"x\":1}]}"), "$text is not allowed in this context"},
                    {"/db/articles?sort=" + q("{\"s\":{\"$meta\":\"textScore\"}}"), "query requires text score metadata"},
                    {"/db/articles?keys=" + q("{\"s\":{\"$meta\":\"textScore\"}}"), "query requires text score metadata"},
                    {"/db/articles?filter=" + q("{\"$text\":{\"$search\":\"a\",\"$language\":\"klingon\"}}"), "unsupported language"}}) {
                HttpResponse<String> r = weft.get(bad[0]);
                assertThat(r.statusCode()).as(bad[0]).isEqualTo(400);
                assertThat(r.body()).contains(bad[1]);
            }
            for (String bad : new String[] {"{\"keys\":{\"a\":\"text\",\"b\":1}}", "{\"keys\":{\"a\":\"text\"},\"ops\":{\"weights\":{\"a\":0}}}",
                    "{\"keys\":{\"a\":\"text\"},\"ops\":{\"default_language\":\"klingon\"}}",
                    "{\"keys\":{\"a\":\"text\"},\"ops\":{\"unique\":true}}"}) {
                HttpResponse<String> r = weft.put("/db/articles/_indexes/t", bad);
                assertThat(r.statusCode()).as(bad + ": " + r.body()).isEqualTo(400);
            }
        }
    }

    @Test
    void aRestrictedUserSeesNoMoreWithTextAndTextScore() throws Exception {
        try (TestServer server = new TestServer()) {
            AuthorizationMatrixTest.users(server);
            send(server, "admin", "PUT", "/db", null);
            send(server, "admin", "PUT", "/db/notes", null);
            send(server, "admin", "POST", "/db/notes", """
                    [{"_id":"a1","owner":"alice","text":"shared words","secret":"plain"},
                     {"_id":"b1","owner":"bob","text":"shared words","secret":"plain"},
                     {"_id":"b2","owner":"bob","text":"other words","secret":"shared shared"}]""");
            assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"text\"}}").statusCode())
                    .isEqualTo(201);
            AuthorizationMatrixTest.rules(server, "admin");
            String scored = "/db/notes?filter=" + q(search("shared")) + "&keys=" + q("{\"text\":1,\"s\":{\"$meta\":\"textScore\"}}")
                    + "&sort=" + q("{\"s\":{\"$meta\":\"textScore\"}}");
            HttpResponse<String> mine = send(server, "alice", "GET", scored, null);
            assertThat(mine.statusCode()).as(mine.body()).isEqualTo(200);
            assertThat(mine.body()).isEqualTo("[{\"_id\":\"a1\",\"text\":\"shared words\",\"s\":0.75}]");
            assertThat(send(server, "alice", "GET", "/db/notes/_size?filter=" + q(search("shared")), null).body())
                    .isEqualTo("{\"_size\":1}");

            // an index over the hidden field: a match or a score would tell what it holds
            send(server, "admin", "DELETE", "/db/notes/_indexes/t", null);
            assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"text\",\"secret\":\"text\"}}")
                    .statusCode()).isEqualTo(201);
            HttpResponse<String> hidden = send(server, "alice", "GET", scored, null);
            assertThat(hidden.statusCode()).isEqualTo(403);
            assertThat(hidden.body()).contains("$text names 'secret', which this user's projectResponse hides");
            assertThat(send(server, "alice", "GET", "/db/notes/_size?filter=" + q(search("shared")), null).statusCode()).isEqualTo(403);
            assertThat(send(server, "admin", "GET", "/db/notes/_size?filter=" + q(search("shared")), null).body())
                    .isEqualTo("{\"_size\":3}");
        }
    }

    /**
     * Two words ranked by score, where the admin's page comes from the store's ranking cut
     * (SQLite's {@code Fts5PairTop} once enough documents hold both words) and bob's documents
     * outscore alice's: alice, whom a readFilter narrows, is scored per document on what she may
     * read, and still gets her own best page, nothing of bob's, and (on SQLite) the order the
     * admin's full list gives her documents.
     */
    @Test
    void aRestrictedUsersTwoWordPageIsHerOwnBestUnderTheRankingCut() throws Exception {
        try (TestServer server = new TestServer()) {
            StringBuilder docs = new StringBuilder("[");
            for (int i = 0; i < 60; i++) {
                docs.append("{\"_id\":\"b").append(i).append("\",\"owner\":\"bob\",\"text\":\"alpha alpha alpha beta\"},");
                docs.append("{\"_id\":\"a").append(i).append("\",\"owner\":\"alice\",\"text\":\"alpha beta")
                        .append(" filler".repeat(i % 5)).append("\"},");
            }
            for (int i = 0; i < 1000; i++) {
                docs.append("{\"_id\":\"c").append(i).append("\",\"owner\":\"bob\",\"text\":\"beta gamma\"},");
            }
            notesWithTextIndexAndRules(server, docs);
            String ranked = "/db/notes?filter=" + q(search("alpha beta")) + "&keys=" + q("{\"owner\":1,\"s\":{\"$meta\":\"textScore\"}}")
                    + "&sort=" + q("{\"s\":{\"$meta\":\"textScore\"}}");

            HttpResponse<String> all = send(server, "admin", "GET", ranked + "&pagesize=1000", null);
            assertThat(all.statusCode()).as(all.body()).isEqualTo(200);
            List<String> alicesInAdminsOrder = new ArrayList<>();
            JsonNode allDocs = new JsonMapper().readTree(all.body());
            assertThat(allDocs.get(0).get("owner").asString()).isEqualTo("bob");
            allDocs.forEach(d -> {
                if (d.get("owner").asString().equals("alice")) {
                    alicesInAdminsOrder.add(d.get("_id").asString());
                }
            });
            assertThat(alicesInAdminsOrder).hasSize(60);

            HttpResponse<String> mine = send(server, "alice", "GET", ranked + "&pagesize=5", null);
            assertThat(mine.statusCode()).as(mine.body()).isEqualTo(200);
            List<String> mineIds = new ArrayList<>();
            new JsonMapper().readTree(mine.body()).forEach(d -> {
                assertThat(d.get("owner").asString()).isEqualTo("alice");
                mineIds.add(d.get("_id").asString());
            });
            assertThat(mineIds).hasSize(5);
            List<Double> scores = new ArrayList<>();
            new JsonMapper().readTree(mine.body()).forEach(d -> scores.add(d.get("s").asDouble()));
            assertThat(scores).isSortedAccordingTo((x, y) -> Double.compare(y, x));
            if (!"postgresql".equals(System.getProperty("weft.test.store"))) {
                // her textScore is MongoDB's per-document score, the admin's the store's (docs/security.md): on SQLite
                // both orders agree on these documents, on PostgreSQL ts_rank splits ties the other does not
                assertThat(mineIds).isEqualTo(alicesInAdminsOrder.subList(0, 5));
            }
            assertThat(send(server, "alice", "GET", "/db/notes/_size?filter=" + q(search("alpha beta")), null).body())
                    .isEqualTo("{\"_size\":60}");
        }
    }

    /**
     * A readFilter user's textScore is MongoDB's per-document score, so it tells her nothing about
     * documents she may not read: her scores, in find and in a pipeline, stay the same when bob's
     * hidden documents change the collection's counts, while the admin's (the store's, counted
     * over the whole collection) move for the very same documents.
     */
    @Test
    void aRestrictedUsersScoresDoNotMoveWithDocumentsSheMayNotRead() throws Exception {
        try (TestServer server = new TestServer()) {
            StringBuilder docs = new StringBuilder("[");
            for (int i = 0; i < 12; i++) {
                docs.append("{\"_id\":\"a").append(i).append("\",\"owner\":\"alice\",\"text\":\"")
                        .append("river ".repeat(1 + i % 3)).append(i % 2 == 0 ? "stone " : "").append("moss ".repeat(i % 4))
                        .append("\"},");
                docs.append("{\"_id\":\"b").append(i).append("\",\"owner\":\"bob\",\"text\":\"river stone ")
                        .append("sand ".repeat(i)).append("\"},");
            }
            notesWithTextIndexAndRules(server, docs);
            send(server, "admin", "POST", "/weft/acl", """
                    [{"_id":"notes-adhoc","roles":["user"],"priority":20,"predicate":"path-prefix('/db/notes/_aggrs')",
                      "readFilter":{"owner":"@user._id"},"allowAdhocAggregations":true}]""");
            List<String> alicesBefore = alicesScores(server, "alice");
            List<String> adminsBefore = alicesScores(server, "admin");
            StringBuilder more = new StringBuilder("[");
            for (int i = 0; i < 30; i++) {
                more.append(i == 0 ? "" : ",").append("{\"_id\":\"bb").append(i).append("\",\"owner\":\"bob\",\"text\":\"stone\"}");
            }
            assertThat(send(server, "admin", "POST", "/db/notes", more.append(']').toString()).statusCode()).isEqualTo(200);
            assertThat(alicesScores(server, "admin")).as("the admin's scores count bob's documents").isNotEqualTo(adminsBefore);
            assertThat(alicesScores(server, "alice")).hasSize(12).isEqualTo(alicesBefore);
        }
    }

    /**
     * A filter that leaves two documents at the top of the ranking and six below 600 others
     * (past the two rounds of best candidates, where the rest of the ranking is read in one go,
     * on from where the rounds stopped): the pages, sorted by score, are the full ranking's order
     * with the others left out, first and second page, scores and all, none twice.
     */
    @Test
    void documentsDeepInTheRankingArePagedInTheRankingsOrder() throws Exception {
        try (TestServer server = new TestServer()) {
            StringBuilder docs = new StringBuilder("[");
            for (int i = 0; i < 600; i++) {
                docs.append("{\"_id\":\"b").append(i).append("\",\"owner\":\"bob\",\"text\":\"river river river")
                        .append(" sand".repeat(i % 3)).append("\"},");
            }
            for (int i = 0; i < 8; i++) { // two above every one of bob's, six below them all
                docs.append("{\"_id\":\"a").append(i).append("\",\"owner\":\"alice\",\"text\":\"")
                        .append(i < 2 ? "river river river river" : "river" + " moss".repeat(2 + i % 4)).append("\"},");
            }
            notesWithTextIndexAndRules(server, docs);
            String keysAndSort = "&keys=" + q("{\"owner\":1,\"s\":{\"$meta\":\"textScore\"}}")
                    + "&sort=" + q("{\"s\":{\"$meta\":\"textScore\"}}");
            List<String> all = scored(send(server, "admin", "GET",
                    "/db/notes?filter=" + q(search("river")) + keysAndSort + "&pagesize=1000", null), true);
            assertThat(all).hasSize(8);
            String alicesOnly = "/db/notes?filter=" + q("{\"owner\":\"alice\"," + search("river").substring(1)) + keysAndSort;
            List<String> paged = new ArrayList<>(scored(send(server, "admin", "GET", alicesOnly + "&pagesize=5", null), false));
            assertThat(paged).hasSize(5);
            paged.addAll(scored(send(server, "admin", "GET", alicesOnly + "&pagesize=5&page=2", null), false));
            assertThat(paged).isEqualTo(all);
            assertThat(all.get(0)).startsWith("a0 ");
        }
    }

    /**
     * Two words under the pair cut (river in nearly every document: its idf at FTS5's floor, so
     * only the documents holding both or stone alone are ranked) with a filter term ANDed that
     * keeps alice's 45 of 1,840 matches, spread over the whole ranking: stone alone at the top,
     * both words in the middle, river alone at the bottom (past the cut's rounds, from the full
     * ranking). Paged by 15, the pages are the full ranking's order with the others left out,
     * scores and all, none twice.
     */
    @Test
    void aFilterTermWithTwoWordsUnderTheCutPagesInTheRankingsOrder() throws Exception {
        try (TestServer server = new TestServer()) {
            StringBuilder docs = new StringBuilder("[");
            for (int i = 0; i < 300; i++) {
                docs.append("{\"_id\":\"c").append(i).append("\",\"owner\":\"").append(i % 10 == 0 ? "alice" : "bob")
                        .append("\",\"text\":\"river stone").append(" sand".repeat(i % 4)).append("\"},");
            }
            for (int i = 0; i < 1500; i++) {
                docs.append("{\"_id\":\"r").append(i).append("\",\"owner\":\"").append(i % 300 == 0 ? "alice" : "bob")
                        .append("\",\"text\":\"river").append(" sand".repeat(i % 3)).append("\"},");
            }
            for (int i = 0; i < 40; i++) {
                docs.append("{\"_id\":\"s").append(i).append("\",\"owner\":\"").append(i % 4 == 0 ? "alice" : "bob")
                        .append("\",\"text\":\"stone stone").append(" stone".repeat(i % 2)).append("\"},");
            }
            notesWithTextIndexAndRules(server, docs);
            String keysAndSort = "&keys=" + q("{\"owner\":1,\"s\":{\"$meta\":\"textScore\"}}")
                    + "&sort=" + q("{\"s\":{\"$meta\":\"textScore\"}}");
            List<String> all = new ArrayList<>(); // the whole ranking (pages of 1,000: more than the documents holding both, no cut)
            for (int page = 1; page <= 2; page++) {
                all.addAll(scored(send(server, "admin", "GET",
                        "/db/notes?filter=" + q(search("river stone")) + keysAndSort + "&pagesize=1000&page=" + page, null), true));
            }
            assertThat(all).hasSize(45);
            assertThat(all.getFirst()).startsWith("s");
            assertThat(all.getLast()).startsWith("r");
            String alicesOnly = "/db/notes?filter=" + q("{\"owner\":\"alice\"," + search("river stone").substring(1)) + keysAndSort;
            List<String> paged = new ArrayList<>();
            for (int page = 1; page <= 3; page++) {
                List<String> one = scored(send(server, "admin", "GET", alicesOnly + "&pagesize=15&page=" + page, null), false);
                assertThat(one).as("page " + page).hasSize(15);
                paged.addAll(one);
            }
            assertThat(paged).isEqualTo(all);
        }
    }

    /** Users, /db/notes holding {@code docs} (a JSON array left open after its last comma), its text index on text, and the access rules. */
    private static void notesWithTextIndexAndRules(TestServer server, StringBuilder docs) throws Exception {
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", null);
        docs.setCharAt(docs.length() - 1, ']');
        assertThat(send(server, "admin", "POST", "/db/notes", docs.toString()).statusCode()).isEqualTo(200);
        assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"text\"}}").statusCode())
                .isEqualTo(201);
        AuthorizationMatrixTest.rules(server, "admin");
    }

    /** Alice's documents as "id score" in the caller's find order, the same through a pipeline. */
    private static List<String> alicesScores(TestServer server, String caller) throws Exception {
        String find = "/db/notes?filter=" + q(search("river stone")) + "&pagesize=1000&keys="
                + q("{\"owner\":1,\"s\":{\"$meta\":\"textScore\"}}") + "&sort=" + q("{\"s\":{\"$meta\":\"textScore\"}}");
        String pipeline = "[{\"$match\":" + search("river stone") + "},{\"$sort\":{\"s\":{\"$meta\":\"textScore\"}}},"
                + "{\"$limit\":1000},{\"$project\":{\"owner\":1,\"s\":{\"$meta\":\"textScore\"}}}]";
        boolean admin = caller.equals("admin");
        List<String> found = scored(send(server, caller, "GET", find, null), admin);
        assertThat(scored(send(server, caller, "POST", "/db/notes/_aggrs", pipeline), admin)).isEqualTo(found);
        return found;
    }

    /** The answer's alice documents as "id score" in order (bob's must be there only when {@code othersExpected}). */
    private static List<String> scored(HttpResponse<String> r, boolean othersExpected) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        boolean[] sawBob = {false};
        new JsonMapper().readTree(r.body()).forEach(d -> {
            if (d.get("owner").asString().equals("alice")) {
                out.add(d.get("_id").asString() + " " + d.get("s").asDouble());
            } else {
                sawBob[0] = true;
            }
        });
        assertThat(sawBob[0]).as(r.body()).isEqualTo(othersExpected);
        return out;
    }
}
