package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** CORS headers and preflights, and the HTTPS listener with a self-signed PEM certificate. */
class CorsAndTlsTest {

    @Test
    void noOriginIsAllowedByDefault() throws Exception {
        try (TestServer weft = new TestServer()) {
            HttpResponse<String> preflight = weft.send("OPTIONS", "/db/coll", null, "Authorization", TestServer.ANONYMOUS,
                    "Origin", "https://app.example", "Access-Control-Request-Method", "GET");
            assertThat(preflight.statusCode()).isEqualTo(403);
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
            assertThat(weft.get("/ping", "Origin", "https://app.example").headers()
                    .firstValue("Access-Control-Allow-Origin")).isEmpty();
        }
    }

    @Test
    void allowedOriginsGetPreflightAndExposedHeaders() throws Exception {
        try (TestServer weft = new TestServer("--cors-origins", "https://app.example, https://admin.example")) {
            HttpResponse<String> preflight = weft.send("OPTIONS", "/db/coll", null, "Authorization", TestServer.ANONYMOUS,
                    "Origin", "https://app.example", "Access-Control-Request-Method", "PATCH",
                    "Access-Control-Request-Headers", "authorization, content-type");
            assertThat(preflight.statusCode()).isEqualTo(204);
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).contains("https://app.example");
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods").orElseThrow()).contains("PATCH");
            assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers").orElseThrow()).contains("Authorization");
            assertThat(preflight.headers().firstValue("Access-Control-Max-Age")).contains("600");

            HttpResponse<String> get = weft.get("/ping", "Origin", "https://admin.example");
            assertThat(get.headers().firstValue("Access-Control-Allow-Origin")).contains("https://admin.example");
            assertThat(get.headers().firstValue("Access-Control-Expose-Headers").orElseThrow())
                    .contains("ETag").contains("Location").contains("Auth-Token");
            assertThat(weft.send("OPTIONS", "/db/coll", null, "Origin", "https://evil.example",
                    "Access-Control-Request-Method", "GET").statusCode()).isEqualTo(403);
        }
    }

    @Test
    void httpsListenerServesTheApi() throws Exception {
        try (SelfSignedTls certificate = new SelfSignedTls();
             TestServer weft = new TestServer(certificate.serverArgs())) {
            HttpClient client = certificate.client();
            int port = weft.server.tlsPort().orElseThrow();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/"))
                    .header("Authorization", TestServer.ADMIN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("weft");
            assertThat(weft.get("/ping").statusCode()).as("plain HTTP still answers").isEqualTo(200);
        }
    }
}
