package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.authorization;
import static dev.weft.http.AuthorizationMatrixTest.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.weft.http.StreamClients.Ws;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Who may follow a stream and what they see, through the HTTP API: the {@code ?access_token=} of
 * stream routes (browsers cannot set headers on a WebSocket upgrade), and the access rules of
 * docs/security.md applied to every event (alice and bob: {@code readFilter {"owner":"@user._id"}},
 * {@code projectResponse {"secret":0}}).
 */
class StreamAccessTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        AuthorizationMatrixTest.users(weft);
        send(weft, "admin", "PUT", "/db", null);
        send(weft, "admin", "PUT", "/db/notes", """
                {"streams":[{"uri":"bysecret","stages":[{"$match":{"fullDocument.secret":"x"}}]},
                            {"uri":"secretchanged","stages":[{"$match":{"updateDescription.updatedFields.secret":{"$exists":true}}}]},
                            {"uri":"bytext","stages":[{"$match":{"fullDocument.text":"x","operationType":"insert"}}]}]}""");
        AuthorizationMatrixTest.rules(weft, "admin");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    /** The Auth-Token a password login of {@code who} is answered with. */
    static String authToken(TestServer server, String who) throws Exception {
        HttpResponse<String> r = server.get("/ping", "Authorization", authorization(who));
        assertThat(r.statusCode()).isEqualTo(200);
        return r.headers().firstValue("Auth-Token").orElseThrow();
    }

    static int upgradeStatus(TestServer server, String pathAndQuery) {
        return upgradeStatus(server, pathAndQuery, TestServer.ANONYMOUS);
    }

    static int upgradeStatus(TestServer server, String pathAndQuery, String authorization) {
        Throwable t = catchThrowable(() -> Ws.open(server, pathAndQuery, true, authorization).close());
        assertThat(t).isInstanceOf(ExecutionException.class).cause().isInstanceOf(WebSocketHandshakeException.class);
        return ((WebSocketHandshakeException) t.getCause()).getResponse().statusCode();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    @Test
    void eventsAreNarrowedToTheSubscribersDocumentsAndProjected() throws Exception {
        try (Ws alice = Ws.open(weft, "/db/notes/_streams", true, authorization("alice"));
             Ws bob = Ws.open(weft, "/db/notes/_streams", true, authorization("bob"))) {
            assertThat(send(weft, "bob", "POST", "/db/notes", "{\"_id\":\"b1\",\"text\":\"bob-text\",\"secret\":\"bob-secret\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(send(weft, "bob", "PATCH", "/db/notes/b1", "{\"$set\":{\"text\":\"bob-2\"}}").statusCode()).isEqualTo(200);
            assertThat(send(weft, "alice", "POST", "/db/notes", "{\"_id\":\"a1\",\"text\":\"alice-text\",\"secret\":\"alice-secret\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(send(weft, "admin", "POST", "/db/notes", "{\"_id\":\"a2\",\"owner\":\"alice\",\"secret\":\"s\"}")
                    .statusCode()).isEqualTo(201);

            JsonNode first = alice.next(10);
            assertThat(first.get("operationType").asString()).isEqualTo("insert");
            assertThat(first.get("documentKey").get("_id").asString()).isEqualTo("a1");
            assertThat(first.get("fullDocument").get("text").asString()).isEqualTo("alice-text");
            assertThat(first.toString()).doesNotContain("secret").doesNotContain("bob");
            JsonNode second = alice.next(10);
            assertThat(second.get("documentKey").get("_id").asString()).isEqualTo("a2");
            assertThat(second.toString()).doesNotContain("secret");
            assertThat(alice.poll(300)).as("bob's writes send alice nothing").isNull();

            assertThat(bob.next(10).get("documentKey").get("_id").asString()).isEqualTo("b1");
            JsonNode update = bob.next(10);
            assertThat(update.get("operationType").asString()).isEqualTo("update");
            assertThat(update.toString()).contains("bob-2").doesNotContain("secret");
            assertThat(bob.poll(300)).as("alice's documents send bob nothing").isNull();
        }
    }

    @Test
    void changedFieldsTheProjectionHidesAreLeftOutOfUpdateEvents() throws Exception {
        // Streams opened before the insert, whose event each reads first: on PostgreSQL an event
        // gets its position after its commit, so a stream opened just after a write may see it.
        try (Ws bob = Ws.open(weft, "/db/notes/_streams", true, authorization("bob"));
             Ws admin = Ws.open(weft, "/db/notes/_streams", true, authorization("admin"))) {
            assertThat(send(weft, "bob", "POST", "/db/notes", "{\"_id\":\"u1\",\"text\":\"t\",\"secret\":\"old-secret\"}")
                    .statusCode()).isEqualTo(201);
            assertThat(bob.next(10).get("operationType").asString()).isEqualTo("insert");
            assertThat(admin.next(10).get("operationType").asString()).isEqualTo("insert");
            assertThat(send(weft, "bob", "PATCH", "/db/notes/u1", "{\"$set\":{\"secret\":\"new-secret\",\"text\":\"t2\"}}")
                    .statusCode()).isEqualTo(200);
            assertThat(send(weft, "bob", "PATCH", "/db/notes/u1", "{\"$unset\":{\"secret\":\"\"}}").statusCode()).isEqualTo(200);

            JsonNode set = bob.next(10);
            assertThat(set.get("updateDescription").get("updatedFields").get("text").asString()).isEqualTo("t2");
            assertThat(set.toString()).doesNotContain("secret");
            JsonNode unset = bob.next(10);
            assertThat(unset.get("updateDescription").get("removedFields")).isEmpty();
            assertThat(unset.toString()).doesNotContain("secret");

            assertThat(admin.next(10).get("updateDescription").get("updatedFields").get("secret").asString())
                    .as("admin has no projection").isEqualTo("new-secret");
            assertThat(admin.next(10).get("updateDescription").get("removedFields").get(0).asString()).isEqualTo("secret");
        }
    }

    @Test
    void aStreamFilterOnAFieldTheProjectionHidesIsRefused() throws Exception {
        String alice = authorization("alice");
        assertThat(upgradeStatus(weft, "/db/notes/_streams?filter=" + enc("{\"secret\":\"x\"}"), alice)).isEqualTo(403);
        assertThat(upgradeStatus(weft, "/db/notes/_streams/bysecret", alice)).isEqualTo(403);
        assertThat(upgradeStatus(weft, "/db/notes/_streams/secretchanged", alice)).isEqualTo(403);
        HttpResponse<String> sse = weft.get("/db/notes/_streams?filter=" + enc("{\"secret\":\"x\"}"),
                "Authorization", alice, "Accept", "text/event-stream");
        assertThat(sse.statusCode()).isEqualTo(403);
        assertThat(sse.body()).contains("projectResponse").contains("secret");

        Ws.open(weft, "/db/notes/_streams/bytext", true, alice).close();
        Ws.open(weft, "/db/notes/_streams?filter=" + enc("{\"text\":\"x\"}"), true, alice).close();
        Ws.open(weft, "/db/notes/_streams/bysecret", true, authorization("admin")).close();
    }

    @Test
    void anAccessTokenInTheQueryStringSubscribesAsItsUser() throws Exception {
        String token = authToken(weft, "alice");
        try (Ws alice = Ws.open(weft, "/db/notes/_streams?access_token=" + enc(token), true, TestServer.ANONYMOUS)) {
            send(weft, "admin", "POST", "/db/notes", "{\"_id\":\"t-b\",\"owner\":\"bob\"}");
            send(weft, "admin", "POST", "/db/notes", "{\"_id\":\"t-a\",\"owner\":\"alice\",\"secret\":\"s\"}");
            JsonNode e = alice.next(10);
            assertThat(e.get("documentKey").get("_id").asString()).as("alice's rule applies").isEqualTo("t-a");
            assertThat(e.toString()).doesNotContain("secret");
        }
    }

    @Test
    void aWrongTokenIs401AndOtherRoutesIgnoreTheParameter() throws Exception {
        String token = authToken(weft, "alice");
        assertThat(upgradeStatus(weft, "/db/notes/_streams?access_token=not-a-token")).isEqualTo(401);
        assertThat(upgradeStatus(weft, "/db/notes/_streams?access_token=" + enc(token) + "x")).isEqualTo(401);
        HttpResponse<String> list = weft.get("/db/notes?access_token=" + enc(token), "Authorization", TestServer.ANONYMOUS);
        assertThat(list.statusCode()).as("only stream routes take a token in the URL").isEqualTo(401);
    }

    @Test
    void anExpiredTokenIs401() throws Exception {
        try (TestServer shortLived = new TestServer("--auth-token-ttl-ms", "1000")) {
            shortLived.post("/weft/users", "{\"_id\":\"alice\",\"password\":\"alice-Password-1\",\"roles\":[\"admin\"]}");
            shortLived.put("/db", null);
            shortLived.put("/db/c", null);
            String token = authToken(shortLived, "alice");
            Ws.open(shortLived, "/db/c/_streams?access_token=" + enc(token), true, TestServer.ANONYMOUS).close();
            Thread.sleep(1_300);
            assertThat(upgradeStatus(shortLived, "/db/c/_streams?access_token=" + enc(token))).isEqualTo(401);
        }
    }
}
