package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM lets in-flight requests finish: an ndjson upload is half sent when the signal arrives,
 * the rest follows, and the upload is answered and stored in full before the process exits.
 */
class GracefulShutdownTest {

    @Test
    void sigtermFinishesTheRequestInFlight() throws Exception {
        Path data = Files.createTempDirectory("weft-term");
        HttpClient client = HttpClient.newHttpClient();
        String response;
        try (WeftProcess weft = new WeftProcess(data)) {
            DurabilityTest.send(client, "PUT", weft.base() + "/db", null);
            DurabilityTest.send(client, "PUT", weft.base() + "/db/up", null);
            try (Socket socket = new Socket("127.0.0.1", weft.port())) {
                OutputStream out = socket.getOutputStream();
                out.write(("POST /db/up HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
                        + "Authorization: " + WeftProcess.ADMIN + "\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                chunk(out, "{\"_id\":1}\n{\"_id\":2}\n");
                Thread.sleep(300);
                weft.sigterm();
                Thread.sleep(500);
                chunk(out, "{\"_id\":3}\n");
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(weft.terminate()).isIn(0, 143);
        }
        assertThat(response).startsWith("HTTP/1.1 200").contains("\"inserted\":3");
        try (WeftProcess again = new WeftProcess(data)) {
            var size = DurabilityTest.send(client, "GET", again.base() + "/db/up/_size", null);
            assertThat(size.body()).contains("\"_size\":3");
        }
    }

    private static void chunk(OutputStream out, String text) throws Exception {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
