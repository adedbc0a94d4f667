package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class BulkEndpointsTest {
    static TestServer weft;
    static final Json JSON = Json.standard();

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        for (String coll : new String[] {"bulk", "partial", "updates", "atomic"}) {
            weft.createCollection("db", coll);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static JsonNode json(HttpResponse<String> r) {
        return JSON.parse(r.body(), "response");
    }

    @Test
    void bulkPatchAndDeleteByFilter() throws Exception {
        weft.post("/db/bulk", "[{\"_id\":1,\"g\":\"a\"},{\"_id\":2,\"g\":\"a\"},{\"_id\":3,\"g\":\"b\"}]");
        HttpResponse<String> patched = weft.patch("/db/bulk/*?filter=" + q("{\"g\":\"a\"}"), "{\"$set\":{\"seen\":true}}");
        assertThat(patched.statusCode()).isEqualTo(200);
        assertThat(json(patched).get("modified").asInt()).isEqualTo(2);
        assertThat(json(weft.get("/db/bulk/_size?filter=" + q("{\"seen\":true}"))).get("_size").asInt()).isEqualTo(2);
        HttpResponse<String> deleted = weft.delete("/db/bulk/*?filter=" + q("{\"seen\":true}"));
        assertThat(json(deleted).get("deleted").asInt()).isEqualTo(2);
        assertThat(json(weft.get("/db/bulk/_size")).get("_size").asInt()).isEqualTo(1);
    }

    @Test
    void bulkWritesNeedAFilter() throws Exception {
        assertThat(weft.delete("/db/bulk/*").statusCode()).isEqualTo(400);
        assertThat(weft.patch("/db/bulk/*", "{\"$set\":{\"x\":1}}").statusCode()).isEqualTo(400);
    }

    @Test
    void bulkInsertWithSomeExistingInsertsTheOthersAndAnswers207() throws Exception {
        weft.post("/db/partial", "{\"_id\":\"there\"}");
        HttpResponse<String> r = weft.post("/db/partial", "[{\"_id\":\"p1\"},{\"_id\":\"there\"},{\"_id\":\"p2\"}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(207);
        assertThat(r.body()).isEqualTo("{\"inserted\":2,\"deleted\":0,\"modified\":0,\"matched\":0,\"errors\":["
                + "{\"index\":1,\"httpStatus\":409,\"message\":\"duplicate _id: a document with _id \\\"there\\\" already exists\"}],"
                + "\"links\":[\"/db/partial/p1\",\"/db/partial/p2\"]}");
        assertThat(weft.get("/db/partial/p1").statusCode()).isEqualTo(200);
        assertThat(weft.get("/db/partial/p2").statusCode()).isEqualTo(200);
        // nothing clashing: 200, as before
        HttpResponse<String> clean = weft.post("/db/partial", "[{\"_id\":\"p3\"}]");
        assertThat(clean.statusCode()).isEqualTo(200);
        assertThat(json(clean).has("errors")).isFalse();
    }

    @Test
    void bulkUpdateOfMissingDocumentsMatchesNothingAsRestheart() throws Exception {
        weft.post("/db/updates", "{\"_id\":\"u1\",\"v\":0}");
        HttpResponse<String> r = weft.post("/db/updates?wm=update", "[{\"_id\":\"u1\",\"v\":1},{\"_id\":\"nowhere\",\"v\":1}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).get("modified").asInt()).isEqualTo(1);
        assertThat(json(r).get("matched").asInt()).isEqualTo(1);
        assertThat(json(r).has("errors")).isFalse();
        assertThat(weft.get("/db/updates/nowhere").statusCode()).isEqualTo(404);
    }

    @Test
    void atomicBulkInsertIsAllOrNothing() throws Exception {
        weft.post("/db/atomic", "{\"_id\":\"taken\"}");
        HttpResponse<String> r = weft.post("/db/atomic?atomic=true", "[{\"_id\":\"new1\"},{\"_id\":\"taken\"},{\"_id\":\"new2\"}]");
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(weft.get("/db/atomic/new1").statusCode()).isEqualTo(404);
        assertThat(weft.get("/db/atomic/new2").statusCode()).isEqualTo(404);
        assertThat(weft.post("/db/atomic?atomic=maybe", "[{\"_id\":\"new1\"}]").statusCode()).isEqualTo(400);
        assertThat(weft.get("/db/atomic/new1").statusCode()).isEqualTo(404);
    }

    @Test
    void aBadElementRefusesTheWholeArray() throws Exception {
        HttpResponse<String> bad = weft.post("/db/atomic", "[{\"_id\":\"ok1\"},17]");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(weft.get("/db/atomic/ok1").statusCode()).isEqualTo(404);
    }
}
