package dev.weft.http;

import dev.weft.core.Settings;
import dev.weft.security.Security;
import dev.weft.security.acl.AclAuthorizer;
import dev.weft.store.Store;
import dev.weft.store.Stores;
import dev.weft.store.postgres.PgTesting;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A real Weft server on a free port over a fresh data directory, with security on, and a client
 * for it. The first start creates {@code admin} with {@link #ADMIN_PASSWORD}; requests send it as
 * Basic auth unless they pass their own {@code Authorization} header ({@link #ANONYMOUS}: none).
 * Hashing uses the lowest bcrypt cost to keep tests fast. The system property
 * {@code weft.test.store=postgresql} puts it on PostgreSQL instead, in a fresh schema (the build
 * runs the HTTP tests once per store).
 */
final class TestServer implements AutoCloseable {
    static final String ADMIN_PASSWORD = "test-Admin-password-1";
    static final String ADMIN = basic("admin", ADMIN_PASSWORD);
    /** As the value of an {@code Authorization} header: send the request without credentials. */
    static final String ANONYMOUS = "";

    final Path data;
    final Settings settings;
    final Store store;
    final WeftServer server;
    final String pgSchema;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    TestServer(String... extraArgs) throws Exception {
        this(UnaryOperator.identity(), extraArgs);
    }

    /** A server whose requests reach the store through {@code wrap} (a test's fault injector); {@link #store} stays the real one. */
    TestServer(UnaryOperator<Store> wrap, String... extraArgs) throws Exception {
        this(Files.createTempDirectory("weft-test"),
                "postgresql".equals(System.getProperty("weft.test.store")) ? PgTesting.freshSchema() : null, wrap, extraArgs);
    }

    private TestServer(Path data, String pgSchema, UnaryOperator<Store> wrap, String... extraArgs) throws Exception {
        this.data = data;
        this.pgSchema = pgSchema;
        String[] args = Stream.of(Stream.of("--port", "0", "--data", data.toString(),
                        "--admin-password", ADMIN_PASSWORD, "--bcrypt-cost", "4"),
                pgSchema == null ? Stream.<String>empty() : Stream.of("--store", PgTesting.url(pgSchema)),
                Stream.of(extraArgs)).flatMap(s -> s).toArray(String[]::new);
        settings = Settings.parse(args, Map.of());
        store = Stores.open(settings);
        server = new WeftServer(settings, wrap.apply(store), Security.open(settings, store, System.out),
                AclAuthorizer.open(store, settings));
        server.start();
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    /** A request to this server, with the admin's credentials. */
    HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(uri(pathAndQuery)).header("Authorization", ADMIN);
    }

    URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + server.port() + pathAndQuery);
    }

    HttpResponse<String> send(String method, String pathAndQuery, String body, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(pathAndQuery))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        String authorization = ADMIN;
        for (int i = 0; i < headers.length; i += 2) {
            if (headers[i].equalsIgnoreCase("Authorization")) {
                authorization = headers[i + 1];
            } else {
                b.setHeader(headers[i], headers[i + 1]);
            }
        }
        if (!authorization.isEmpty()) {
            b.setHeader("Authorization", authorization);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
        return send("GET", path, null, headers);
    }

    HttpResponse<String> post(String path, String body, String... headers) throws IOException, InterruptedException {
        return send("POST", path, body, headers);
    }

    HttpResponse<String> put(String path, String body, String... headers) throws IOException, InterruptedException {
        return send("PUT", path, body, headers);
    }

    HttpResponse<String> patch(String path, String body, String... headers) throws IOException, InterruptedException {
        return send("PATCH", path, body, headers);
    }

    HttpResponse<String> delete(String path, String... headers) throws IOException, InterruptedException {
        return send("DELETE", path, null, headers);
    }

    /** Creates database and collection in one go. */
    void createCollection(String db, String coll) throws Exception {
        put("/" + db, null);
        HttpResponse<String> r = put("/" + db + "/" + coll, null);
        if (r.statusCode() != 201 && r.statusCode() != 200) {
            throw new IllegalStateException("could not create " + db + "/" + coll + ": " + r.body());
        }
    }

    static String q(String json) {
        return java.net.URLEncoder.encode(json, java.nio.charset.StandardCharsets.UTF_8);
    }

    /**
     * Stops this server, keeping its data, and starts another over the same data (directory or
     * PostgreSQL schema) with other settings; the new one owns the data from then on.
     */
    TestServer restartWith(String... extraArgs) throws Exception {
        stop();
        return new TestServer(data, pgSchema, UnaryOperator.identity(), extraArgs);
    }

    private void stop() throws Exception {
        server.close();
        store.close();
    }

    @Override
    public void close() throws Exception {
        stop();
        if (pgSchema != null) {
            PgTesting.dropSchema(pgSchema);
        }
        try (Stream<Path> files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
