package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One keep-alive connection answering request after request: a request's virtual thread resumes
 * its connection itself once its response is complete ({@link RequestThreads}), so each next
 * request (sent after the answer, or already waiting, pipelined behind the one before) must be
 * read and answered, with a body or without, uncached reads and writes alike.
 */
class KeepAliveResumeTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer("--result-cache-entries", "0");
        weft.createCollection("db", "c");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void answersEveryRequestOfOneConnectionInTurn() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", weft.server.port())) {
            socket.setSoTimeout(10_000);
            for (int i = 0; i < 40; i++) {
                send(socket, post("/db/c", "{\"_id\":" + i + ",\"n\":" + i + "}"));
                assertThat(read(socket).status).isEqualTo(201);
                send(socket, get("/db/c?pagesize=2&sort=%7B%22n%22%3A-1%7D"));
                Response list = read(socket);
                assertThat(list.status).isEqualTo(200);
                assertThat(list.body).startsWith("[{\"_id\":" + i + ",");
            }
        }
    }

    @Test
    void answersPipelinedRequestsInOrder() throws Exception {
        try (Socket socket = new Socket("127.0.0.1", weft.server.port())) {
            socket.setSoTimeout(10_000);
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < 10; i++) {
                burst.append(post("/db/c", "{\"_id\":\"p" + i + "\"}")).append(get("/db/c/p" + i));
            }
            burst.append(get("/db/c/missing"));
            send(socket, burst.toString());
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                statuses.add(read(socket).status);
                Response doc = read(socket);
                statuses.add(doc.status);
                assertThat(doc.body).contains("\"_id\":\"p" + i + "\"");
            }
            statuses.add(read(socket).status);
            assertThat(statuses.subList(0, 20)).containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, 20).mapToObj(i -> i % 2 == 0 ? 201 : 200).toList());
            assertThat(statuses.get(20)).isEqualTo(404);
        }
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + TestServer.ADMIN + "\r\n\r\n";
    }

    private static String post(String path, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: " + TestServer.ADMIN
                + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    }

    private static void send(Socket socket, String requests) throws IOException {
        socket.getOutputStream().write(requests.getBytes(StandardCharsets.UTF_8));
        socket.getOutputStream().flush();
    }

    private record Response(int status, String body) {}

    /** One response: its status line, headers up to the blank line, then Content-Length bytes. */
    private static Response read(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        String status = line(in);
        int length = 0;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            if (header.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Integer.parseInt(header.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return new Response(Integer.parseInt(status.split(" ")[1]), new String(body, StandardCharsets.UTF_8));
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("the connection closed mid-response");
            }
            if (b != '\r') {
                out.write(b);
            }
        }
        return out.toString(StandardCharsets.ISO_8859_1);
    }
}
