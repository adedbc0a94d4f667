package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** PATCH and bulk PATCH whose body is a pipeline (MongoDB's pipeline updates, RESTHeart's patchWithAggregation.feature). */
class PipelineUpdatesTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "c");
        AuthorizationMatrixTest.users(weft);
        send(weft, "admin", "PUT", "/db/notes", null);
        send(weft, "admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","text":"alice-text","secret":"alice-secret"},
                 {"_id":"b1","owner":"bob","text":"bob-text"}]""");
        AuthorizationMatrixTest.rules(weft, "admin");
        // PATCHes of notes: the notes-write rule, and secret hidden (what $rename from it is refused by, too)
        send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"notes-patch","roles":["user"],"priority":20,
                 "predicate":"path-prefix('/db/notes') and method(PATCH)",
                 "readFilter":{"owner":"@user._id"},"writeFilter":{"owner":"@user._id"},
                 "protectedFields":["owner"],"projectResponse":{"secret":0}}""");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    private static JsonNode doc(String path) throws Exception {
        return dev.weft.core.Json.standard().parse(weft.get(path).body(), "test");
    }

    @Test
    void restheartsPatchWithAggregationFeature() throws Exception {
        long before = System.currentTimeMillis();
        HttpResponse<String> created = weft.patch("/db/c/doc?wm=upsert", """
                [{"$set":{"foo":1,"date":"$$NOW"}},
                 {"$set":{"bar":{"$switch":{"branches":[{"case":{"$gte":["$foo",0]},"then":true}],"default":false}}}}]""");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode doc = doc("/db/c/doc");
        assertThat(doc.get("foo").intValue()).isEqualTo(1);
        assertThat(doc.get("date").get("$date").longValue()).isBetween(before, System.currentTimeMillis());
        assertThat(doc.get("bar").booleanValue()).isTrue();
    }

    @Test
    void everyStageKindOnOneDocument() throws Exception {
        weft.post("/db/c", "{\"_id\":\"p\",\"a\":2,\"b\":{\"c\":3},\"gone\":1}");
        HttpResponse<String> r = weft.patch("/db/c/p", """
                [{"$addFields":{"sum":{"$add":["$a","$b.c"]}}},{"$unset":"gone"},
                 {"$project":{"a":1,"sum":1,"label":{"$concat":["n-",{"$toString":"$sum"}]}}}]""");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(weft.get("/db/c/p").body()).startsWith("{\"_id\":\"p\",\"a\":2,\"sum\":5,\"label\":\"n-5\",\"_etag\"");
        assertThat(weft.patch("/db/c/p", "[{\"$replaceWith\":{\"x\":\"$a\"}}]").statusCode()).isEqualTo(200);
        assertThat(weft.get("/db/c/p").body()).startsWith("{\"_id\":\"p\",\"x\":2,\"_etag\"");
    }

    @Test
    void badPipelinesAreRefusedAndChangeNothing() throws Exception {
        weft.post("/db/c", "{\"_id\":\"q\",\"a\":1}");
        String stored = weft.get("/db/c/q").body();
        for (String body : new String[] {
                "[{\"$group\":{\"_id\":null}}]", "[{\"$set\":{\"a\":{\"$frob\":1}}}]", "[{\"$set\":{\"_id\":2}}]",
                "[{\"$set\":{\"a\":{\"$concat\":[\"x\",1]}}}]", "[]", "[{\"$set\":{\"a\":{\"$pow\":[10,400.5]}}}]",
                "[{\"$replaceWith\":{\"$literal\":{\"$x\":1}}}]"}) {
            HttpResponse<String> r = weft.patch("/db/c/q", body);
            assertThat(r.statusCode()).as(body + " -> " + r.body()).isEqualTo(400);
        }
        assertThat(weft.get("/db/c/q").body()).isEqualTo(stored);
        assertThat(weft.patch("/db/c/missing", "[{\"$set\":{\"a\":1}}]").statusCode()).isEqualTo(404);
    }

    @Test
    void bulkPatchWithAPipeline() throws Exception {
        weft.createCollection("db", "bulk");
        weft.post("/db/bulk", "[{\"_id\":1,\"n\":1},{\"_id\":2,\"n\":2},{\"_id\":3,\"n\":3}]");
        HttpResponse<String> r = weft.patch("/db/bulk/*?filter=" + q("{\"n\":{\"$gte\":2}}"),
                "[{\"$set\":{\"double\":{\"$multiply\":[\"$n\",2]}}}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"modified\":2");
        assertThat(weft.post("/db/bulk/_aggrs", "[{\"$project\":{\"double\":1}},{\"$sort\":{\"_id\":1}}]").body())
                .isEqualTo("[{\"_id\":1},{\"_id\":2,\"double\":4},{\"_id\":3,\"double\":6}]");
    }

    @Test
    void theWriteRulesStillHold() throws Exception {
        // owner is protected for alice and bob: a pipeline may not change it, and nothing is written
        HttpResponse<String> owner = send(weft, "alice", "PATCH", "/db/notes/a1", "[{\"$set\":{\"owner\":\"bob\"}}]");
        assertThat(owner.statusCode()).isEqualTo(403);
        HttpResponse<String> replaced = send(weft, "alice", "PATCH", "/db/notes/a1", "[{\"$replaceWith\":{\"text\":\"t\"}}]");
        assertThat(replaced.statusCode()).isEqualTo(403);
        // secret is hidden from alice by her PATCH rule: copying it into a visible field is refused before anything runs
        HttpResponse<String> copy = send(weft, "alice", "PATCH", "/db/notes/a1", "[{\"$set\":{\"text\":\"$secret\"}}]");
        assertThat(copy.statusCode()).isEqualTo(403);
        assertThat(copy.body()).contains("secret");
        // bob's note is outside alice's filters: as missing
        assertThat(send(weft, "alice", "PATCH", "/db/notes/b1", "[{\"$set\":{\"text\":\"x\"}}]").statusCode()).isEqualTo(404);
        assertThat(send(weft, "admin", "GET", "/db/notes/a1", null).body()).contains("\"owner\":\"alice\"", "alice-text",
                "alice-secret");
        // a change within the rules is applied
        HttpResponse<String> ok = send(weft, "alice", "PATCH", "/db/notes/a1", "[{\"$set\":{\"text\":{\"$toUpper\":\"$text\"}}}]");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
        assertThat(send(weft, "alice", "GET", "/db/notes/a1", null).body()).contains("ALICE-TEXT").doesNotContain("secret");
        // the users collection takes operators only (its policy hashes passwords)
        assertThat(weft.patch("/weft/users/alice", "[{\"$set\":{\"password\":\"plain-Text-1\"}}]").statusCode()).isEqualTo(400);
    }
}
