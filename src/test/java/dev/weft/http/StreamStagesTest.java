package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Sse;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A change stream's stages through the HTTP API over SSE: {@code $match} on any event field, and
 * {@code $project}, {@code $addFields}, {@code $set}, {@code $unset} shaping each event after the
 * subscriber's access rule. dave's rule on {@code /sdb} hides {@code secret}; each test writes to
 * its own collection and reads it from the start of the log, so its events are known exactly.
 */
class StreamStagesTest {
    private static final String FROM_START = "resumeAfter=0000000000000000";
    private static final String DAVE = TestServer.basic("dave", "dave-Password-1");

    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        status(weft.put("/sdb", null), 201);
        status(weft.post("/weft/users", "{\"_id\":\"dave\",\"password\":\"dave-Password-1\",\"roles\":[\"hides\"]}"), 201);
        status(weft.post("/weft/acl", """
                [{"_id":"hides-secret","roles":["hides"],"priority":10,"predicate":"path-prefix('/sdb')",
                  "projectResponse":{"secret":0},"allowAdhocAggregations":true},
                 {"_id":"no-adhoc","roles":["plain"],"priority":10,"predicate":"path-prefix('/sdb')"}]"""), 200);
        status(weft.post("/weft/users", "{\"_id\":\"erin\",\"password\":\"erin-Password-1\",\"roles\":[\"plain\"]}"), 201);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    private static void status(HttpResponse<String> r, int expected) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(expected);
    }

    private static void collection(String coll, String streams) throws Exception {
        status(weft.put("/sdb/" + coll, "{\"streams\":" + streams + "}"), 201);
    }

    /** The event without its token and wall clock, which vary. */
    private static String stable(JsonNode event) {
        assertThat(event.path("_id").path("_data").asString()).hasSize(16);
        tools.jackson.databind.node.ObjectNode copy = (tools.jackson.databind.node.ObjectNode) event.deepCopy();
        copy.remove("_id");
        copy.remove("wallTime");
        return copy.toString();
    }

    @Test
    void matchOnAnyEventField() throws Exception {
        collection("anyfield", """
                [{"uri":"paid","stages":[{"$match":{"operationType":"update","ns.coll":"anyfield",
                  "updateDescription.updatedFields.status":"paid","documentKey._id":{"$in":["a","b"]}}}]}]""");
        try (Sse sse = Sse.open(weft, "/sdb/anyfield/_streams/paid?" + FROM_START)) {
            assertThat(sse.status()).isEqualTo(200);
            status(weft.post("/sdb/anyfield", "[{\"_id\":\"a\",\"status\":\"new\"},{\"_id\":\"c\",\"status\":\"new\"}]"), 200);
            status(weft.patch("/sdb/anyfield/c", "{\"$set\":{\"status\":\"paid\"}}"), 200);
            status(weft.patch("/sdb/anyfield/a", "{\"$set\":{\"status\":\"late\"}}"), 200);
            status(weft.patch("/sdb/anyfield/a", "{\"$set\":{\"status\":\"paid\"}}"), 200);
            JsonNode e = sse.next(10);
            assertThat(e.path("operationType").asString()).isEqualTo("update");
            assertThat(e.path("documentKey").toString()).isEqualTo("{\"_id\":\"a\"}");
            assertThat(e.path("fullDocument").path("status").asString()).isEqualTo("paid");
            assertThat(sse.poll(500)).isNull();
        }
    }

    @Test
    void stagesShapeEachEventAndKeepItsToken() throws Exception {
        collection("shaped", """
                [{"uri":"names","stages":[{"$match":{"operationType":"insert"}},
                  {"$project":{"operationType":1,"fullDocument.name":1,"fullDocument.n":1}},
                  {"$addFields":{"upper":{"$toUpper":"$fullDocument.name"}}},
                  {"$set":{"twice":{"$multiply":["$fullDocument.n",2]}}},
                  {"$match":{"twice":{"$gt":2}}},
                  {"$unset":["operationType","fullDocument.n"]}]}]""");
        try (Sse sse = Sse.open(weft, "/sdb/shaped/_streams/names?" + FROM_START)) {
            assertThat(sse.status()).isEqualTo(200);
            status(weft.post("/sdb/shaped", "[{\"_id\":\"a\",\"name\":\"ann\",\"n\":1,\"x\":true},{\"_id\":\"b\",\"name\":\"bob\",\"n\":3,\"x\":true}]"), 200);
            status(weft.patch("/sdb/shaped/b", "{\"$set\":{\"n\":9}}"), 200);
            JsonNode e = sse.next(10);
            assertThat(stable(e)).isEqualTo("{\"fullDocument\":{\"name\":\"bob\"},\"upper\":\"BOB\",\"twice\":6}");
            assertThat(sse.poll(500)).isNull();
            String token = e.get("_id").get("_data").asString();
            status(weft.post("/sdb/shaped", "{\"_id\":3,\"name\":\"cy\",\"n\":5}"), 201);
            try (Sse resumed = Sse.open(weft, "/sdb/shaped/_streams/names?resumeAfter=" + token)) {
                assertThat(stable(resumed.next(10))).isEqualTo("{\"fullDocument\":{\"name\":\"cy\"},\"upper\":\"CY\",\"twice\":10}");
            }
        }
    }

    @Test
    void adhocStreamTakesStagesOverTheEvent() throws Exception {
        status(weft.put("/sdb/adhoc", null), 201);
        String stages = "[{\"$addFields\":{\"op\":\"$operationType\"}},{\"$project\":{\"documentKey\":1,\"fullDocument.name\":1,\"op\":1}}]";
        try (Sse sse = Sse.open(weft, "/sdb/adhoc/_streams?" + FROM_START + "&filter=" + q("{\"name\":\"bob\"}")
                + "&stages=" + q(stages))) {
            assertThat(sse.status()).isEqualTo(200);
            status(weft.post("/sdb/adhoc", "[{\"_id\":1,\"name\":\"ann\"},{\"_id\":2,\"name\":\"bob\",\"age\":4}]"), 200);
            assertThat(stable(sse.next(10))).isEqualTo("{\"documentKey\":{\"_id\":2},\"fullDocument\":{\"name\":\"bob\"},\"op\":\"insert\"}");
            assertThat(sse.poll(500)).isNull();
        }
    }

    @Test
    void aStageThatLosesTheResumeTokenOrIsNotAllowedIs400() throws Exception {
        status(weft.put("/sdb/bad", null), 201);
        for (String stage : new String[] {"{\"$unset\":\"_id\"}", "{\"$unset\":[\"a\",\"_id._data\"]}", "{\"$project\":{\"_id\":0}}",
                "{\"$set\":{\"_id\":1}}", "{\"$addFields\":{\"_id._data\":\"x\"}}"}) {
            HttpResponse<String> r = weft.put("/sdb/bad", "{\"streams\":[{\"uri\":\"s\",\"stages\":[" + stage + "]}]}");
            status(r, 400);
            assertThat(r.body()).contains("resume token");
            try (Sse sse = Sse.open(weft, "/sdb/bad/_streams?stages=" + q("[" + stage + "]"))) {
                assertThat(sse.status()).isEqualTo(400);
                assertThat(sse.body()).contains("resume token");
            }
        }
        HttpResponse<String> r = weft.put("/sdb/bad", "{\"streams\":[{\"uri\":\"s\",\"stages\":[{\"$group\":{\"_id\":null}}]}]}");
        status(r, 400);
        assertThat(r.body()).contains("stage $group is not supported on a change stream");
        try (Sse sse = Sse.open(weft, "/sdb/bad/_streams?stages=" + q("[{\"$limit\":1}]"))) {
            assertThat(sse.status()).isEqualTo(400);
            assertThat(sse.body()).contains("stage $limit is not supported on a change stream");
        }
        status(weft.put("/sdb/bad", "{\"streams\":[{\"uri\":\"s\",\"stages\":[{\"$project\":{\"_id\":1,\"fullDocument\":1}}]}]}"), 200);
    }

    @Test
    void aStageFailingOnAnEventEndsTheStreamWithTheReason() throws Exception {
        collection("failing", """
                [{"uri":"toint","stages":[{"$addFields":{"n":{"$toInt":"$fullDocument.s"}}}]}]""");
        try (Sse sse = Sse.open(weft, "/sdb/failing/_streams/toint?" + FROM_START)) {
            assertThat(sse.status()).isEqualTo(200);
            status(weft.post("/sdb/failing", "{\"_id\":\"a\",\"s\":\"12\"}"), 201);
            assertThat(sse.next(10).path("n").asInt()).isEqualTo(12);
            status(weft.post("/sdb/failing", "{\"_id\":\"b\",\"s\":\"twelve\"}"), 201);
            assertThat(sse.ended.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .startsWith("1008 a stage of the stream failed on event ");
            assertThat(sse.poll(200)).isNull();
        }
        assertThat(weft.get("/sdb/failing/a").statusCode()).isEqualTo(200);
    }

    @Test
    void adhocStagesNeedAllowAdhocAggregations() throws Exception {
        status(weft.put("/sdb/gate", null), 201);
        String erin = TestServer.basic("erin", "erin-Password-1");
        try (Sse sse = Sse.open(weft, "/sdb/gate/_streams?stages=" + q("[{\"$project\":{\"fullDocument\":1}}]"),
                "Authorization", erin)) {
            assertThat(sse.status()).isEqualTo(403);
            assertThat(sse.body()).contains("allowAdhocAggregations");
        }
        try (Sse sse = Sse.open(weft, "/sdb/gate/_streams", "Authorization", erin)) {
            assertThat(sse.status()).isEqualTo(200);
        }
    }

    @Test
    void aRestrictedUserCannotBringAHiddenFieldIntoSight() throws Exception {
        collection("hidden", """
                [{"uri":"reveal","stages":[{"$addFields":{"shown":"$fullDocument.secret"}}]},
                 {"uri":"pick","stages":[{"$project":{"fullDocument.secret":1}}]},
                 {"uri":"open","stages":[{"$addFields":{"name2":"$fullDocument.name"}}]}]""");
        for (String path : new String[] {"/sdb/hidden/_streams/reveal", "/sdb/hidden/_streams/pick",
                "/sdb/hidden/_streams?stages=" + q("[{\"$set\":{\"s\":{\"$concat\":[\"$fullDocument.secret\",\"\"]}}}]")}) {
            try (Sse sse = Sse.open(weft, path, "Authorization", DAVE)) {
                assertThat(sse.status()).as(path).isEqualTo(403);
            }
        }
        try (Sse sse = Sse.open(weft, "/sdb/hidden/_streams/open?" + FROM_START, "Authorization", DAVE)) {
            assertThat(sse.status()).isEqualTo(200);
            status(weft.post("/sdb/hidden", "{\"_id\":1,\"name\":\"ann\",\"secret\":\"s3\"}"), 201);
            JsonNode e = sse.next(10);
            assertThat(e.path("name2").asString()).isEqualTo("ann");
            assertThat(e.path("fullDocument").has("secret")).isFalse();
            assertThat(e.toString()).doesNotContain("s3");
        }
    }
}
