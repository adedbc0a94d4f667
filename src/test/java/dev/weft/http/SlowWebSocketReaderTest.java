package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Ws;
import dev.weft.stream.StreamHub;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A WebSocket client that subscribes and then never reads (a raw socket: the kernel's buffers
 * fill, then the server's write stays in flight) is cut off within a bounded time, and the
 * other subscribers keep receiving events promptly meanwhile; with both WebSocket writers.
 */
class SlowWebSocketReaderTest {

    /** A server whose WebSocket frames are written by {@code kind} (chosen at start-up, from the system property). */
    static TestServer serverWith(WebSocketSender.Kind kind, String... args) throws Exception {
        String before = System.getProperty(WebSocketSender.Kind.PROPERTY);
        System.setProperty(WebSocketSender.Kind.PROPERTY, kind.name().toLowerCase());
        try {
            return new TestServer(args);
        } finally {
            if (before == null) {
                System.clearProperty(WebSocketSender.Kind.PROPERTY);
            } else {
                System.setProperty(WebSocketSender.Kind.PROPERTY, before);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(WebSocketSender.Kind.class)
    void aClientThatStopsReadingIsCutOffInBoundedTimeAndTheOthersKeepUp(WebSocketSender.Kind kind) throws Exception {
        try (TestServer weft = serverWith(kind, "--stream-client-queue", "16")) {
            weft.createCollection("db", "c");
            StreamHub hub = weft.server.streams();
            try (Ws reader = Ws.open(weft, "/db/c/_streams");
                 Socket stalled = upgradeAndNeverRead(weft, "/db/c/_streams")) {
                waitFor(() -> hub.subscribers() == 2);
                String pad = "x".repeat(32 * 1024);
                long start = System.nanoTime();
                int sent = 0;
                while (hub.cutOffs() == 0 && sent < 2000) {
                    weft.post("/db/c", "{\"i\":" + sent + ",\"pad\":\"" + pad + "\"}");
                    long asked = System.nanoTime();
                    assertThat(reader.next(2).get("fullDocument").get("i").asInt()).isEqualTo(sent);
                    assertThat(System.nanoTime() - asked).as("the reading client's delay").isLessThan(2_000_000_000L);
                    sent++;
                }
                long cutOffMs = (System.nanoTime() - start) / 1_000_000;
                System.out.printf("%s writer: the stalled client was cut off after %d events, %d ms%n", kind, sent, cutOffMs);
                assertThat(hub.cutOffs()).as("cut off after %d events of 32 KiB", sent).isEqualTo(1);
                assertThat(cutOffMs).as("time to the cut-off").isLessThan(30_000);
                assertThat(hub.subscribers()).isEqualTo(1);
                assertThat(droppedWithin(stalled, 15_000)).as("the server dropped the connection").isTrue();
                weft.post("/db/c", "{\"i\":" + sent + "}");
                assertThat(reader.next(2).get("fullDocument").get("i").asInt()).isEqualTo(sent);
            }
        }
    }

    /**
     * A client that stops reading while events pile up (7.5 MiB, past the kernel's buffers) gets
     * every one of them, once, in commit order, when it reads again: the frames queued for it
     * while a write stayed in flight go out after it, with both WebSocket writers.
     */
    @ParameterizedTest
    @EnumSource(WebSocketSender.Kind.class)
    void aClientThatPausesGetsEveryEventThatPiledUpInOrderWhenItReadsAgain(WebSocketSender.Kind kind) throws Exception {
        try (TestServer weft = serverWith(kind)) {
            weft.createCollection("db", "c");
            StreamHub hub = weft.server.streams();
            try (Ws paused = Ws.open(weft, "/db/c/_streams", false)) {
                waitFor(() -> hub.subscribers() == 1);
                String pad = "x".repeat(32 * 1024);
                int events = 240;
                for (int i = 0; i < events; i++) {
                    weft.post("/db/c", "{\"i\":" + i + ",\"pad\":\"" + pad + "\"}");
                }
                paused.socket.request(1);
                for (int i = 0; i < events; i++) {
                    assertThat(paused.next(5).get("fullDocument").get("i").asInt()).isEqualTo(i);
                }
                assertThat(paused.poll(200)).isNull();
                assertThat(hub.cutOffs()).isZero();
            }
        }
    }

    /** Opens a WebSocket stream on a raw socket with a small receive buffer, reads the 101, then reads nothing. */
    static Socket upgradeAndNeverRead(TestServer weft, String path) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress("127.0.0.1", weft.server.port()), 5000);
        String key = Base64.getEncoder().encodeToString("weft-slow-reader".getBytes(StandardCharsets.US_ASCII));
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\nAuthorization: " + TestServer.ADMIN
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) { // byte by byte: nothing past the headers is read
            int b = in.read();
            if (b < 0) {
                throw new IOException("no upgrade: " + head);
            }
            head.append((char) b);
        }
        assertThat(head.toString()).startsWith("HTTP/1.1 101");
        return socket;
    }

    /** Reads what the server wrote until it drops the connection (true) or {@code millis} pass (false). */
    private static boolean droppedWithin(Socket socket, long millis) throws IOException {
        long deadline = System.currentTimeMillis() + millis;
        byte[] buf = new byte[64 * 1024];
        InputStream in = socket.getInputStream();
        while (System.currentTimeMillis() < deadline) {
            socket.setSoTimeout((int) Math.max(1, deadline - System.currentTimeMillis()));
            try {
                if (in.read(buf) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (SocketException e) {
                return true; // reset
            }
        }
        return false;
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 5000;
        while (!condition.getAsBoolean()) {
            assertThat(System.currentTimeMillis()).as("waited 5 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
