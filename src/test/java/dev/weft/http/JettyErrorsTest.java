package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Requests Jetty refuses before Weft's pipeline sees them (ambiguous or illegal URIs, bad
 * request lines) are answered with Weft's JSON error body and a 4xx, not Jetty's HTML page.
 * (An unknown HTTP version is 505, as HTTP defines it.) Sent over a raw socket, since an HTTP
 * client would normalise or refuse these URIs itself.
 */
class JettyErrorsTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    /** The raw answer to {@code requestHead} (sent with {@code Connection: close}). */
    static String exchange(String requestHead) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", weft.server.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(requestHead.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            in.transferTo(out);
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "GET //db HTTP/1.1|400",
            "GET /db//coll HTTP/1.1|400",
            "GET /db%2fcoll HTTP/1.1|400",
            "GET /db%2Fcoll/x HTTP/1.1|400",
            "GET /db%04 HTTP/1.1|400",
            "GET /db%00x HTTP/1.1|400",
            "GET /db/%2e%2e/x HTTP/1.1|400",
            "GET /db\u0001 HTTP/1.1|400",
            "GET /db HTTP/7.3|505",
            "GET /db HTTP/1.1 extra|400",
            "NOT A REQUEST LINE|400",
            "GET /db%zz HTTP/1.1|400",
    })
    void jettysOwnRefusalsCarryWeftsJsonBody(String requestLine, int status) throws Exception {
        String answer = exchange(requestLine + "\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(answer).as(answer).startsWith("HTTP/1.1 " + status + " ");
        String head = answer.substring(0, answer.indexOf("\r\n\r\n")).toLowerCase();
        assertThat(head).contains("content-type: application/json");
        String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
        assertThat(body).startsWith("{\"http status code\":" + status + ",\"http status description\":")
                .contains("\"message\":\"").doesNotContain("<html", "<");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "GET /ping HTTP/1.1{crlf}Host: localhost{crlf}X-Big: {big}|431",
            "GET /ping HTTP/1.1{crlf}Host: a{crlf}Host: b|400",
    })
    void headerErrorsCarryWeftsJsonBody(String head, int status) throws Exception {
        String answer = exchange(head.replace("{crlf}", "\r\n").replace("{big}", "x".repeat(20_000))
                + "\r\nConnection: close\r\n\r\n");
        assertThat(answer).as(answer).startsWith("HTTP/1.1 " + status + " ");
        String body = answer.substring(answer.indexOf("\r\n\r\n") + 4);
        assertThat(body).startsWith("{\"http status code\":" + status + ",");
    }
}
