package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Change streams across two nodes on one PostgreSQL database, over SSE: a resume token is a
 * position in the shared log and nothing more, so a restricted user resuming from 0 on node B
 * sees only its collection of node A's writes; a drop on node A invalidates node B's streams of
 * the collection, and B refuses a token from before it. A node's event reader has a connection
 * of its own: live events reach its streams while every pooled connection of the node is held.
 */
class StreamsAcrossNodesTest {
    private static final Json JSON = Json.standard();
    private static final String BOB = "Basic " + Base64.getEncoder().encodeToString("bob:bob-Password-1".getBytes());

    @Test
    void aTokenReplayedOnAnotherNodeGrantsNothingAndADropThereInvalidatesIt() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema));
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema))) {
            status(a.post("/weft/users", "{\"_id\":\"bob\",\"password\":\"bob-Password-1\",\"roles\":[\"own\"]}"), 201);
            status(a.put("/db", null), 201);
            String etag = status(a.put("/db/own", null), 201).headers().firstValue("ETag").orElseThrow();
            status(a.put("/db/secret", null), 201);
            status(a.post("/db/secret", "{\"_id\":\"s1\",\"text\":\"secret-doc\"}"), 201);
            status(a.post("/db/own", "{\"_id\":\"b1\",\"text\":\"bob-doc\"}"), 201);
            status(a.post("/weft/acl", "{\"_id\":\"own-only\",\"roles\":[\"own\"],\"priority\":10,"
                    + "\"predicate\":\"path-prefix('/db/own')\"}"), 201);
            status(a.post("/db/own", "{\"_id\":\"b2\",\"text\":\"bob-doc-2\"}"), 201);

            List<JsonNode> replayed = new ArrayList<>();
            try (Sse sse = Sse.open(b, "/db/own/_streams", "0000000000000000")) {
                for (JsonNode e; (e = sse.events.poll(1500, TimeUnit.MILLISECONDS)) != null; ) {
                    replayed.add(e);
                }
                assertThat(replayed.stream().map(e -> e.get("documentKey").get("_id").asString()).toList())
                        .containsExactly("b1", "b2");
                for (JsonNode e : replayed) {
                    assertThat(e.get("ns").get("coll").asString()).isEqualTo("own");
                    assertThat(e.toString()).doesNotContain("password").doesNotContain("$2").doesNotContain("secret");
                }

                status(a.send("DELETE", "/db/own", null, WeftNode.ADMIN, "If-Match", etag), 204);
                JsonNode drop = sse.events.poll(10, TimeUnit.SECONDS);
                JsonNode invalidate = sse.events.poll(10, TimeUnit.SECONDS);
                assertThat(drop).isNotNull();
                assertThat(drop.get("operationType").asString()).isEqualTo("drop");
                assertThat(invalidate.get("operationType").asString()).isEqualTo("invalidate");
                sse.reader.join(5000);
                assertThat(sse.reader.isAlive()).as("node B ended the stream").isFalse();
            }

            status(a.put("/db/own", null), 201);
            String first = replayed.getFirst().get("_id").get("_data").asString();
            HttpResponse<Stream<String>> refused = Sse.request(b, "/db/own/_streams", first, WeftNode.ADMIN);
            assertThat(refused.statusCode()).isEqualTo(410);
            assertThat(String.join("\n", refused.body().toList())).contains("db/own was dropped");
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    @Test
    void liveEventsReachANodesStreamsWhileEveryPooledConnectionOfTheNodeIsHeld() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema), "--pg-pool-size", "2",
                "--pg-statement-timeout-ms", "20000");
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema))) {
            status(a.put("/db", null), 201);
            status(a.put("/db/c", null), 201);
            status(a.post("/db/c", "{\"_id\":\"locked\",\"n\":0}"), 201);
            String sid = status(b.post("/_sessions", null), 201).headers().firstValue("Location").orElseThrow();
            sid = sid.substring(sid.lastIndexOf('/') + 1);
            String txn = status(b.post("/_sessions/" + sid + "/_txns", null), 201).headers().firstValue("Location").orElseThrow();
            txn = txn.substring(txn.lastIndexOf('/') + 1);
            // node B's open transaction holds the row lock of "locked"
            status(b.send("PATCH", "/db/c/locked?sid=" + sid + "&txn=" + txn, "{\"$set\":{\"n\":1}}"), 200);

            try (Sse sse = Sse.open(a, "/db/c/_streams", null, WeftNode.ADMIN)) {
                // both pooled connections of node A wait on that lock
                BlockingQueue<Integer> blocked = new LinkedBlockingQueue<>();
                for (int i = 0; i < 2; i++) {
                    Thread.ofVirtual().start(() -> {
                        try {
                            blocked.add(a.send("PATCH", "/db/c/locked", "{\"$inc\":{\"n\":1}}").statusCode());
                        } catch (Exception e) {
                            blocked.add(-1);
                        }
                    });
                }
                Thread.sleep(1000);
                status(b.post("/db/c", "{\"_id\":\"live\"}"), 201);
                JsonNode event = sse.events.poll(4, TimeUnit.SECONDS);
                assertThat(event).as("node B's insert reached node A's stream while A's pool was held").isNotNull();
                assertThat(event.get("operationType").asString()).isEqualTo("insert");
                assertThat(event.get("documentKey").get("_id").asString()).isEqualTo("live");
                assertThat(blocked).as("A's PATCHes still wait on the lock, holding A's pooled connections").isEmpty();

                status(b.send("DELETE", "/_sessions/" + sid + "/_txns/" + txn, null), 204);
                assertThat(blocked.poll(20, TimeUnit.SECONDS)).isEqualTo(200);
                assertThat(blocked.poll(20, TimeUnit.SECONDS)).isEqualTo(200);
                for (int n = 1; n <= 2; n++) {
                    JsonNode update = sse.events.poll(10, TimeUnit.SECONDS);
                    assertThat(update.get("operationType").asString()).isEqualTo("update");
                    assertThat(update.get("fullDocument").get("n").asInt()).isEqualTo(n);
                }
            }
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    private static HttpResponse<String> status(HttpResponse<String> r, int expected) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(expected);
        return r;
    }

    /** A user's SSE stream on a node, resumed from {@code token}; its events as they come. */
    static final class Sse implements AutoCloseable {
        final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
        final HttpResponse<Stream<String>> response;
        final Thread reader;

        private Sse(HttpResponse<Stream<String>> response) {
            this.response = response;
            this.reader = Thread.ofVirtual().start(() -> {
                try {
                    response.body().filter(l -> l.startsWith("data: ")).forEach(l -> events.add(JSON.parse(l.substring(6), "event")));
                } catch (RuntimeException ignored) {
                    // closed by the test
                }
            });
        }

        /** Retries while node B does not know bob's rule yet (it reads it from the shared database). */
        static Sse open(WeftNode node, String path, String token) throws Exception {
            return open(node, path, token, BOB);
        }

        /** {@code token} null: from now on. */
        static Sse open(WeftNode node, String path, String token, String authorization) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (true) {
                HttpResponse<Stream<String>> r = request(node, path, token, authorization);
                if (r.statusCode() == 200 || System.nanoTime() > deadline) {
                    assertThat(r.statusCode()).isEqualTo(200);
                    return new Sse(r);
                }
                r.body().close();
                Thread.sleep(100);
            }
        }

        static HttpResponse<Stream<String>> request(WeftNode node, String path, String token, String authorization) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(node.uri(path)).header("Accept", "text/event-stream")
                    .header("Authorization", authorization);
            if (token != null) {
                request.header("Last-Event-ID", token);
            }
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            return client.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        }

        @Override
        public void close() {
            response.body().close();
            reader.interrupt();
        }
    }
}
