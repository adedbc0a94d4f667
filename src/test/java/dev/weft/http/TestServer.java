package dev.weft.http;

import dev.weft.core.Settings;
import dev.weft.security.OpenAccess;
import dev.weft.store.Store;
import dev.weft.store.Stores;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;

/** A real Weft server on a free port over a fresh data directory, and a client for it. */
final class TestServer implements AutoCloseable {
    final Path data;
    final Store store;
    final WeftServer server;
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    TestServer(String... extraArgs) throws Exception {
        data = Files.createTempDirectory("weft-test");
        String[] args = Stream.concat(Stream.of("--port", "0", "--data", data.toString()), Stream.of(extraArgs))
                .toArray(String[]::new);
        Settings settings = Settings.parse(args, Map.of());
        store = Stores.open(settings);
        server = new WeftServer(settings, store, OpenAccess.AUTHENTICATOR, OpenAccess.AUTHORIZER);
        server.start();
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
        for (int i = 0; i < headers.length; i += 2) {
            b.setHeader(headers[i], headers[i + 1]);
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

    @Override
    public void close() throws Exception {
        server.close();
        store.close();
        try (Stream<Path> files = Files.walk(data)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
