package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Ws;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A change stream over {@code wss://}: events are written as whole frames straight to the
 * connection's endpoint, which under TLS is the decrypting one, so they arrive encrypted and
 * whole, small and large, and a ping is answered between them.
 */
class StreamOverTlsTest {

    @Test
    void eventsAndPongsArriveWholeOverTls() throws Exception {
        try (SelfSignedTls certificate = new SelfSignedTls();
             TestServer weft = new TestServer(certificate.serverArgs())) {
            weft.createCollection("db", "tls");
            Ws ws = new Ws(true);
            ws.socket = certificate.client().newWebSocketBuilder().header("Authorization", TestServer.ADMIN)
                    .buildAsync(URI.create("wss://127.0.0.1:" + weft.server.tlsPort().orElseThrow() + "/db/tls/_streams"), ws)
                    .get(10, TimeUnit.SECONDS);
            try (ws) {
                int[] sizes = {10, 200_000, 3_000};
                for (int i = 0; i < sizes.length; i++) {
                    assertThat(weft.post("/db/tls", "{\"_id\":" + i + ",\"pad\":\"" + "y".repeat(sizes[i]) + "\"}")
                            .statusCode()).isEqualTo(201);
                }
                ws.socket.sendPing(ByteBuffer.wrap("over-tls".getBytes(StandardCharsets.UTF_8))).get(10, TimeUnit.SECONDS);
                assertThat(ws.pongs.poll(10, TimeUnit.SECONDS)).isEqualTo("over-tls");
                List<JsonNode> events = StreamClients.take(ws, sizes.length);
                for (int i = 0; i < sizes.length; i++) {
                    assertThat(events.get(i).get("documentKey").get("_id").asInt()).isEqualTo(i);
                    assertThat(events.get(i).get("fullDocument").get("pad").asString()).hasSize(sizes[i]);
                }
            }
        }
    }
}
