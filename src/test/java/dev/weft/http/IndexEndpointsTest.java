package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class IndexEndpointsTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "users");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void uniqueIndexRefusesDuplicates() throws Exception {
        assertThat(weft.put("/db/users/_indexes/by_email", "{\"keys\":{\"email\":1},\"ops\":{\"unique\":true}}").statusCode())
                .isEqualTo(201);
        assertThat(weft.post("/db/users", "{\"email\":\"a@x\"}").statusCode()).isEqualTo(201);
        HttpResponse<String> dup = weft.post("/db/users", "{\"email\":\"a@x\"}");
        assertThat(dup.statusCode()).isEqualTo(409);
        assertThat(dup.body()).contains("by_email");
        assertThat(weft.post("/db/users", "{\"_id\":\"u2\",\"email\":\"b@x\"}").statusCode()).isEqualTo(201);
        assertThat(weft.patch("/db/users/u2", "{\"email\":\"a@x\"}").statusCode()).isEqualTo(409);
        assertThat(weft.get("/db/users?filter=" + q("{\"email\":\"b@x\"}")).body()).contains("u2");

        HttpResponse<String> list = weft.get("/db/users/_indexes");
        assertThat(list.body()).contains("\"_id_\"", "\"by_email\"", "\"unique\":true");
        assertThat(weft.delete("/db/users/_indexes/by_email").statusCode()).isEqualTo(204);
        assertThat(weft.post("/db/users", "{\"email\":\"a@x\"}").statusCode()).isEqualTo(201);
        // building a unique index over duplicates fails and leaves nothing behind
        assertThat(weft.put("/db/users/_indexes/again", "{\"keys\":{\"email\":1},\"ops\":{\"unique\":true}}").statusCode())
                .isEqualTo(409);
        assertThat(weft.get("/db/users/_indexes").body()).doesNotContain("\"again\"");
    }

    @Test
    void compoundIndexDefinitionsAreValidated() throws Exception {
        assertThat(weft.put("/db/users/_indexes/c1", "{\"keys\":{\"a\":1,\"b\":-1}}").statusCode()).isEqualTo(201);
        assertThat(weft.get("/db/users/_indexes").body()).contains("\"c1\"", "\"b\":-1");
        assertThat(weft.put("/db/users/_indexes/bad", "{\"keys\":{\"a\":2}}").statusCode()).isEqualTo(400);
        assertThat(weft.put("/db/users/_indexes/bad", "{}").statusCode()).isEqualTo(400);
        assertThat(weft.delete("/db/users/_indexes/_id_").statusCode()).isEqualTo(400);
    }
}
