package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Pem;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A throwaway self-signed certificate for 127.0.0.1 (openssl), and an HTTP client that trusts only it. */
final class SelfSignedTls implements AutoCloseable {
    final Path dir;
    final Path cert;
    final Path key;

    SelfSignedTls() throws Exception {
        dir = Files.createTempDirectory("weft-tls");
        cert = dir.resolve("cert.pem");
        key = dir.resolve("key.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key.toString(), "-out", cert.toString()).redirectErrorStream(true).start();
        openssl.getInputStream().readAllBytes();
        assertThat(openssl.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(openssl.exitValue()).isZero();
    }

    /** The server's arguments for a TLS listener on a free port with this certificate. */
    String[] serverArgs() {
        return new String[] {"--tls-port", "0", "--tls-cert-file", cert.toString(), "--tls-key-file", key.toString()};
    }

    /** An HTTP/1.1 client that trusts this certificate alone. */
    HttpClient client() throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        trusted.setCertificateEntry("weft", Pem.certificates(cert).getFirst());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        return HttpClient.newBuilder().sslContext(tls).version(HttpClient.Version.HTTP_1_1).build();
    }

    @Override
    public void close() throws Exception {
        Files.deleteIfExists(cert);
        Files.deleteIfExists(key);
        Files.deleteIfExists(dir);
    }
}
