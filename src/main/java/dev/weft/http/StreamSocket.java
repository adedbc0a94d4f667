package dev.weft.http;

import dev.weft.stream.EventFrame;
import dev.weft.stream.Grant;
import dev.weft.stream.Outlet;
import dev.weft.stream.StreamHub;
import dev.weft.stream.StreamQuery;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import org.eclipse.jetty.websocket.api.Session;

/**
 * One WebSocket stream client. It subscribes when Jetty creates it, before the 101 is sent, so no
 * event committed after the client sees the connection open can be missed; a frame due before
 * the session opens waits in {@link #pending} (at most one: the hub has one write in flight per
 * outlet), and so does a close due before it ({@link #pendingCloseReason}, after that frame's write
 * as every close). Frames are written by a {@link WebSocketSender}, made when the session opens, which
 * also bounds what is unsent. Public only because Jetty calls the listener methods reflectively.
 */
public final class StreamSocket implements Session.Listener.AutoDemanding, Outlet {
    private final StreamHub.Subscription subscription;
    private final WebSocketSender.Kind senders;
    private final int maxOutgoingFrames;
    private Session session;
    private volatile WebSocketSender sender;
    private EventFrame pending;
    private Consumer<Throwable> pendingDone;
    /** Guarded by this: a close due before the session opened (its reason null when none is). */
    private int pendingCloseCode;
    private String pendingCloseReason;

    StreamSocket(StreamHub hub, StreamQuery query, Grant grant, WebSocketSender.Kind senders, int maxOutgoingFrames) {
        this.senders = senders;
        this.maxOutgoingFrames = maxOutgoingFrames;
        this.subscription = hub.subscribe(query, grant, this);
    }

    @Override
    public void onWebSocketOpen(Session session) {
        WebSocketSender s = senders.sender(session, maxOutgoingFrames);
        EventFrame frame;
        Consumer<Throwable> done;
        int closeCode;
        String closeReason;
        synchronized (this) {
            this.session = session;
            this.sender = s;
            frame = pending;
            done = pendingDone;
            closeCode = pendingCloseCode;
            closeReason = pendingCloseReason;
            pending = null;
            pendingDone = null;
        }
        if (frame != null) {
            s.send(frame, done);
        } else if (closeReason != null) {
            s.close(closeCode, closeReason);
        }
    }

    @Override
    public void send(EventFrame frame, Consumer<Throwable> done) {
        WebSocketSender s = sender;
        if (s == null) {
            synchronized (this) {
                s = sender;
                if (s == null) {
                    pending = frame;
                    pendingDone = done;
                    return;
                }
            }
        }
        s.send(frame, done);
    }

    @Override
    public void close(int code, String reason) {
        WebSocketSender s;
        synchronized (this) { // once per stream: no need for send's unlocked read
            s = sender;
            if (s == null) {
                pendingCloseCode = code;
                pendingCloseReason = reason;
                return;
            }
        }
        s.close(code, reason);
    }

    /**
     * Answers a ping through the sender, which writes every frame of this connection one at a
     * time (declaring this method also stops Jetty from answering by itself, past the sender).
     */
    @Override
    public void onWebSocketPing(ByteBuffer payload) {
        WebSocketSender s = sender;
        if (s != null) {
            s.pong(payload);
        }
    }

    @Override
    public void abort() {
        Session s = session();
        if (s != null) {
            s.disconnect();
        }
    }

    private synchronized Session session() {
        return session;
    }

    @Override
    public void onWebSocketClose(int code, String reason) {
        subscription.cancel();
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        subscription.cancel();
    }
}
