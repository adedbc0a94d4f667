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
        weft.createCollection("db", "bulk");
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
    void bulkInsertIsAllOrNothing() throws Exception {
        weft.post("/db/bulk", "{\"_id\":\"taken\"}");
        HttpResponse<String> r = weft.post("/db/bulk", "[{\"_id\":\"new1\"},{\"_id\":\"taken\"},{\"_id\":\"new2\"}]");
        assertThat(r.statusCode()).isEqualTo(409);
        assertThat(weft.get("/db/bulk/new1").statusCode()).isEqualTo(404);
        assertThat(weft.get("/db/bulk/new2").statusCode()).isEqualTo(404);
        // a bad element refuses the whole array before anything is written
        HttpResponse<String> bad = weft.post("/db/bulk", "[{\"_id\":\"ok1\"},17]");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(weft.get("/db/bulk/ok1").statusCode()).isEqualTo(404);
    }
}
