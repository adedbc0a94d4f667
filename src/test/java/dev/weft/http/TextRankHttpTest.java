package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 22, item 1 (ranked in the store): a {@code $text} page sorted by {@code textScore} comes
 * in the store's relevance order (SQLite's bm25, PostgreSQL's idf-weighted ts_rank), more
 * occurrences, rarer words and heavier fields first, ties by ascending {@code _id}; pages cut from
 * that order agree with one long page; other filter terms still decide, also when their matches lie
 * deep in the rank order; the score shown is the one sorted by. A reader narrowed by a read rule
 * gets MongoDB's per-document score, which documents it cannot read do not move. A transaction
 * that wrote to the collection keeps the store's order for the stored documents (its own are
 * scored by MongoDB's formula). Runs on both stores.
 */
class TextRankHttpTest {
    private static final Json JSON = Json.standard();
    private static final String SCORED = "&keys=" + q("{\"_id\":1,\"score\":{\"$meta\":\"textScore\"}}")
            + "&sort=" + q("{\"score\":{\"$meta\":\"textScore\"}}");

    private static String search(String words) {
        return "{\"$text\":{\"$search\":\"" + words + "\"}}";
    }

    /** The page's documents as (_id, score) pairs, in order, after checking the scores fall. */
    private static List<String> ranked(TestServer weft, String path) throws Exception {
        HttpResponse<String> r = weft.get(path);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> ids = new ArrayList<>();
        double previous = Double.MAX_VALUE;
        for (JsonNode doc : JSON.parse(r.body(), "page")) {
            double score = doc.get("score").asDouble();
            assertThat(score).as(r.body()).isPositive().isLessThanOrEqualTo(previous);
            previous = score;
            ids.add(doc.get("_id").asString());
        }
        return ids;
    }

    private static String docs(int from, int to, java.util.function.IntFunction<String> body) {
        StringBuilder out = new StringBuilder("[");
        for (int i = from; i <= to; i++) {
            out.append(i == from ? "" : ",").append("{\"_id\":\"").append(String.format("d%03d", i)).append("\",")
                    .append(body.apply(i)).append('}');
        }
        return out.append(']').toString();
    }

