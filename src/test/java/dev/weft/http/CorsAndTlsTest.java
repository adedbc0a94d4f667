package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Pem;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
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
        Path dir = Files.createTempDirectory("weft-tls");
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key.toString(), "-out", cert.toString()).redirectErrorStream(true).start();
        openssl.getInputStream().readAllBytes();
        assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(openssl.exitValue()).isZero();

        try (TestServer weft = new TestServer("--tls-port", "0", "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString())) {
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            trusted.setCertificateEntry("weft", Pem.certificates(cert).getFirst());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trusted);
            SSLContext tls = SSLContext.getInstance("TLS");
            tls.init(null, tmf.getTrustManagers(), null);
            HttpClient client = HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1).build();
            int port = weft.server.tlsPort().orElseThrow();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/"))
                    .header("Authorization", TestServer.ADMIN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("weft");
            assertThat(weft.get("/ping").statusCode()).as("plain HTTP still answers").isEqualTo(200);
        } finally {
            Files.deleteIfExists(cert);
            Files.deleteIfExists(key);
            Files.deleteIfExists(dir);
        }
    }
}
