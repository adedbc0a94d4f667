package dev.weft.stream;

import java.util.function.Consumer;

/**
 * Where one subscriber's frames go: a WebSocket session or an SSE response, adapted by the HTTP
 * layer. The hub never calls {@link #send} again before the previous send's {@code done} ran, so
 * an outlet has at most one write in flight and needs no queue of its own.
 */
public interface Outlet {
    /**
     * Writes one frame without blocking (an event, or {@link EventFrame#isHeartbeat() a heartbeat}: a
     * WebSocket ping or an SSE comment); calls {@code done} exactly once, with null on success.
     * {@code done} may run before this method returns.
     */
    void send(EventFrame frame, Consumer<Throwable> done);

    /** Ends the stream cleanly with a WebSocket close code and a reason (SSE: ends the response). */
    void close(int code, String reason);

    /** Drops the connection at once, whatever is in flight (used on clients that stopped reading). */
    void abort();
}
