package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 22: {@code $text} and {@code textScore} in aggregation pipelines, with MongoDB's rules: a
 * {@code $match} with {@code $text} only as the first stage, answered from the text index with the
 * scores find shows; {@code {"$meta":"textScore"}} in expressions and {@code $sort} only where the
 * documents carry one. Alice and bob (docs/security.md's notes rules) try to see past their rules
 * through it. Runs on both stores.
 */
class AggregationTextHttpTest {
    private static final Json JSON = Json.standard();
    private static final String SCORE = "{\"$meta\":\"textScore\"}";
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(AggregationPartsTest::recording);
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/a", """
                {"aggrs":[{"uri":"search","stages":[
                  {"$match":{"$text":{"$search":{"$var":"words"}}}},
                  {"$sort":{"score":{"$meta":"textScore"}}},
                  {"$project":{"_id":1,"score":{"$meta":"textScore"}}}]}]}""");
        assertThat(send(server, "admin", "PUT", "/db/a/_indexes/t",
                "{\"keys\":{\"title\":\"text\",\"body\":\"text\"},\"ops\":{\"weights\":{\"title\":5}}}").statusCode())
                .isEqualTo(201);
        StringBuilder filler = new StringBuilder("[");
        for (int i = 1; i <= 20; i++) {
            filler.append(i == 1 ? "" : ",").append(String.format(
                    "{\"_id\":\"d%03d\",\"n\":%d,\"title\":\"filler\",\"body\":\"stone wood %s cloud\"}",
                    i, i, i % 4 == 0 ? "river" : "grass"));
        }
        assertThat(send(server, "admin", "POST", "/db/a", filler.append(']').toString()).statusCode()).isEqualTo(200);
        assertThat(send(server, "admin", "POST", "/db/a", """
                [{"_id":"once","n":1,"title":"note","body":"apple stone wood cloud"},
                 {"_id":"thrice","n":2,"title":"note","body":"apple apple apple cloud"},
                 {"_id":"titled","n":2,"title":"apple","body":"stone wood grass cloud"},
                 {"_id":"rare","n":3,"title":"note","body":"quartz stone wood cloud"}]""").statusCode()).isEqualTo(200);
        send(server, "admin", "PUT", "/db/b", null);

        send(server, "admin", "PUT", "/db/notes", null);
        send(server, "admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","text":"shared words here","secret":"hidden gem"},
                 {"_id":"a2","owner":"alice","text":"shared shared words"},
                 {"_id":"b1","owner":"bob","text":"shared words there","secret":"another gem"}]""");
        send(server, "admin", "PUT", "/db/secrets", null);
        send(server, "admin", "POST", "/db/secrets", """
                [{"_id":"s1","owner":"alice","text":"plain","secret":"gem"},
                 {"_id":"s2","owner":"bob","text":"plain","secret":"gem"}]""");
        assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"text\"}}").statusCode())
                .isEqualTo(201);
        assertThat(send(server, "admin", "PUT", "/db/secrets/_indexes/t", "{\"keys\":{\"secret\":\"text\"}}").statusCode())
                .isEqualTo(201);
        AuthorizationMatrixTest.rules(server, "admin");
        send(server, "admin", "POST", "/weft/acl", """
                [{"_id":"notes-adhoc","roles":["user"],"priority":20,
                  "predicate":"path-prefix('/db/notes/_aggrs') or path-prefix('/db/secrets')",
                  "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0},"allowAdhocAggregations":true}]""");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static HttpResponse<String> aggregate(String who, String coll, String pipeline) throws Exception {
        return send(server, who, "POST", "/db/" + coll + "/_aggrs", pipeline);
    }

    private static JsonNode ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.parse(r.body(), "answer");
    }

    private static String message(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        return JSON.parse(r.body(), "error").get("message").asString();
    }

    private static String text(String words) {
        return "{\"$match\":{\"$text\":{\"$search\":\"" + words + "\"}}}";
    }

    /** Find's ranked page of {@code words}: ids and scores, sorted by the score. */
    private static JsonNode find(String who, String coll, String words, int pageSize, int page) throws Exception {
        return ok(send(server, who, "GET", "/db/" + coll + "?pagesize=" + pageSize + "&page=" + page + "&filter="
                + q("{\"$text\":{\"$search\":\"" + words + "\"}}") + "&keys=" + q("{\"_id\":1,\"score\":" + SCORE + "}")
                + "&sort=" + q("{\"score\":" + SCORE + "}"), null));
    }

    @Test
    void aRankedPipelinePageIsFindsRankedPageWithItsScores() throws Exception {
        for (String words : new String[] {"apple", "river quartz", "cloud"}) {
            JsonNode pipeline = ok(aggregate("admin", "a", "[" + text(words) + ",{\"$sort\":{\"score\":" + SCORE + "}},"
                    + "{\"$limit\":4},{\"$project\":{\"_id\":1,\"score\":" + SCORE + "}}]"));
            assertThat(pipeline).as(words).isEqualTo(find("admin", "a", words, 4, 1));
            assertThat(pipeline.size()).isLessThanOrEqualTo(4).isPositive();
        }
        // the stored pipeline (no $limit), its words from avars, pages as find's pages do, with find's scores
        for (int page = 1; page <= 3; page++) {
            JsonNode stored = ok(send(server, "admin", "GET", "/db/a/_aggrs/search?pagesize=2&page=" + page + "&avars="
                    + q("{\"words\":\"apple cloud\"}"), null));
            assertThat(stored).as("page " + page).isEqualTo(find("admin", "a", "apple cloud", 2, page));
        }
        JsonNode first = ok(send(server, "admin", "GET", "/db/a/_aggrs/search?pagesize=2&avars=" + q("{\"words\":\"apple\"}"), null));
        assertThat(first.findValuesAsString("_id")).containsExactly("titled", "thrice");
        // every match as ndjson, in the same order
        HttpResponse<String> all = send(server, "admin", "GET", "/db/a/_aggrs/search?avars=" + q("{\"words\":\"apple\"}"), null);
        assertThat(ok(all).findValuesAsString("_id")).containsExactly("titled", "thrice", "once");
        HttpResponse<String> lines = server.send("GET", "/db/a/_aggrs/search?avars=" + q("{\"words\":\"apple\"}"), null,
                "Authorization", AuthorizationMatrixTest.authorization("admin"), "Accept", "application/x-ndjson");
        assertThat(lines.body().lines().map(l -> JSON.parse(l, "line").get("_id").asString()).toList())
                .containsExactly("titled", "thrice", "once");
    }

    /** What the store is asked to read for {@code request}, as AggregationPartsTest records it. */
    private static List<String> reads(Callable<HttpResponse<String>> request) throws Exception {
        AggregationPartsTest.READS.clear();
        ok(request.call());
        return List.copyOf(AggregationPartsTest.READS);
    }

    @Test
    void theStoreReadsFindsRankedPageNotEveryMatch() throws Exception {
        List<String> find = reads(() -> send(server, "admin", "GET", "/db/a?pagesize=3&filter=" + q("{\"$text\":{\"$search\":\"cloud\"}}")
                + "&sort=" + q("{\"score\":" + SCORE + "}"), null));
        assertThat(find).hasSize(1).allMatch(r -> r.contains("$textScore") && r.endsWith("skip 0 limit 3"));
        assertThat(reads(() -> aggregate("admin", "a", "[" + text("cloud") + ",{\"$sort\":{\"score\":" + SCORE + "}},{\"$limit\":3}]")))
                .isEqualTo(find);
        // paged by the answer, through stages that make one document of each: the page's end is the store's limit
        assertThat(reads(() -> send(server, "admin", "POST", "/db/a/_aggrs?pagesize=3", "[" + text("cloud") + ",{\"$sort\":{\"score\":" + SCORE + "}},"
                + "{\"$project\":{\"score\":" + SCORE + "}}]"))).isEqualTo(find);
        // a count over a search reads the text index's matches, never a scan in parts
        assertThat(reads(() -> aggregate("admin", "a", "[" + text("cloud") + ",{\"$count\":\"n\"}]")))
                .hasSize(1).allMatch(r -> r.startsWith("find ") && r.endsWith("limit " + Long.MAX_VALUE));
    }

    @Test
    void theScoreTravelsThroughStagesUntilOneMakesNewDocuments() throws Exception {
        // other terms of the first $match still decide; the score survives $project, $addFields, $unwind and $replaceWith
        JsonNode carried = ok(aggregate("admin", "a", "[{\"$match\":{\"$text\":{\"$search\":\"apple\"},\"n\":2}},"
                + "{\"$project\":{\"n\":1}},{\"$addFields\":{\"tags\":[\"x\",\"y\"]}},{\"$unwind\":\"$tags\"},"
                + "{\"$replaceWith\":{\"id\":\"$_id\",\"tag\":\"$tags\"}},"
                + "{\"$sort\":{\"s\":" + SCORE + ",\"tag\":-1}},{\"$set\":{\"s\":" + SCORE + "}}]"));
        assertThat(carried.findValuesAsString("id")).containsExactly("titled", "titled", "thrice", "thrice");
        assertThat(carried.findValuesAsString("tag")).containsExactly("y", "x", "y", "x");
        double titled = carried.get(0).get("s").asDouble();
        double thrice = carried.get(2).get("s").asDouble();
        assertThat(titled).isGreaterThan(thrice).isPositive();
        assertThat(carried.get(1).get("s").asDouble()).isEqualTo(titled);
        // no field shows the score unless asked for
        assertThat(carried.get(0).propertyNames()).containsExactly("id", "tag", "s");
        // sorted by the score without a limit (in memory), and summed by $group
        JsonNode all = ok(aggregate("admin", "a", "[" + text("apple river") + ",{\"$addFields\":{\"s\":" + SCORE + "}},"
                + "{\"$sort\":{\"s\":-1,\"_id\":1}},{\"$group\":{\"_id\":null,\"n\":{\"$sum\":1},\"total\":{\"$sum\":" + SCORE + "},"
                + "\"best\":{\"$first\":\"$_id\"}}}]"));
        assertThat(all.get(0).get("n").asInt()).isEqualTo(8);
        assertThat(all.get(0).get("best").asString()).isEqualTo("titled");
        assertThat(all.get(0).get("total").asDouble()).isPositive();
        // after $group the documents are new: they have no score (MongoDB's words)
        HttpResponse<String> afterGroup = aggregate("admin", "a", "[" + text("apple") + ",{\"$group\":{\"_id\":\"$n\"}},"
                + "{\"$project\":{\"s\":" + SCORE + "}}]");
        assertThat(message(afterGroup, 400)).isEqualTo("query requires text score metadata, but it is not available");
        // $facet's pipelines see the scores of their input
        JsonNode facet = ok(aggregate("admin", "a", "[" + text("apple") + ",{\"$facet\":{\"top\":[{\"$sort\":{\"s\":" + SCORE
                + "}},{\"$limit\":1},{\"$project\":{\"_id\":1}}]}}]"));
        assertThat(facet.toString()).isEqualTo("[{\"top\":[{\"_id\":\"titled\"}]}]");
    }

    @Test
    void textOnlyInTheFirstStageAndScoresOnlyAfterIt() throws Exception {
        String notFirst = "$match with $text is only allowed as the first pipeline stage";
        assertThat(message(aggregate("admin", "a", "[{\"$match\":{\"n\":2}}," + text("apple") + "]"), 400)).isEqualTo(notFirst);
        assertThat(message(aggregate("admin", "a", "[{\"$facet\":{\"f\":[" + text("apple") + "]}}]"), 400)).isEqualTo(notFirst);
        assertThat(message(aggregate("admin", "a", "[{\"$lookup\":{\"from\":\"a\",\"pipeline\":[" + text("apple")
                + "],\"as\":\"j\"}}]"), 400)).isEqualTo(notFirst);
        // a stored pipeline is refused when defined, and nothing is stored
        assertThat(message(send(server, "admin", "PUT", "/db/late", "{\"aggrs\":[{\"uri\":\"late\",\"stages\":"
                + "[{\"$sort\":{\"_id\":1}}," + text("apple") + "]}]}"), 400)).isEqualTo("aggregation late: " + notFirst);
        assertThat(send(server, "admin", "GET", "/db/late", null).statusCode()).isEqualTo(404);
        assertThat(message(aggregate("admin", "a", "[{\"$match\":{\"$or\":[{\"$text\":{\"$search\":\"apple\"}},{\"n\":1}]}}]"), 400))
                .startsWith("$text is not allowed in this context");
        String noScore = "query requires text score metadata, but it is not available";
        assertThat(message(aggregate("admin", "a", "[{\"$sort\":{\"s\":" + SCORE + "}}]"), 400)).isEqualTo(noScore);
        assertThat(message(aggregate("admin", "a", "[{\"$match\":{\"n\":1}},{\"$project\":{\"s\":" + SCORE + "}}]"), 400))
                .isEqualTo(noScore);
        assertThat(message(aggregate("admin", "a", "[" + text("apple") + ",{\"$lookup\":{\"from\":\"a\",\"pipeline\":"
                + "[{\"$project\":{\"s\":" + SCORE + "}}],\"as\":\"j\"}}]"), 400)).isEqualTo(noScore);
        assertThat(message(aggregate("admin", "a", "[" + text("apple") + ",{\"$project\":{\"s\":{\"$meta\":\"searchScore\"}}}]"), 400))
                .startsWith("unsupported $meta");
        // without a text index, MongoDB's words; and a $text match with an $expr still goes to the index
        assertThat(message(aggregate("admin", "b", "[" + text("apple") + "]"), 400)).isEqualTo("text index required for $text query");
        JsonNode withExpr = ok(aggregate("admin", "a", "[{\"$match\":{\"$text\":{\"$search\":\"apple\"},"
                + "\"$expr\":{\"$gt\":[\"$n\",1]}}},{\"$sort\":{\"_id\":1}},{\"$project\":{\"_id\":1}}]"));
        assertThat(withExpr.toString()).isEqualTo("[{\"_id\":\"thrice\"},{\"_id\":\"titled\"}]");
    }

    @Test
    void aRestrictedUserSeesNoMoreThroughTextThanThroughFind() throws Exception {
        // the read filter is still the first $match: alice's documents only, scored by MongoDB's per-document
        // formula (as find scores them for her), which bob's documents do not move
        String pipeline = "[" + text("shared") + ",{\"$sort\":{\"score\":" + SCORE + "}},{\"$limit\":5},"
                + "{\"$project\":{\"_id\":1,\"score\":" + SCORE + "}}]";
        HttpResponse<String> alice = aggregate("alice", "notes", pipeline);
        assertThat(alice.statusCode()).as(alice.body()).isEqualTo(200);
        assertThat(alice.body()).isEqualTo("[{\"_id\":\"a2\",\"score\":1.25},{\"_id\":\"a1\",\"score\":0.75}]");
        assertThat(JSON.parse(alice.body(), "answer")).isEqualTo(find("alice", "notes", "shared", 5, 1));
        assertThat(aggregate("bob", "notes", pipeline).body()).isEqualTo("[{\"_id\":\"b1\",\"score\":0.75}]");
        // a $group over the search counts only what the rule lets her read
        assertThat(aggregate("alice", "notes", "[" + text("shared") + ",{\"$count\":\"n\"}]").body()).isEqualTo("[{\"n\":2}]");
        // a text index over the field her projectResponse hides cannot be queried: 403, as find is refused
        HttpResponse<String> hidden = aggregate("alice", "secrets", "[" + text("gem") + ",{\"$count\":\"n\"}]");
        assertThat(hidden.statusCode()).as(hidden.body()).isEqualTo(403);
        assertThat(hidden.body()).contains("secret").doesNotContain("\"n\"");
        assertThat(send(server, "alice", "GET", "/db/secrets?filter=" + q("{\"$text\":{\"$search\":\"gem\"}}"), null)
                .statusCode()).isEqualTo(403);
        HttpResponse<String> admin = aggregate("admin", "secrets", "[" + text("gem") + ",{\"$count\":\"n\"}]");
        assertThat(admin.body()).isEqualTo("[{\"n\":2}]");
    }
}
