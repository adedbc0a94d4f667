package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.stream.StreamHub;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The SSE outlet's ends, over raw sockets so that the test controls reading and closing: the
 * stream holds no request state and no thread, so a client that goes away is only noticed by a
 * failing write (the heartbeat at the latest), and a client that stops reading is cut off by its
 * queue and its response ended (or its connection dropped).
 */
class SseOutletTest {

    @Test
    void aClientThatGoesAwayIsForgottenByTheNextHeartbeats() throws Exception {
        try (TestServer weft = new TestServer("--stream-heartbeat-ms", "200")) {
            StreamHub hub = weft.server.streams();
            try (Socket client = subscribe(weft)) {
                weft.post("/db/c", "{\"n\":1}");
                assertThat(readUntil(client.getInputStream(), "data: ")).as("the event").isTrue();
                assertThat(hub.subscribers()).isEqualTo(1);
            }
            assertThat(eventually(() -> hub.subscribers() == 0)).as("forgotten once a write to it failed").isTrue();
        }
    }

    @Test
    void aClientThatStopsReadingIsCutOffAndItsStreamEnded() throws Exception {
        try (TestServer weft = new TestServer("--stream-client-queue", "4")) {
            StreamHub hub = weft.server.streams();
            try (Socket stalled = subscribe(weft)) {
                String big = "x".repeat(256 * 1024);
                for (int i = 0; i < 60 && hub.cutOffs() == 0; i++) {
                    weft.post("/db/c", "{\"i\":" + i + ",\"pad\":\"" + big + "\"}");
                }
                assertThat(hub.cutOffs()).isEqualTo(1);
                assertThat(hub.subscribers()).isZero();
                stalled.setSoTimeout(20_000); // less than idle-timeout-ms: the end must come from the cut-off
                assertThat(readToEnd(stalled.getInputStream())).as("the stream ended for the client").isTrue();
            }
        }
    }

    /** Creates db/c and opens an SSE stream on it over a raw socket, its response head read. */
    private static Socket subscribe(TestServer weft) throws Exception {
        weft.createCollection("db", "c");
        Socket s = new Socket("127.0.0.1", weft.server.port());
        s.setSoTimeout(10_000);
        s.getOutputStream().write(("GET /db/c/_streams HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                + "Authorization: " + TestServer.ADMIN + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        assertThat(head(s.getInputStream())).startsWith("HTTP/1.1 200").contains("text/event-stream");
        return s;
    }

    private static String head(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        while (!b.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.append((char) c);
        }
        return b.toString();
    }

    /**
     * Reads what was already on the wire, then sees the stream end: the response's last chunk (the
     * cut-off ended the response while nothing was in flight; the connection stays a keep-alive
     * one) or the end of the connection (it was dropped with a write in flight). False if neither
     * comes within the socket's timeout.
     */
    private static boolean readToEnd(InputStream in) throws IOException {
        byte[] buf = new byte[64 * 1024];
        String tail = "";
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                tail += new String(buf, 0, n, StandardCharsets.ISO_8859_1);
                tail = tail.substring(Math.max(0, tail.length() - 7));
                if (tail.equals("\r\n0\r\n\r\n")) {
                    return true;
                }
            }
            return true;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static boolean readUntil(InputStream in, String marker) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0) {
            b.append((char) c);
            if (b.indexOf(marker) >= 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean eventually(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(100);
        }
        return condition.getAsBoolean();
    }
}
