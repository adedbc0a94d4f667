package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Clients that send their headers a byte at a time cannot hold the connection slots ({@code header-timeout-ms}). */
class SlowClientsTest {
    private static final int MAX_CONNECTIONS = 4;
    private static final long HEADER_TIMEOUT_MS = 1500;
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer("--max-connections", String.valueOf(MAX_CONNECTIONS),
                "--header-timeout-ms", String.valueOf(HEADER_TIMEOUT_MS));
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    /** Sends the start of a request, then one more header byte every 200 ms for up to 20 s. */
    private static final class Trickler implements AutoCloseable {
        final Socket socket = new Socket("127.0.0.1", weft.server.port());
        final Thread writer;

        Trickler() throws IOException {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            writer = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        Thread.sleep(200);
                        out.write('a');
                        out.flush();
                    }
                } catch (IOException | InterruptedException e) {
                    // the server closed the connection: what it should do
                }
            });
        }

        /** Everything the server sends until it closes the connection. */
        String answerUntilClosed() throws IOException {
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }

        @Override
        public void close() throws IOException {
            writer.interrupt();
            socket.close();
        }
    }

    @Test
    void slowHeaderClientsGet408AndANewClientIsServed() throws Exception {
        List<Trickler> slow = new ArrayList<>();
        try {
            for (int i = 0; i < MAX_CONNECTIONS; i++) {
                slow.add(new Trickler());
            }
            Thread.sleep(300); // every slot is held
            long start = System.nanoTime();
            HttpResponse<String> r = weft.client.send(HttpRequest.newBuilder(weft.uri("/ping"))
                    .timeout(Duration.ofMillis(HEADER_TIMEOUT_MS + 3000)).build(), HttpResponse.BodyHandlers.ofString());
            long waitedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(waitedMs).isLessThan(HEADER_TIMEOUT_MS + 3000);

            for (Trickler t : slow) {
                long before = System.nanoTime();
                String answer = t.answerUntilClosed();
                assertThat(answer).startsWith("HTTP/1.1 408 Request Timeout\r\n").contains("Connection: close\r\n")
                        .endsWith("{\"http status code\":408,\"http status description\":\"Request Timeout\","
                                + "\"message\":\"the request headers took longer than header-timeout-ms (1500)\"}");
                assertThat((System.nanoTime() - before) / 1_000_000).isLessThan(5000); // closed, not left to idle out
            }
        } finally {
            for (Trickler t : slow) {
                t.close();
            }
        }
        HttpResponse<String> metrics = weft.get("/metrics");
        assertThat(metrics.body()).containsPattern("\nweft_header_timeouts_total [4-9]\n");
    }

    @Test
    void idleTimeBetweenKeepAliveRequestsIsNotCountedAndSplitHeadersInTimeAreServed() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", weft.server.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200 ");
            Thread.sleep(HEADER_TIMEOUT_MS + 500); // idle on keep-alive, longer than the header timeout
            out.write("GET /ping HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(HEADER_TIMEOUT_MS / 2);
            out.write("Host: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200 ");
            // the timer of the request above was cancelled: the connection still serves
            Thread.sleep(HEADER_TIMEOUT_MS);
            out.write("GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200 ");
        }
    }

    /** One response of /ping: its head and its Content-Length body. */
    private static String readResponse(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed after " + head);
            }
            head.append((char) c);
        }
        String h = head.toString().toLowerCase();
        int at = h.indexOf("content-length: ");
        int length = Integer.parseInt(h.substring(at + 16, h.indexOf("\r\n", at)).trim());
        return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }
}
