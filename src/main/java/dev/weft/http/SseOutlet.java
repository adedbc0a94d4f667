package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.stream.EventFrame;
import dev.weft.stream.Outlet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import tools.jackson.databind.node.ObjectNode;

/**
 * One SSE client: each frame is an asynchronous write on the open response. A client that goes
 * away is noticed by the next write (at the latest the heartbeat), whose failure cancels the
 * subscription; so the outlet holds nothing but the stream.
 */
final class SseOutlet implements Outlet {
    private final AsyncStream stream;

    SseOutlet(AsyncStream stream) {
        this.stream = stream;
    }

    @Override
    public void send(EventFrame frame, Consumer<Throwable> done) {
        stream.write(frame.sse(), done);
    }

    /**
     * Ends the response after a last event named {@code close} whose data is
     * {@code {"code": <WebSocket close code>, "reason": "..."}} (EventSource fires it at a
     * {@code close} listener, not at {@code onmessage}); the hub has no write in flight.
     */
    @Override
    public void close(int code, String reason) {
        ObjectNode why = Json.NODES.objectNode().put("code", code).put("reason", reason);
        byte[] event = ("event: close\ndata: " + why + "\n\n").getBytes(StandardCharsets.UTF_8);
        stream.write(event, failure -> stream.end());
    }

    @Override
    public void abort() {
        stream.abort(new IOException("stream client cut off"));
    }
}
