package dev.weft.http;

import dev.weft.stream.EventFrame;
import java.nio.ByteBuffer;
import java.nio.channels.WritePendingException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.eclipse.jetty.util.Jetty;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a stream's frames on one WebSocket connection: the one place that knows how, so that
 * Jetty's internals are used behind this class and nowhere else. Two ways: {@link CoreSessionSender}
 * hands the event's shared bytes straight to the connection's frame flusher (Jetty internals,
 * about 7% less CPU per notification), {@link ApiSessionSender} uses Jetty's public
 * {@code Session.sendText}. {@link Kind#atStartup} picks the internal one only on the Jetty
 * version it was written against.
 *
 * <p>Invariant: at most {@code maxOutgoingFrames} frames are unsent on a connection. The count is
 * kept here, for both ways: Jetty's own count ({@code setMaxOutgoingFrames}) lives in its
 * session's {@code sendFrame}, which the internal way goes past, so it bounded nothing. The hub
 * keeps one write in flight per client and the socket at most one pending, so the bound is only
 * reached when that discipline breaks; then the write fails, which cuts the client off (the hub
 * cancels the subscription and drops the connection) instead of queueing without end.
 */
abstract class WebSocketSender {
    private final int maxOutgoingFrames;
    private final AtomicInteger outgoing = new AtomicInteger();

    WebSocketSender(int maxOutgoingFrames) {
        this.maxOutgoingFrames = maxOutgoingFrames;
    }

    /**
     * Writes {@code frame} (a text message, or a ping for a heartbeat) without blocking;
     * {@code done} gets null once it is written, or the failure, exactly once.
     */
    final void send(EventFrame frame, Consumer<Throwable> done) {
        if (outgoing.incrementAndGet() > maxOutgoingFrames) {
            outgoing.decrementAndGet();
            done.accept(new WritePendingException()); // the client is cut off: more than max-outgoing-frames unsent
            return;
        }
        write(frame, done);
    }

    /** What a {@link #write} must call when it ends: counts the frame as sent, then tells {@code done}. */
    final void written(Consumer<Throwable> done, Throwable failure) {
        outgoing.decrementAndGet();
        done.accept(failure);
    }

    /** Frames handed to Jetty and not yet written. */
    final int outgoing() {
        return outgoing.get();
    }

    /** Hands {@code frame} to Jetty; once it is written or failed, calls {@link #written} with {@code done}, exactly once. */
    abstract void write(EventFrame frame, Consumer<Throwable> done);

    /** Answers a client's ping with {@code payload} (best effort: a failed pong fails the connection). */
    abstract void pong(ByteBuffer payload);

    /** Sends the close frame with {@code code} and {@code reason} once no frame of this sender is being written. */
    abstract void close(int code, String reason);

    /** Which way the server writes its WebSocket frames, chosen once at start-up. */
    enum Kind {
        /** Jetty internals ({@link CoreSessionSender}). */
        CORE,
        /** Jetty's public API ({@link ApiSessionSender}). */
        API;

        private static final Logger LOG = LoggerFactory.getLogger(WebSocketSender.class);
        /** The system property that forces a way ({@code core} or {@code api}), for tests and for trouble. */
        static final String PROPERTY = "weft.websocket.sender";

        /**
         * {@link #CORE} when the Jetty on the classpath is the version {@link CoreSessionSender}
         * was written against and its internals are there, unless {@link #PROPERTY} says
         * {@code api}; otherwise {@link #API}, with a log line saying why.
         */
        static Kind atStartup() {
            String forced = System.getProperty(PROPERTY, "");
            if (forced.equalsIgnoreCase("api")) {
                LOG.info("WebSocket frames are written through Jetty's public API ({}=api)", PROPERTY);
                return API;
            }
            if (!Jetty.VERSION.equals(CoreSessionSender.WRITTEN_FOR)) {
                LOG.info("WebSocket frames are written through Jetty's public API: Jetty {} is not {}, the version "
                        + "the faster internal writer was written against", Jetty.VERSION, CoreSessionSender.WRITTEN_FOR);
                return API;
            }
            if (!CoreSessionSender.internalsPresent()) {
                LOG.info("WebSocket frames are written through Jetty's public API: Jetty's internals are not as expected");
                return API;
            }
            return CORE;
        }

        /** The sender of {@code session}: the internal one only when the session is Jetty's own. */
        WebSocketSender sender(Session session, int maxOutgoingFrames) {
            if (this == CORE) {
                CoreSessionSender core = CoreSessionSender.of(session, maxOutgoingFrames);
                if (core != null) {
                    return core;
                }
            }
            return new ApiSessionSender(session, maxOutgoingFrames);
        }
    }
}
