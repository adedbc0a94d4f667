package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two Weft nodes over one database: a rule deleted or a password changed through node A ends,
 * within about a second, the streams its user holds open on node B (hostile-input issue 2, item 3).
 */
class StreamAccessAcrossNodesTest {

    @Test
    void aChangeOnOneNodeEndsTheStreamsOnTheOther() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema));
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema))) {
            created(a.put("/db", null));
            created(a.put("/db/live", null));
            for (String user : new String[] {"dana", "erin"}) {
                created(a.post("/weft/users", "{\"_id\":\"" + user + "\",\"password\":\"" + user + "-Password-1\",\"roles\":[\"r-" + user + "\"]}"));
                created(a.post("/weft/acl", "{\"_id\":\"rule-" + user + "\",\"roles\":[\"r-" + user + "\"],\"priority\":1,"
                        + "\"predicate\":\"path-prefix('/db/live') and method(GET)\"}"));
            }

            Closes dana = open(b, "dana");
            long changedAt = System.nanoTime();
            assertThat(a.send("DELETE", "/weft/acl/rule-dana", null).statusCode()).isIn(200, 204);
            dana.endsWithin(changedAt, "rule deleted on the other node");

            Closes erin = open(b, "erin");
            changedAt = System.nanoTime();
            assertThat(a.send("PATCH", "/weft/users/erin", "{\"$set\":{\"password\":\"Another-Password-2\"}}").statusCode()).isEqualTo(200);
            erin.endsWithin(changedAt, "password changed on the other node");
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    private static void created(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private static Closes open(WeftNode node, String user) throws Exception {
        Closes closes = new Closes();
        String basic = "Basic " + Base64.getEncoder().encodeToString((user + ":" + user + "-Password-1").getBytes(StandardCharsets.UTF_8));
        HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", basic)
                .buildAsync(URI.create("ws://127.0.0.1:" + node.port() + "/db/live/_streams"), closes)
                .get(10, TimeUnit.SECONDS);
        return closes;
    }

    /** A WebSocket listener that only records how the server closed. */
    private static final class Closes implements WebSocket.Listener {
        final CompletableFuture<String> closed = new CompletableFuture<>();

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode + " " + reason);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.complete("error " + error);
        }

        void endsWithin(long changedAt, String what) throws Exception {
            String how = closed.get(10, TimeUnit.SECONDS);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - changedAt);
            System.out.printf("stream on node B ended %d ms after the %s: %s%n", ms, what, how);
            assertThat(how).startsWith("1008 ").contains("access revoked");
            assertThat(ms).isLessThan(3_000);
        }
    }
}
