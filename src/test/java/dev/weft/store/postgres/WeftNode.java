package dev.weft.store.postgres;

import dev.weft.core.Settings;
import dev.weft.http.WeftServer;
import dev.weft.security.Security;
import dev.weft.security.acl.AclAuthorizer;
import dev.weft.store.Store;
import dev.weft.store.Stores;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One Weft node in this JVM on a {@link PgCluster}, security on, with a client that sends the
 * admin's credentials and gives up on a request after {@code requestTimeout}.
 */
final class WeftNode implements AutoCloseable {
    private static final String PASSWORD = "node-Admin-password-1";
    static final String ADMIN = admin(PASSWORD);

    private final Path data;
    private final Store store;
    private final WeftServer server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final Duration requestTimeout;

    WeftNode(Duration requestTimeout, String... settings) throws Exception {
        this.requestTimeout = requestTimeout;
        data = Files.createTempDirectory("weft-node");
        String[] args = Stream.concat(Stream.of("--port", "0", "--data", data.toString(), "--admin-password", PASSWORD,
                "--bcrypt-cost", "4"), Stream.of(settings)).toArray(String[]::new);
        Settings s = Settings.parse(args, Map.of());
        store = Stores.open(s);
        server = new WeftServer(s, store, Security.open(s, store, new PrintStream(PrintStream.nullOutputStream())),
                AclAuthorizer.open(store, s));
        server.start();
    }

    int port() {
        return server.port();
    }

    PostgresStore store() {
        return (PostgresStore) store;
    }

    HttpResponse<String> send(String method, String path, String body) throws Exception {
        return send(method, path, body, ADMIN);
    }

    /** Basic credentials of the admin with {@code secret} as its password (or auth token). */
    static String admin(String secret) {
        return "Basic " + Base64.getEncoder().encodeToString(("admin:" + secret).getBytes(StandardCharsets.UTF_8));
    }

    /** {@code headers}: more headers, name then value. */
    HttpResponse<String> send(String method, String path, String body, String authorization, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
                .timeout(requestTimeout)
                .header("Authorization", authorization)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code http://127.0.0.1:<port><path>}. */
    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    HttpResponse<String> get(String path) throws Exception {
        return send("GET", path, null);
    }

    HttpResponse<String> post(String path, String body) throws Exception {
        return send("POST", path, body);
    }

    HttpResponse<String> put(String path, String body) throws Exception {
        return send("PUT", path, body);
    }

    @Override
    public void close() throws Exception {
        server.close();
        store.close();
        try (Stream<Path> files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
