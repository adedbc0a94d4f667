package dev.weft.http;

import dev.weft.stream.EventFrame;
import java.util.function.Consumer;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.common.WebSocketSession;
import org.eclipse.jetty.websocket.core.Frame;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.OutgoingEntry;
import org.eclipse.jetty.websocket.core.WebSocketConnection;
import org.eclipse.jetty.websocket.core.WebSocketCoreSession;

/**
 * Writes frames straight to the connection's frame flusher ({@link WebSocketConnection#enqueueFrame}),
 * past the session's per-frame layers (validation, outgoing-frame count, extension stack), which
 * cost about 7% of Weft's CPU per notification in {@code bench streams}. The payload is the
 * event's JSON bytes, rendered once and shared by every subscriber (each write wraps them in its
 * own read-only buffer), where {@code sendText} would encode the same string again per client.
 * The skipped layers add nothing here: the frames are valid by construction, {@link WebSocketSender}
 * counts what is unsent, and a message sent uncompressed is allowed under permessage-deflate
 * (RFC 7692, RSV1 clear). The flusher still orders these frames with Jetty's own (pong, close)
 * and refuses them once a close frame is queued, failing the write.
 *
 * <p>One text frame, one flusher entry and one callback serve every event write: only the payload
 * changes. That is safe only because one event write is in flight at a time (the hub's rule) and
 * the flusher lets go of an entry before it calls the entry's callback; a ping gets its own.
 *
 * <p>These are Jetty internals: {@link WebSocketSender.Kind#atStartup} uses this class only on
 * {@link #WRITTEN_FOR}, and {@code JettyVersionTest} fails when the pom moves to another Jetty,
 * so an upgrade is looked at before it ships.
 */
final class CoreSessionSender extends WebSocketSender {
    /** The Jetty version whose internals this class was written against (and tested on). */
    static final String WRITTEN_FOR = "12.1.12";

    private final WebSocketConnection connection;
    private final Frame text = new Frame(OpCode.TEXT);
    private volatile Consumer<Throwable> inFlight;
    private final Callback written = new Callback() {
        @Override
        public void succeeded() {
            finished(null);
        }

        @Override
        public void failed(Throwable cause) {
            finished(cause);
        }
    };
    private final OutgoingEntry textEntry = new OutgoingEntry.Builder(text, written).build();

    private CoreSessionSender(WebSocketConnection connection, int maxOutgoingFrames) {
        super(maxOutgoingFrames);
        this.connection = connection;
    }

    /** The sender of {@code session}, or null when it is not Jetty's own core session. */
    static CoreSessionSender of(Session session, int maxOutgoingFrames) {
        if (session instanceof WebSocketSession s && s.getCoreSession() instanceof WebSocketCoreSession core
                && core.getConnection() != null) {
            return new CoreSessionSender(core.getConnection(), maxOutgoingFrames);
        }
        return null;
    }

    /** True when the classes and methods this class calls are on the classpath. */
    static boolean internalsPresent() {
        try {
            WebSocketConnection.class.getMethod("enqueueFrame", OutgoingEntry.class);
            WebSocketCoreSession.class.getMethod("getConnection");
            WebSocketSession.class.getMethod("getCoreSession");
            return true;
        } catch (NoSuchMethodException | LinkageError e) {
            return false;
        }
    }

    @Override
    void write(EventFrame frame, Consumer<Throwable> done) {
        inFlight = done;
        if (frame.isHeartbeat()) {
            connection.enqueueFrame(new OutgoingEntry.Builder(new Frame(OpCode.PING), written).build());
            return;
        }
        text.setPayload(frame.payload()); // the flusher is done with the previous write: one in flight
        connection.enqueueFrame(textEntry);
    }

    private void finished(Throwable failure) {
        Consumer<Throwable> done = inFlight;
        inFlight = null;
        done.accept(failure);
    }
}
