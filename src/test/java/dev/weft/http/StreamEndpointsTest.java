package dev.weft.http;

import static dev.weft.http.StreamClients.take;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Events;
import dev.weft.http.StreamClients.Sse;
import dev.weft.http.StreamClients.Ws;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.net.http.WebSocketHandshakeException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Change streams through the HTTP API of a real server: WebSocket and SSE. */
class StreamEndpointsTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "s");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    private static String coll(String name) throws Exception {
        weft.createCollection("db", name);
        return "/db/" + name;
    }

    @Test
    void namedStreamWithAvarsSendsMongoShapedEventsThatMatch() throws Exception {
        weft.put("/db", null);
        HttpResponse<String> r = weft.put("/db/named", "{\"streams\":[{\"uri\":\"byTag\",\"stages\":"
                + "[{\"$match\":{\"fullDocument.tag\":{\"$var\":\"t\"}}}]},"
                + "{\"uri\":\"updates\",\"stages\":[{\"$match\":{\"operationType\":\"update\"}}]}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        try (Ws tagged = Ws.open(weft, "/db/named/_streams/byTag?avars=" + q("{\"t\":\"a\"}"));
             Ws updates = Ws.open(weft, "/db/named/_streams/updates")) {
            weft.post("/db/named", "{\"_id\":1,\"tag\":\"b\"}");
            weft.post("/db/named", "{\"_id\":\"two\",\"tag\":\"a\",\"n\":1}");
            weft.patch("/db/named/two", "{\"$set\":{\"n\":2},\"$unset\":{\"tag\":1}}");
            JsonNode insert = tagged.next(10);
            assertThat(insert.get("operationType").asString()).isEqualTo("insert");
            assertThat(insert.get("documentKey").get("_id").asString()).isEqualTo("two");
            assertThat(insert.get("fullDocument").get("tag").asString()).isEqualTo("a");
            assertThat(insert.get("ns").get("coll").asString()).isEqualTo("named");
            assertThat(insert.get("_id").get("_data").asString()).hasSize(16);
            assertThat(tagged.poll(300)).as("the update removed tag a").isNull();
            JsonNode update = updates.next(10);
            assertThat(update.get("operationType").asString()).isEqualTo("update");
            assertThat(update.get("updateDescription").get("updatedFields").get("n").asInt()).isEqualTo(2);
            assertThat(update.get("updateDescription").get("removedFields").get(0).asString()).isEqualTo("tag");
            assertThat(update.get("fullDocument").get("n").asInt()).isEqualTo(2);
        }
    }

    @Test
    void wallTimeIsTheClockOfTheWritesCommit() throws Exception {
        String path = coll("walltime");
        try (Ws ws = Ws.open(weft, path + "/_streams")) {
            long before = System.currentTimeMillis();
            HttpResponse<String> r = weft.post(path, "{\"_id\":1}");
            long after = System.currentTimeMillis();
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            long wallTime = ws.next(10).get("wallTime").get("$date").asLong();
            // stamped in the write's transaction, before COMMIT; PostgreSQL's clock is rounded to the millisecond
            assertThat(wallTime).isBetween(before, after + 1);
        }
    }

    @Test
    void restheartsEscapedStagesAndStreamsWithoutUriAreStoredAsRestheartStoresThem() throws Exception {
        weft.put("/db", null);
        HttpResponse<String> r = weft.put("/db/escaped", "{\"streams\":[{\"uri\":\"byName\",\"stages\":"
                + "[{\"_$match\":{\"fullDocument::name\":{\"_$in\":[\"x\"]}}}]},{\"stages\":[]}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        try (Ws byName = Ws.open(weft, "/db/escaped/_streams/byName")) {
            weft.post("/db/escaped", "{\"_id\":\"y\",\"name\":\"y\"}");
            weft.post("/db/escaped", "{\"_id\":\"x\",\"name\":\"x\"}");
            JsonNode insert = byName.next(10);
            assertThat(insert.get("documentKey").get("_id").asString()).isEqualTo("x");
            assertThat(byName.poll(300)).isNull();
        }
    }

    @Test
    void badDefinitionsAndUnknownStreamsAre4xx() throws Exception {
        weft.put("/db", null);
        assertThat(weft.put("/db/bad", "{\"streams\":[{\"uri\":\"g\",\"stages\":[{\"$group\":{}}]}]}").statusCode())
                .isEqualTo(400);
        assertThat(weft.put("/db/bad", "{\"streams\":[{\"uri\":\"g\",\"stages\":[{\"$match\":{\"a\":{\"$nope\":1}}}]}]}")
                .statusCode()).isEqualTo(400);
        assertThat(weft.put("/db/bad", "{\"streams\":{\"uri\":\"g\"}}").statusCode()).isEqualTo(400);
        assertThat(weft.put("/db/bad", "{\"streams\":[{\"uri\":7,\"stages\":[]}]}").statusCode()).isEqualTo(400);
        assertThat(weft.put("/db/bad", "{\"streams\":[{\"stages\":[{\"$group\":{}}]}]}").statusCode())
                .as("a stream without a uri is still checked").isEqualTo(400);
        assertThat(weft.put("/db/bad", "{\"streams\":[{\"uri\":\"v\",\"stages\":[{\"$match\":{\"a\":{\"$var\":\"x\"}}}]}]}")
                .statusCode()).isEqualTo(201);
        HttpResponse<String> unknown = weft.get("/db/bad/_streams/nope", "Accept", "text/event-stream");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("no stream named nope");
        assertThat(weft.get("/db/bad/_streams/v", "Accept", "text/event-stream").body()).contains("variable x");
        assertThat(weft.get("/db/bad/_streams?filter=" + q("{\"$where\":1}"), "Accept", "text/event-stream").statusCode())
                .isEqualTo(400);
        assertThat(weft.get("/db/nope/_streams", "Accept", "text/event-stream").statusCode()).isEqualTo(404);
        assertThat(weft.get("/db/bad/_streams").statusCode()).as("neither WebSocket nor SSE").isEqualTo(400);
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> Ws.open(weft, "/db/bad/_streams/nope"));
        assertThat(e.getCause()).isInstanceOf(WebSocketHandshakeException.class);
        assertThat(((WebSocketHandshakeException) e.getCause()).getResponse().statusCode()).isEqualTo(404);
    }

    @Test
    void concurrentWritersEventsArriveInCommitOrderWithIncreasingTokens() throws Exception {
        String path = coll("order");
        int writers = 4;
        int each = 40;
        try (Ws ws = Ws.open(weft, path + "/_streams")) {
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                threads.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < each; i++) {
                        try {
                            weft.post(path, "{\"w\":" + writer + ",\"i\":" + i + "}");
                        } catch (Exception ex) {
                            throw new IllegalStateException(ex);
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            List<JsonNode> events = take(ws, writers * each);
            String previous = "";
            Map<Integer, Integer> nextOfWriter = new HashMap<>();
            for (JsonNode e : events) {
                String token = e.get("_id").get("_data").asString();
                assertThat(token).isGreaterThan(previous);
                previous = token;
                int w = e.get("fullDocument").get("w").asInt();
                int i = e.get("fullDocument").get("i").asInt();
                assertThat(i).as("writer %d's writes in the order they were acknowledged", w)
                        .isEqualTo(nextOfWriter.getOrDefault(w, 0));
                nextOfWriter.put(w, i + 1);
            }
            assertThat(ws.poll(200)).isNull();
        }
    }

    /**
     * A client's pings are answered by the writer of the events (one writer per socket), so a pong
     * never cuts into an event frame: pings sent while events are written get their payload back
     * (at least the latest: RFC 6455 lets a server answer only that one) and every event arrives whole.
     */
    @Test
    void pingsDuringEventsAreAnsweredWithTheirPayloadAndEveryEventArrivesWhole() throws Exception {
        String path = coll("pings");
        int writes = 60;
        try (Ws ws = Ws.open(weft, path + "/_streams")) {
            Thread writer = Thread.ofVirtual().start(() -> {
                for (int i = 0; i < writes; i++) {
                    try {
                        weft.post(path, "{\"_id\":" + i + ",\"pad\":\"" + "x".repeat(200 * i) + "\"}");
                    } catch (Exception ex) {
                        throw new IllegalStateException(ex);
                    }
                }
            });
            for (int p = 0; writer.isAlive() || p < 10; p++) {
                ws.socket.sendPing(ByteBuffer.wrap(("p" + p).getBytes(StandardCharsets.UTF_8)))
                        .get(10, TimeUnit.SECONDS);
                String last = "p" + p;
                String pong;
                do {
                    pong = ws.pongs.poll(10, TimeUnit.SECONDS);
                    assertThat(pong).as("the pong of " + last).isNotNull();
                } while (!pong.equals(last));
            }
            writer.join();
            List<JsonNode> events = take(ws, writes);
            for (int i = 0; i < writes; i++) {
                assertThat(events.get(i).get("documentKey").get("_id").asInt()).isEqualTo(i);
                assertThat(events.get(i).get("fullDocument").get("pad").asString()).hasSize(200 * i);
            }
            assertThat(ws.poll(200)).isNull();
        }
    }

    @Test
    void webSocketResumesWithNoGapAndNoDuplicateWhileWritesContinue() throws Exception {
        String path = coll("resumews");
        resumes(path, last -> Ws.open(weft, path + "/_streams?resumeAfter=" + last), Ws.open(weft, path + "/_streams"));
    }

    @Test
    void sseResumesFromLastEventIdWithNoGapAndNoDuplicateWhileWritesContinue() throws Exception {
        String path = coll("resumesse");
        Sse first = Sse.open(weft, path + "/_streams");
        assertThat(first.status()).isEqualTo(200);
        resumes(path, last -> Sse.open(weft, path + "/_streams", "Last-Event-ID", last), first);
    }

    private interface Reconnect {
        Events open(String lastToken) throws Exception;
    }

    private static void resumes(String path, Reconnect reconnect, Events first) throws Exception {
        int total = 300;
        Writer writer = new Writer(path, total);
        List<Integer> seen = new ArrayList<>();
        String last = null;
        Events events = first;
        for (int round = 0; round < 3; round++) {
            for (JsonNode e : take(events, 40)) {
                seen.add(e.get("fullDocument").get("n").asInt());
                last = e.get("_id").get("_data").asString();
            }
            events.close();
            events = reconnect.open(last);
        }
        while (seen.getLast() < total - 1) {
            JsonNode e = nextWhileWriterOk(events, writer, 20);
            if (e == null) {
                throw new AssertionError("no event within 20 s after n=" + seen.getLast() + " (resumed after token "
                        + last + "; the stream " + (events.ended.isDone() ? "ended: " + events.ended.getNow("") : "is open")
                        + "); " + writer);
            }
            seen.add(e.get("fullDocument").get("n").asInt());
        }
        events.close();
        writer.thread.join();
        assertThat(writer.failure).as(writer.toString()).hasNullValue();
        List<Integer> expected = new ArrayList<>();
        for (int n = 0; n < total; n++) {
            expected.add(n);
        }
        assertThat(seen).containsExactlyElementsOf(expected);
    }

    /** The next event within {@code seconds}, or null; fails at once when the writer failed (its event will never come). */
    private static JsonNode nextWhileWriterOk(Events events, Writer writer, int seconds) throws InterruptedException {
        for (int waited = 0; waited < seconds * 10; waited++) {
            JsonNode e = events.poll(100);
            if (e != null) {
                return e;
            }
            assertThat(writer.failure).as(writer.toString()).hasNullValue();
        }
        return null;
    }

    /** Posts {@code {"n": 0..total-1}} on its own thread; a POST that fails or is not answered 201 is its failure. */
    private static final class Writer {
        final AtomicReference<String> failure = new AtomicReference<>();
        final AtomicInteger posted = new AtomicInteger();
        final Thread thread;

        Writer(String path, int total) {
            thread = Thread.ofVirtual().start(() -> {
                for (int n = 0; n < total; n++) {
                    try {
                        HttpResponse<String> r = weft.post(path, "{\"n\":" + n + "}");
                        if (r.statusCode() != 201) {
                            failure.compareAndSet(null, "POST n=" + n + " answered " + r.statusCode() + " " + r.body());
                        }
                    } catch (Exception e) {
                        failure.compareAndSet(null, "POST n=" + n + " failed: " + e);
                    }
                    posted.incrementAndGet();
                }
            });
        }

        @Override
        public String toString() {
            return "writer: " + posted.get() + " POSTs done, " + (thread.isAlive() ? "running" : "finished")
                    + ", failure: " + failure.get();
        }
    }

    @Test
    void leavingTheFilterIsToldWhenAsked() throws Exception {
        String path = coll("leaves");
        try (Ws docs = Ws.open(weft, path + "/_streams?leaves=true&filter=" + q("{\"status\":\"open\"}"));
             Ws plain = Ws.open(weft, path + "/_streams?filter=" + q("{\"status\":\"open\"}"))) {
            weft.post(path, "{\"_id\":\"a\",\"status\":\"open\"}");
            weft.post(path, "{\"_id\":\"b\",\"status\":\"closed\"}");
            weft.patch(path + "/a", "{\"status\":\"closed\"}");
            weft.patch(path + "/b", "{\"status\":\"closed\",\"x\":1}");
            weft.post(path, "{\"_id\":\"c\",\"status\":\"open\"}");
            weft.delete(path + "/c");
            weft.delete(path + "/b");
            List<String> seen = new ArrayList<>();
            for (JsonNode e : take(docs, 4)) {
                seen.add(e.get("operationType").asString() + ":" + e.get("documentKey").get("_id").asString()
                        + (e.has("cause") ? ":" + e.get("cause").asString() : ""));
            }
            assertThat(seen).containsExactly("insert:a", "leave:a:update", "insert:c", "delete:c");
            assertThat(docs.poll(300)).isNull();
            assertThat(take(plain, 3)).extracting(e -> e.get("operationType").asString())
                    .containsExactly("insert", "insert", "delete");
            assertThat(plain.poll(200)).isNull();
        }
    }

    @Test
    void namedStreamLeavesIncludeDeletes() throws Exception {
        weft.put("/db", null);
        weft.put("/db/nleaves", "{\"streams\":[{\"uri\":\"open\",\"stages\":[{\"$match\":{\"fullDocument.status\":\"open\"}}]}]}");
        try (Ws ws = Ws.open(weft, "/db/nleaves/_streams/open?leaves=true")) {
            weft.post("/db/nleaves", "{\"_id\":\"one\",\"status\":\"open\"}");
            weft.delete("/db/nleaves/one");
            assertThat(take(ws, 2)).extracting(e -> e.get("operationType").asString()).containsExactly("insert", "leave");
        }
    }
}
