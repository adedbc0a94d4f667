package dev.weft.http;

import dev.weft.stream.EventFrame;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * Writes frames through Jetty's public WebSocket API ({@link Session#sendText}): the fallback
 * when {@link CoreSessionSender}'s internals cannot be trusted (another Jetty version, or forced
 * with {@code -Dweft.websocket.sender=api}). It costs a string per event (shared between
 * subscribers, {@link EventFrame#text}) and Jetty's per-frame layers, and needs nothing but the
 * API every Jetty 12 keeps.
 */
final class ApiSessionSender extends WebSocketSender {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();
    private final Session session;

    ApiSessionSender(Session session, int maxOutgoingFrames) {
        super(maxOutgoingFrames);
        this.session = session;
    }

    @Override
    void write(EventFrame frame, Consumer<Throwable> done) {
        Callback callback = Callback.from(() -> written(done, null), failure -> written(done, failure));
        if (frame.isHeartbeat()) {
            session.sendPing(EMPTY.duplicate(), callback);
        } else {
            session.sendText(frame.text(), callback);
        }
    }

    @Override
    void pong(ByteBuffer payload) {
        session.sendPong(payload, Callback.NOOP); // Jetty's flusher orders it with the other frames
    }

    /**
     * Through the same flusher, after what is queued. Jetty then closes the socket as soon as the
     * frame is written when the code is not 1000, so a client writing meanwhile (a pong, a ping)
     * may see the connection reset instead of the code; {@link CoreSessionSender} avoids that.
     */
    @Override
    void close(int code, String reason) {
        session.close(code, reason, Callback.NOOP);
    }
}
