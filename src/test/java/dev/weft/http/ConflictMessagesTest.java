package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A 409 for a duplicate {@code _id} or unique key names the clashing value and index only to a
 * client that reads every document in full; alice, whose rule has a read filter and a
 * projection, learns that the key is taken and nothing else.
 */
class ConflictMessagesTest {
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", null);
        assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/byEmail",
                "{\"keys\":{\"email\":1},\"ops\":{\"unique\":true}}").statusCode()).isEqualTo(201);
        assertThat(send(server, "admin", "POST", "/db/notes",
                "{\"_id\":\"b1\",\"owner\":\"bob\",\"email\":\"bob@example.com\"}").statusCode()).isEqualTo(201);
        AuthorizationMatrixTest.rules(server, "admin");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static void assertConflict(HttpResponse<String> r, String message) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
        assertThat(r.body()).isEqualTo("{\"http status code\":409,\"http status description\":\"Conflict\",\"message\":\""
                + message.replace("\"", "\\\"") + "\"}");
    }

    @Test
    void aRestrictedReaderIsNotToldTheIdOrKeyOrIndex() throws Exception {
        assertConflict(send(server, "alice", "POST", "/db/notes", "{\"_id\":\"b1\",\"text\":\"t\"}"),
                "duplicate _id: a document with the same _id already exists");
        assertConflict(send(server, "alice", "POST", "/db/notes?atomic=true", "[{\"_id\":\"a9\"},{\"_id\":\"b1\"}]"),
                "duplicate _id: a document with the same _id already exists");
        HttpResponse<String> partial = send(server, "alice", "POST", "/db/notes",
                "[{\"_id\":\"a8\"},{\"_id\":\"b1\"},{\"_id\":\"a7\",\"email\":\"bob@example.com\"}]");
        assertThat(partial.statusCode()).as(partial.body()).isEqualTo(207);
        assertThat(partial.body()).startsWith("{\"inserted\":1,\"deleted\":0,\"modified\":0,\"matched\":0,\"errors\":["
                + "{\"index\":1,\"httpStatus\":409,\"message\":\"duplicate _id: a document with the same _id already exists\"},"
                + "{\"index\":2,\"httpStatus\":409,\"message\":\"duplicate key: a unique index already has this key for another document\"}],");
        assertConflict(send(server, "alice", "POST", "/db/notes", "{\"_id\":\"a5\",\"email\":\"bob@example.com\"}"),
                "duplicate key: a unique index already has this key for another document");
        assertThat(send(server, "admin", "GET", "/db/notes/a5", null).statusCode()).isEqualTo(404);
        HttpResponse<String> ndjson = server.client.send(server.request("/db/notes")
                .setHeader("Authorization", TestServer.basic("alice", "alice-Password-1"))
                .header("Content-Type", "application/x-ndjson")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"_id\":\"a6\"}\n{\"_id\":\"b1\"}\n")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(ndjson.statusCode()).as(ndjson.body()).isEqualTo(200);
        assertThat(ndjson.body()).contains("{\"line\":2,\"message\":\"duplicate _id: a document with the same _id already exists\"}")
                .doesNotContain("\"b1\"");
    }

    @Test
    void theAdminIsToldWhichIdAndIndex() throws Exception {
        assertConflict(send(server, "admin", "POST", "/db/notes", "{\"_id\":\"b1\"}"),
                "duplicate _id: a document with _id \"b1\" already exists");
        HttpResponse<String> key = send(server, "admin", "POST", "/db/notes", "{\"_id\":\"c1\",\"email\":\"bob@example.com\"}");
        assertThat(key.statusCode()).isEqualTo(409);
        assertThat(key.body()).contains("duplicate key: unique index 'byEmail' already has this key for another document");
    }
}
