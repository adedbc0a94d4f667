package dev.weft.http;

import dev.weft.stream.EventFrame;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.common.WebSocketSession;
import org.eclipse.jetty.websocket.core.WebSocketConnection;
import org.eclipse.jetty.websocket.core.WebSocketCoreSession;

/**
 * Writes whole frames straight to the connection's socket ({@link EndPoint#write}), past Jetty's
 * frame flusher and the session's per-frame layers. The frame is the event's, made once and
 * shared by every subscriber ({@link EventFrame#webSocketText}), so a write is one buffer and,
 * when the socket takes it at once (the usual case), one system call on the calling thread, with
 * no lock, queue entry, header buffer or timeout entry per frame; a write the socket cannot take
 * at once completes from Jetty's selector when the socket drains. The flusher's layers add
 * nothing here: the frames are valid by construction, {@link WebSocketSender} counts what is
 * unsent, and a message sent uncompressed is allowed under permessage-deflate (RFC 7692, RSV1
 * clear).
 *
 * <p>Only one writer may use a socket at a time: bytes of two frames must never interleave. So
 * every frame this side starts goes through here, one at a time: events and heartbeat pings (the
 * hub's rule: one in flight), pongs ({@link #pong}: {@link StreamSocket} answers pings itself,
 * so Jetty does not), and the close ({@link #close}, after the write in flight). What Jetty still
 * writes on its own through its flusher only ends a connection (its answer to a close the client
 * started, an idle timeout); if that meets a write of ours in flight, the endpoint refuses the
 * second write and the connection is dropped instead of closed cleanly, which the client sees as
 * a broken connection and resumes from its last token.
 *
 * <p>The close frame is ours too, not Jetty's {@code Session.close}: for every code but 1000
 * (1013 slow consumer, 1008, 1011, 1001) Jetty closes the socket as soon as its close frame is
 * handed to the kernel. A client still reading its backlog then has frames in flight to the
 * server (the pong to a heartbeat, a ping of its own); closing a socket with input unread makes
 * the kernel reset the connection and throw away what was still unsent, the close frame too, so
 * the client saw a broken connection instead of its code. Here the close frame is followed by a
 * half close (FIN after it, input still read), and Jetty, which reads the client's answering
 * close (or its end of stream), drops the connection then, with nothing unread; one that never
 * answers is dropped by the hub's grace after a cut-off, or by the WebSocket idle timeout.
 *
 * <p>These are Jetty internals: {@link WebSocketSender.Kind#atStartup} uses this class only on
 * {@link #WRITTEN_FOR}, and {@code JettyVersionTest} fails when the pom moves to another Jetty,
 * so an upgrade is looked at before it ships.
 */
final class CoreSessionSender extends WebSocketSender {
    /** The Jetty version whose internals this class was written against (and tested on). */
    static final String WRITTEN_FOR = "12.1.12";
    private static final ByteBuffer PING = EventFrame.webSocketFrame(0x9, new byte[0]);
    private static final int PONG = 0xA;
    private static final int CLOSE = 0x8;
    /** A control frame's payload is 125 bytes at most: the 2-byte code and 123 of reason. */
    private static final int MAX_CLOSE_REASON = 123;

    private final EndPoint endPoint;
    /** Guarded by this: a frame of ours is on the endpoint. */
    private boolean writing;
    /** Guarded by this: whom the frame in flight reports to; null for a pong. */
    private Consumer<Throwable> inFlight;
    /** Guarded by this: an event frame that waits for a pong in flight, and whom it reports to. */
    private ByteBuffer waiting;
    private Consumer<Throwable> waitingDone;
    /** Guarded by this: the answer to the latest ping, due after the write in flight. */
    private ByteBuffer pong;
    /** Guarded by this: the close frame, due after the write in flight. */
    private ByteBuffer close;
    /** Guarded by this: a close was asked for; no frame but the close is started again. */
    private boolean closing;
    /** Guarded by this: the frame on the endpoint is the close frame. */
    private boolean closeInFlight;

    private final Callback written = new Callback() {
        @Override
        public void succeeded() {
            finished(null);
        }

        @Override
        public void failed(Throwable cause) {
            finished(cause);
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING; // what it runs (the next write, a close) never blocks
        }
    };

    private CoreSessionSender(EndPoint endPoint, int maxOutgoingFrames) {
        super(maxOutgoingFrames);
        this.endPoint = endPoint;
    }

