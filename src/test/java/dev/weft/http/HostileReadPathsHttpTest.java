package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Ws;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * A restricted reader attacking the read paths the other suites do not already cover: alice and
 * bob (readFilter {@code owner = @user._id}, {@code secret} hidden) try to learn about each
 * other's documents through what a request answers besides its documents: a stream ended by
 * the cost of her filter, a cursor token minted for someone or something else, a cached page.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileReadPathsHttpTest {
    /** Low enough that a filter of 60 clauses runs out on one document, high enough for the rule. */
    private static final int BUDGET = 40;

    TestServer weft;

    @BeforeAll
    void start() throws Exception {
        weft = new TestServer("--stream-match-budget", Integer.toString(BUDGET));
        AuthorizationMatrixTest.users(weft);
        send(weft, "admin", "PUT", "/db", null);
        send(weft, "admin", "PUT", "/db/notes", null);
        AuthorizationMatrixTest.rules(weft, "admin");
    }

    @AfterAll
    void stop() throws Exception {
        weft.close();
    }

    /**
     * {@code {"$or": [probe, 60 clauses that never match]}}: cheap on a document the probe
     * matches, past the budget on one it does not.
     */
    private static String costlyUnless(String probe) {
        StringBuilder f = new StringBuilder("{\"$or\":[").append(probe);
        for (int i = 0; i < 60; i++) {
            f.append(",{\"missing").append(i).append("\":1}");
        }
        return f.append("]}").toString();
    }

    /**
     * The stream's budget counts her filter's value tests: were her filter evaluated on bob's
     * documents, whether her stream ends on one of his events would tell whether his document
     * matched her probe (here: does his text start with "s"), a document her rule hides.
     */
    @Test
    void aStreamsCostNeverDependsOnDocumentsOutsideTheReadFilter() throws Exception {
        String filter = costlyUnless("{\"text\":{\"$regex\":\"^s\"}}");
        try (Ws alice = Ws.open(weft, "/db/notes/_streams?filter=" + q(filter), true,
                AuthorizationMatrixTest.authorization("alice"))) {
            assertThat(send(weft, "bob", "POST", "/db/notes", "{\"_id\":\"b-s\",\"text\":\"secret-ish\"}").statusCode())
                    .isEqualTo(201);
            assertThat(send(weft, "bob", "POST", "/db/notes", "{\"_id\":\"b-o\",\"text\":\"other\"}").statusCode())
                    .isEqualTo(201);
            assertThat(send(weft, "alice", "POST", "/db/notes", "{\"_id\":\"a-s\",\"text\":\"sure\"}").statusCode())
                    .isEqualTo(201);
            JsonNode first = alice.poll(10_000);
            assertThat(first).as("her stream: " + alice.ended.getNow("open")).isNotNull();
            assertThat(first.get("documentKey").get("_id").asString()).as("her stream is still open").isEqualTo("a-s");
            assertThat(alice.ended).isNotDone();
            // her own document is hers to probe: a costly match on it ends her stream, as documented
            assertThat(send(weft, "alice", "POST", "/db/notes", "{\"_id\":\"a-o\",\"text\":\"other\"}").statusCode())
                    .isEqualTo(201);
            assertThat(alice.ended.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .startsWith("1008 ").contains("stream-match-budget");
        }
    }
}
