package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Sse;
import dev.weft.http.StreamClients.Ws;
import dev.weft.stream.StreamHub;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Retention and slow clients, each on a server with small limits. */
class StreamLimitsTest {

    @Test
    void aTokenOlderThanTheRetentionWindowIsRefusedNeverAGap() throws Exception {
        try (TestServer weft = new TestServer("--stream-retention-events", "5")) {
            weft.createCollection("db", "c");
            String first;
            try (Ws ws = Ws.open(weft, "/db/c/_streams")) {
                weft.post("/db/c", "{\"n\":0}");
                first = ws.next(10).get("_id").get("_data").asString();
            }
            for (int n = 1; n < 20; n++) {
                weft.post("/db/c", "{\"n\":" + n + "}");
            }
            Thread.sleep(1100); // retention is applied at most once a second, with a write
            weft.post("/db/c", "{\"n\":20}");
            Sse sse = Sse.open(weft, "/db/c/_streams", "Last-Event-ID", first);
            assertThat(sse.status()).isEqualTo(410);
            sse.close();
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> Ws.open(weft, "/db/c/_streams?resumeAfter=" + first));
            assertThat(((WebSocketHandshakeException) e.getCause()).getResponse().statusCode()).isEqualTo(410);
            assertThat(weft.get("/db/c/_streams?resumeAfter=zz", "Accept", "text/event-stream").statusCode()).isEqualTo(400);
            assertThat(weft.get("/db/c/_streams?resumeAfter=00000000000fffff", "Accept", "text/event-stream").statusCode())
                    .isEqualTo(400);
        }
    }

    @Test
    void aClientThatDoesNotReadIsCutOffAndForgotten() throws Exception {
        try (TestServer weft = slowClientServer();
             Ws reader = Ws.open(weft, "/db/c/_streams");
             Ws stalled = Ws.open(weft, "/db/c/_streams", false)) {
            writeUntilCutOff(weft, reader);
            assertThat(weft.server.streams().subscribers()).isEqualTo(1);
            stalled.socket.request(Long.MAX_VALUE);
            assertThat(stalled.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1013);
        }
    }

    /**
     * A cut-off client that sends while it reads (here pings, as a browser's keep-alive would)
     * still reads its close 1013: the server must not drop the connection with the client's
     * frames unread, which resets it and discards the close frame still in the socket buffer.
     */
    @Test
    void aCutOffClientThatPingsWhileItReadsStillGetsItsClose() throws Exception {
        try (TestServer weft = slowClientServer();
             Ws reader = Ws.open(weft, "/db/c/_streams");
             Ws stalled = Ws.open(weft, "/db/c/_streams", false)) {
            writeUntilCutOff(weft, reader);
            Thread pinger = Thread.ofVirtual().start(() -> {
                try {
                    while (!stalled.closed.isDone()) {
                        stalled.socket.sendPing(ByteBuffer.wrap(new byte[100])).get();
                    }
                } catch (Exception e) {
                    // the connection is closed
                }
            });
            stalled.socket.request(Long.MAX_VALUE);
            assertThat(stalled.closed.get(10, TimeUnit.SECONDS)).isEqualTo(1013);
            pinger.join(10_000);
        }
    }

    /** A server whose stream clients are cut off at 4 unsent events, with a grace long enough for a loaded machine: the close frame is asserted, not the drop's timing. */
    private static TestServer slowClientServer() throws Exception {
        TestServer weft = new TestServer("--stream-client-queue", "4", "--stream-cutoff-grace-ms", "60000");
        weft.createCollection("db", "c");
        return weft;
    }

    /** Writes 256 KiB events, each read by {@code reader}, until the stream client that does not read is cut off. */
    private static void writeUntilCutOff(TestServer weft, Ws reader) throws Exception {
        StreamHub hub = weft.server.streams();
        String big = "x".repeat(256 * 1024);
        for (int i = 0; i < 60 && hub.cutOffs() == 0; i++) {
            weft.post("/db/c", "{\"i\":" + i + ",\"pad\":\"" + big + "\"}");
            reader.next(10);
        }
        assertThat(hub.cutOffs()).isEqualTo(1);
    }
}