    /** The sender of {@code session}, or null when it is not Jetty's own core session. */
    static CoreSessionSender of(Session session, int maxOutgoingFrames) {
        if (session instanceof WebSocketSession s && s.getCoreSession() instanceof WebSocketCoreSession core
                && core.getConnection() != null && core.getConnection().getEndPoint() != null) {
            return new CoreSessionSender(core.getConnection().getEndPoint(), maxOutgoingFrames);
        }
        return null;
    }

    /** True when the classes and methods this class calls are on the classpath. */
    static boolean internalsPresent() {
        try {
            WebSocketConnection.class.getMethod("getEndPoint");
            WebSocketCoreSession.class.getMethod("getConnection");
            WebSocketSession.class.getMethod("getCoreSession");
            return true;
        } catch (NoSuchMethodException | LinkageError e) {
            return false;
        }
    }

    @Override
    void write(EventFrame frame, Consumer<Throwable> done) {
        ByteBuffer bytes = frame.isHeartbeat() ? PING.duplicate() : frame.webSocketText();
        synchronized (this) {
            if (closing) {
                bytes = null;
            } else if (writing) { // a pong is in flight: this frame follows it
                waiting = bytes;
                waitingDone = done;
                return;
            } else {
                writing = true;
                inFlight = done;
            }
        }
        if (bytes == null) {
            written(done, new ClosedChannelException());
            return;
        }
        start(bytes);
    }

    @Override
    void pong(ByteBuffer payload) {
        byte[] p = new byte[Math.min(payload.remaining(), 125)]; // a control frame's payload is 125 bytes at most
        payload.get(p);
        ByteBuffer frame = EventFrame.webSocketFrame(PONG, p);
        synchronized (this) {
            if (closing) {
                return;
            }
            if (writing) {
                pong = frame; // only the latest ping needs an answer (RFC 6455 section 5.5.3)
                return;
            }
            writing = true;
            inFlight = null;
        }
        start(frame);
    }

    @Override
    void close(int code, String reason) {
        ByteBuffer frame = closeFrame(code, reason);
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            if (writing) {
                close = frame;
                return;
            }
            writing = true;
            inFlight = null;
            closeInFlight = true;
        }
        start(frame);
    }

    /** The close frame: the code, then as much of the reason as fits whole characters in {@value #MAX_CLOSE_REASON} bytes. */
    static ByteBuffer closeFrame(int code, String reason) {
        ByteBuffer payload = ByteBuffer.allocate(2 + MAX_CLOSE_REASON).putShort((short) code);
        StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(reason), payload, true); // stops before a character that does not fit
        byte[] bytes = new byte[payload.position()];
        payload.flip().get(bytes);
        return EventFrame.webSocketFrame(CLOSE, bytes);
    }

    /** Writes {@code bytes} (no other frame of ours is on the endpoint); {@link #finished} follows. */
    private void start(ByteBuffer bytes) {
        try {
            endPoint.write(written, bytes);
        } catch (RuntimeException e) { // WritePendingException: Jetty is writing a frame of its own
            finished(e);
        }
    }

    /** The write in flight ended: reports it, then starts what waited behind it. */
    private void finished(Throwable failure) {
        Consumer<Throwable> done;
        ByteBuffer next = null;
        boolean closed = false;
        synchronized (this) {
            done = inFlight;
            inFlight = null;
            boolean pongDue = pong != null && !closing;
            if (closeInFlight) {
                closeInFlight = false;
                writing = false;
                closed = failure == null;
            } else if (failure == null && pongDue && (done != null || waiting == null)) {
                // after a pong, an event waiting goes first, so a flood of pings cannot starve the events
                next = pong;
                pong = null;
            } else if (failure == null && waiting != null) {
                next = waiting;
                inFlight = waitingDone;
                waiting = null;
                waitingDone = null;
            } else if (failure == null && close != null) {
                next = close;
                close = null;
                closeInFlight = true;
            } else {
                writing = false;
                close = null;
            }
        }
        if (done != null) {
            written(done, failure);
        } else if (failure != null) {
            failWaiting(failure);
        }
        if (next != null) {
            start(next);
        } else if (closed) {
            endPoint.shutdownOutput(); // FIN after the close frame; the input stays open for the client's answer
        }
    }

    /** A pong failed: the event frame behind it fails too (the connection is gone). */
    private void failWaiting(Throwable failure) {
        Consumer<Throwable> done;
        synchronized (this) {
            done = waitingDone;
            waiting = null;
            waitingDone = null;
        }
        if (done != null) {
            written(done, failure);
        }
    }
}
