package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The read paths each user sees through the access rules, the result cache, live rule changes, challenges. */
class AccessRulesHttpTest {
    TestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new TestServer();
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", null);
        send(server, "admin", "PUT", "/db/other", null);
        send(server, "admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","text":"alice-text","secret":"alice-secret"},
                 {"_id":"a2","owner":"alice","text":"alice-text"},
                 {"_id":"b1","owner":"bob","text":"bob-text","secret":"bob-secret"}]""");
        AuthorizationMatrixTest.rules(server, "admin");
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private HttpResponse<String> get(String who, String path) throws Exception {
        return send(server, who, "GET", path, null);
    }

    @Test
    void everyReadPathIsNarrowedAndProjected() throws Exception {
        HttpResponse<String> list = get("alice", "/db/notes?count");
        assertThat(list.body()).contains("\"a1\"", "\"a2\"").doesNotContain("bob", "secret");
        assertThat(list.headers().firstValue("X-Total-Count")).hasValue("2");
        assertThat(get("alice", "/db/notes/_size").body()).isEqualTo("{\"_size\":2}");
        assertThat(get("alice", "/db/notes?filter=" + q("{\"owner\":\"bob\"}")).body()).isEqualTo("[]");
        assertThat(get("alice", "/db/notes?keys=" + q("{\"secret\":1}")).body()).doesNotContain("secret");
        assertThat(get("alice", "/db/notes/a1").body()).contains("alice-text").doesNotContain("secret");
        assertThat(get("alice", "/db/notes/a1?keys=" + q("{\"secret\":1}")).body()).doesNotContain("secret");
        assertThat(get("alice", "/db/notes/b1").statusCode()).isEqualTo(404);
        HttpResponse<String> export = server.send("GET", "/db/notes", null, "Accept", "application/x-ndjson",
                "Authorization", AuthorizationMatrixTest.authorization("bob"));
        assertThat(export.body().lines().toList()).hasSize(1).allMatch(l -> l.contains("bob-text") && !l.contains("secret"));
    }

    @Test
    void cachedPagesAreNeverSharedAcrossUsers() throws Exception {
        for (int i = 0; i < 2; i++) {
            assertThat(get("alice", "/db/notes").body()).contains("alice-text").doesNotContain("bob-text");
            assertThat(get("bob", "/db/notes").body()).contains("bob-text").doesNotContain("alice-text");
            assertThat(get("admin", "/db/notes").body()).contains("alice-text", "bob-text", "secret");
        }
    }

    @Test
    void writesGetTheOwnerFromTheServerAndCannotForgeIt() throws Exception {
        assertThat(send(server, "alice", "POST", "/db/notes", "{\"_id\":\"n\",\"text\":\"t\"}").statusCode()).isEqualTo(201);
        assertThat(get("admin", "/db/notes/n").body()).contains("\"owner\":\"alice\"");
        HttpResponse<String> forged = send(server, "alice", "POST", "/db/notes", "{\"text\":\"t\",\"owner\":\"bob\"}");
        assertThat(forged.statusCode()).isEqualTo(403);
        assertThat(forged.body()).contains("owner");
        HttpResponse<String> ndjson = server.client.send(HttpRequest.newBuilder(server.uri("/db/notes"))
                .header("Content-Type", "application/x-ndjson").header("Authorization", AuthorizationMatrixTest.authorization("bob"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"_id\":\"x1\"}\n{\"_id\":\"x2\",\"owner\":\"alice\"}\n"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(ndjson.body()).contains("\"inserted\":1", "\"failed\":1", "\"line\":2", "owner is protected");
        assertThat(get("admin", "/db/notes/x1").body()).contains("\"owner\":\"bob\"");
        assertThat(send(server, "bob", "POST", "/db/notes?wm=upsert", "[{\"_id\":\"a1\"}]").statusCode()).isEqualTo(403);
    }

    @Test
    void ruleChangesTakeEffectWithoutRestart() throws Exception {
        assertThat(get("bob", "/db/other").statusCode()).isEqualTo(403);
        assertThat(send(server, "admin", "POST", "/weft/acl", """
                {"_id":"other-read","roles":["user"],"predicate":"path('/db/other') and method(GET)"}""").statusCode())
                .isEqualTo(201);
        assertThat(get("bob", "/db/other").statusCode()).isEqualTo(200);
        assertThat(send(server, "admin", "DELETE", "/weft/acl/other-read", null).statusCode()).isEqualTo(204);
        assertThat(get("bob", "/db/other").statusCode()).isEqualTo(403);
    }

    @Test
    void aRuleThatDoesNotCompileIsRefusedWith400AndNotStored() throws Exception {
        for (String rule : List.of(
                "{\"_id\":\"bad-predicate\",\"roles\":[\"user\"],\"predicate\":\"path-prefix('/db/notes') and\"}",
                "{\"_id\":\"bad-filter\",\"roles\":[\"user\"],\"predicate\":\"method(GET)\",\"readFilter\":{\"$where\":\"1\"}}",
                "{\"_id\":\"bad-projection\",\"roles\":[\"user\"],\"predicate\":\"method(GET)\",\"projectResponse\":{\"a\":1,\"b\":0}}")) {
            HttpResponse<String> r = send(server, "admin", "POST", "/weft/acl", rule);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(r.body()).contains("access rule").contains("is invalid");
        }
        HttpResponse<String> stored = send(server, "admin", "GET", "/weft/acl?filter="
                + java.net.URLEncoder.encode("{\"_id\":{\"$regex\":\"^bad-\"}}", java.nio.charset.StandardCharsets.UTF_8), null);
        assertThat(stored.statusCode()).isEqualTo(200);
        assertThat(stored.body()).doesNotContain("bad-");
    }

    @Test
    void anonymousDenialsChallengeUnlessAskedNotTo() throws Exception {
        HttpResponse<String> r = server.get("/db/notes", "Authorization", TestServer.ANONYMOUS);
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Basic"));
        HttpResponse<String> quiet = server.get("/db/notes", "No-Auth-Challenge", "true", "Authorization", TestServer.ANONYMOUS);
        assertThat(quiet.statusCode()).isEqualTo(401);
        assertThat(quiet.headers().firstValue("WWW-Authenticate")).isEmpty();
        assertThat(get("bob", "/db/notes/_indexes").headers().firstValue("WWW-Authenticate")).isEmpty();
    }
}