    @Test
    void moreOccurrencesRarerWordsAndHeavierFieldsFirst() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "a");
            assertThat(weft.put("/db/a/_indexes/t", "{\"keys\":{\"title\":\"text\",\"body\":\"text\"},"
                    + "\"ops\":{\"weights\":{\"title\":5}}}").statusCode()).isEqualTo(201);
            // twenty documents of filler words, "river" in five of them
            assertThat(weft.post("/db/a", docs(1, 20, i -> "\"title\":\"filler\",\"body\":\"stone wood "
                    + (i % 4 == 0 ? "river" : "grass") + " cloud\"")).statusCode()).isEqualTo(200);
            assertThat(weft.post("/db/a", """
                    [{"_id":"once","title":"note","body":"apple stone wood cloud"},
                     {"_id":"thrice","title":"note","body":"apple apple apple cloud"},
                     {"_id":"titled","title":"apple","body":"stone wood grass cloud"},
                     {"_id":"rare","title":"note","body":"quartz stone wood cloud"}]""").statusCode()).isEqualTo(200);
            String path = "/db/a?filter=";
            assertThat(ranked(weft, path + q(search("apple")) + SCORED)).containsExactly("titled", "thrice", "once");
            // the rare word outranks the common one, each once in a document as long
            List<String> rareFirst = ranked(weft, path + q(search("river quartz")) + SCORED);
            assertThat(rareFirst).hasSize(6);
            assertThat(rareFirst.getFirst()).isEqualTo("rare");
            assertThat(rareFirst.subList(1, 6)).containsExactly("d004", "d008", "d012", "d016", "d020");
        }
    }

    @Test
    void pagesAgreeWithOneLongPageAndOtherTermsStillDecide() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "a");
            assertThat(weft.put("/db/a/_indexes/t", "{\"keys\":{\"body\":\"text\"}}").statusCode()).isEqualTo(201);
            // 150 matches with 1 to 3 occurrences (ties within each), and 50 without the word
            assertThat(weft.post("/db/a", docs(1, 200, i -> "\"n\":" + i + ",\"body\":\""
                    + (i > 150 ? "other words" : ("lamp ".repeat(1 + i % 3) + "desk chair").trim()) + "\"")).statusCode())
                    .isEqualTo(200);
            String filter = "/db/a?filter=" + q(search("lamp")) + SCORED;
            List<String> all = ranked(weft, filter + "&pagesize=200");
            assertThat(all).hasSize(150).doesNotHaveDuplicates();
            // three occurrences first (i % 3 == 2), ties by ascending _id
            assertThat(all.subList(0, 3)).containsExactly("d002", "d005", "d008");
            List<String> paged = new ArrayList<>();
            for (int page = 1; page <= 8; page++) {
                paged.addAll(ranked(weft, filter + "&pagesize=20&page=" + page));
            }
            assertThat(paged).isEqualTo(all);
            // other terms decide, their matches deep in the rank order (after every 3- and 2-occurrence one)
            String selective = "/db/a?filter=" + q("{\"$text\":{\"$search\":\"lamp\"},\"n\":{\"$in\":[3,99,150,151]}}")
                    + SCORED + "&pagesize=2";
            assertThat(ranked(weft, selective)).containsExactly("d003", "d099");
            assertThat(ranked(weft, selective + "&page=2")).containsExactly("d150");
            // inside a transaction that wrote to the collection, its reads merge the store's ranked page with its own writes
            String location = weft.post("/_sessions", null).headers().firstValue("Location").orElseThrow();
            String sid = location.substring(location.length() - 36);
            String txnLocation = weft.post("/_sessions/" + sid + "/_txns", null).headers().firstValue("Location").orElseThrow();
            String txn = txnLocation.substring(txnLocation.lastIndexOf('/') + 1);
            assertThat(weft.post("/db/a?sid=" + sid + "&txn=" + txn, "{\"_id\":\"d000\",\"body\":\"lamp desk\"}").statusCode())
                    .isEqualTo(201);
            List<String> inTxn = ranked(weft, filter + "&pagesize=200&sid=" + sid + "&txn=" + txn);
            assertThat(inTxn).contains("d000").hasSize(151);
            assertThat(inTxn.stream().filter(id -> !id.equals("d000")).toList()).isEqualTo(all);

            // sorted by another field first: the score still shown, the one the store ranked by
            HttpResponse<String> byN = weft.get("/db/a?filter=" + q("{\"$text\":{\"$search\":\"lamp\"},\"n\":{\"$lte\":2}}")
                    + "&keys=" + q("{\"_id\":1,\"score\":{\"$meta\":\"textScore\"}}") + "&sort=" + q("{\"n\":-1}"));
            JsonNode two = JSON.parse(byN.body(), "page");
            assertThat(two.size()).isEqualTo(2);
            assertThat(two.get(0).get("_id").asString()).isEqualTo("d002");
            assertThat(two.get(0).get("score").asDouble()).isGreaterThan(two.get(1).get("score").asDouble());
        }
    }

    /** More equal scores than the store is first asked for (about twice the page): none is lost or repeated between pages. */
    @Test
    void aLongRunOfEqualScoresPagesByIdWithoutGapsOrRepeats() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "a");
            assertThat(weft.put("/db/a/_indexes/t", "{\"keys\":{\"body\":\"text\"}}").statusCode()).isEqualTo(201);
            // 150 equal documents, written from the highest _id down, and one that outranks them
            StringBuilder equal = new StringBuilder("[");
            for (int i = 150; i >= 1; i--) {
                equal.append(i == 150 ? "" : ",").append(String.format("{\"_id\":\"d%03d\",\"body\":\"kettle desk chair\"}", i));
            }
            assertThat(weft.post("/db/a", equal.append(']').toString()).statusCode()).isEqualTo(200);
            assertThat(weft.post("/db/a", "{\"_id\":\"top\",\"body\":\"kettle kettle kettle\"}").statusCode()).isEqualTo(201);
            String filter = "/db/a?filter=" + q(search("kettle")) + SCORED;
            List<String> paged = new ArrayList<>();
            for (int page = 1; page <= 76; page++) {
                paged.addAll(ranked(weft, filter + "&pagesize=2&page=" + page));
            }
            List<String> expected = new ArrayList<>(List.of("top"));
            for (int i = 1; i <= 150; i++) {
                expected.add(String.format("d%03d", i));
            }
            assertThat(paged).isEqualTo(expected);
            assertThat(ranked(weft, filter + "&pagesize=3&page=34")).containsExactly("d099", "d100", "d101");
        }
    }

    @Test
    void aNarrowedReaderGetsOnlyItsDocumentsAndAScoreTheOthersDoNotMove() throws Exception {
        try (TestServer server = new TestServer()) {
            AuthorizationMatrixTest.users(server);
            send(server, "admin", "PUT", "/db", null);
            send(server, "admin", "PUT", "/db/notes", null);
            send(server, "admin", "POST", "/db/notes", """
                    [{"_id":"a1","owner":"alice","text":"shared words here"},
                     {"_id":"a2","owner":"alice","text":"shared shared words"},
                     {"_id":"b1","owner":"bob","text":"shared words there"}]""");
            assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"text\"}}").statusCode())
                    .isEqualTo(201);
            AuthorizationMatrixTest.rules(server, "admin");
            String scored = "/db/notes?filter=" + q(search("shared")) + SCORED;
            HttpResponse<String> before = send(server, "alice", "GET", scored, null);
            assertThat(before.statusCode()).as(before.body()).isEqualTo(200);
            // MongoDB's per-document score: 0.75 for one occurrence in two terms, 1.25 for two in three
            assertThat(before.body()).isEqualTo("[{\"_id\":\"a2\",\"score\":1.25},{\"_id\":\"a1\",\"score\":0.75}]");
            // bob's documents holding the word change the collection's statistics, not alice's scores
            StringBuilder more = new StringBuilder("[");
            for (int i = 0; i < 30; i++) {
                more.append(i == 0 ? "" : ",").append("{\"_id\":\"bb").append(i).append("\",\"owner\":\"bob\",\"text\":\"shared\"}");
            }
            send(server, "admin", "POST", "/db/notes", more.append(']').toString());
            assertThat(send(server, "alice", "GET", scored, null).body()).isEqualTo(before.body());
        }
    }
}
