package dev.weft.http;

import dev.weft.core.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;

/** Test clients for change streams: a WebSocket (java.net.http) and an SSE reader. */
final class StreamClients {
    static final Json JSON = Json.standard();

    private StreamClients() {}

    /** Something that yields events one by one. */
    abstract static class Events implements AutoCloseable {
        final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
        /** How the server ended the stream: "CODE REASON" (WebSocket close, SSE close event), "end" (SSE without one), "error". */
        final CompletableFuture<String> ended = new CompletableFuture<>();

        /** The next event, or fails after {@code seconds}. */
        JsonNode next(int seconds) throws InterruptedException {
            JsonNode e = events.poll(seconds, TimeUnit.SECONDS);
            if (e == null) {
                throw new AssertionError("no event within " + seconds + " s");
            }
            return e;
        }

        /** The next event if one comes within {@code millis}, else null. */
        JsonNode poll(long millis) throws InterruptedException {
            return events.poll(millis, TimeUnit.MILLISECONDS);
        }

        @Override
        public abstract void close();
    }

    static final class Ws extends Events implements WebSocket.Listener {
        final CompletableFuture<Integer> closed = new CompletableFuture<>();
        final boolean reads;
        final StringBuilder partial = new StringBuilder();
        /** The payloads of the server's pongs, as text. */
        final BlockingQueue<String> pongs = new LinkedBlockingQueue<>();
        WebSocket socket;

        Ws(boolean reads) {
            this.reads = reads;
        }

        static Ws open(TestServer weft, String pathAndQuery) throws Exception {
            return open(weft, pathAndQuery, true);
        }

        /** With {@code reads} false the client never asks for a message: the server's writes back up. */
        static Ws open(TestServer weft, String pathAndQuery, boolean reads) throws Exception {
            return open(weft, pathAndQuery, reads, TestServer.ADMIN);
        }

        /** With {@code authorization} empty the upgrade carries no Authorization header. */
        static Ws open(TestServer weft, String pathAndQuery, boolean reads, String authorization) throws Exception {
            Ws ws = new Ws(reads);
            WebSocket.Builder b = weft.client.newWebSocketBuilder();
            if (!authorization.isEmpty()) {
                b.header("Authorization", authorization);
            }
            ws.socket = b.buildAsync(URI.create("ws://127.0.0.1:" + weft.server.port() + pathAndQuery), ws)
                    .get(10, TimeUnit.SECONDS);
            return ws;
        }

        @Override
        public void onOpen(WebSocket webSocket) {
            if (reads) {
                webSocket.request(1);
            }
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                events.add(JSON.parse(partial.toString(), "event"));
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPong(WebSocket webSocket, ByteBuffer message) {
            pongs.add(StandardCharsets.UTF_8.decode(message).toString());
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            ended.complete(statusCode + " " + reason);
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            ended.complete("error");
            closed.complete(-1);
        }

        @Override
        public void close() {
            socket.abort();
        }
    }

    static final class Sse extends Events {
        final HttpResponse<Stream<String>> response;
        final Thread reader;
        /** The data of the server's {@code close} event ({@code code}, {@code reason}); null when the response ended without one. */
        final CompletableFuture<JsonNode> closed = new CompletableFuture<>();
        /** Every line read, for the body of a refusal. */
        final List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();

        private Sse(HttpResponse<Stream<String>> response) {
            this.response = response;
            this.reader = Thread.ofVirtual().start(() -> {
                String[] event = {""};
                try {
                    response.body().forEach(line -> {
                        lines.add(line);
                        if (line.startsWith("event: ")) {
                            event[0] = line.substring(7);
                        } else if (line.startsWith("data: ")) {
                            JsonNode data = JSON.parse(line.substring(6), "event");
                            if (event[0].equals("close")) {
                                ended.complete(data.get("code").asInt() + " " + data.get("reason").asString());
                                closed.complete(data);
                            } else {
                                events.add(data);
                            }
                        } else if (line.isEmpty()) {
                            event[0] = "";
                        }
                    });
                } catch (RuntimeException ignored) {
                    // closed by the test
                }
                closed.complete(null);
                ended.complete("end");
            });
        }

        /** Opens an SSE stream (as the admin unless {@code headers} name an Authorization); answers the response whatever its status. */
        static Sse open(TestServer weft, String pathAndQuery, String... headers) throws Exception {
            HttpRequest.Builder b = HttpRequest.newBuilder(weft.uri(pathAndQuery)).timeout(Duration.ofSeconds(10))
                    .header("Accept", "text/event-stream");
            String authorization = TestServer.ADMIN; // an Authorization given as "" sends none
            for (int i = 0; i < headers.length; i += 2) {
                if (headers[i].equals("Authorization")) {
                    authorization = headers[i + 1];
                } else {
                    b.setHeader(headers[i], headers[i + 1]);
                }
            }
            if (!authorization.isEmpty()) {
                b.header("Authorization", authorization);
            }
            HttpClient own = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            return new Sse(own.send(b.build(), HttpResponse.BodyHandlers.ofLines()));
        }

        int status() {
            return response.statusCode();
        }

        /** The whole body, once the server ended it (an error answered instead of a stream). */
        String body() throws InterruptedException {
            reader.join(5000);
            return String.join("\n", lines);
        }

        @Override
        public void close() {
            response.body().close();
            reader.interrupt();
        }
    }

    /** Reads {@code n} events. */
    static List<JsonNode> take(Events events, int n) throws InterruptedException {
        List<JsonNode> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(events.next(10));
        }
        return out;
    }
}
