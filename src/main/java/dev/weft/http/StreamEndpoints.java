package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.security.Authorizer;
import dev.weft.security.Credential;
import dev.weft.security.DocumentAccess;
import dev.weft.store.Metadata;
import dev.weft.store.Namespace;
import dev.weft.stream.Frame;
import dev.weft.stream.Grant;
import dev.weft.stream.Outlet;
import dev.weft.stream.StreamHub;
import dev.weft.stream.StreamQuery;
import dev.weft.core.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.eclipse.jetty.websocket.common.WebSocketSession;
import org.eclipse.jetty.websocket.core.CoreSession;
import org.eclipse.jetty.websocket.core.OpCode;
import org.eclipse.jetty.websocket.core.OutgoingEntry;
import org.eclipse.jetty.websocket.core.WebSocketConnection;
import org.eclipse.jetty.websocket.core.WebSocketCoreSession;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /{db}/{coll}/_streams/{name}} (a stream defined in collection metadata) and
 * {@code GET /{db}/{coll}/_streams?filter=...} (ad-hoc, a filter on the documents): a WebSocket
 * when the request is an upgrade, Server-Sent Events with {@code Accept: text/event-stream}.
 * Parameters: {@code avars}, {@code leaves=true}, {@code resumeAfter} (or {@code Last-Event-ID}).
 * Everything a client can get wrong (unknown stream, bad definition or filter, resume token too
 * old) is answered 4xx before the upgrade. The request's {@link DocumentAccess} decides, as for
 * every other read: it refuses filters on what the collection's policy or the response
 * projection hides, and gives the subscriber's read filter and projection, applied to every
 * event (the hub applies the collection's policy to every event). The engine is {@link StreamHub}; this class only
 * adapts Jetty's WebSocket session and response to its {@link Outlet}.
 */
final class StreamEndpoints {
    private static final String EVENT_STREAM = "text/event-stream";

    private final Api api;
    private final StreamHub hub;
    private final ServerWebSocketContainer container;
    private final Authorizer authorizer;

    StreamEndpoints(Api api, StreamHub hub, ServerWebSocketContainer container, Authorizer authorizer) {
        this.api = api;
        this.hub = hub;
        this.container = container;
        this.authorizer = authorizer;
    }

    void named(Exchange ex) {
        Namespace ns = api.namespace(ex);
        Metadata meta = api.existingCollection(ns);
        Optional<JsonNode> avars = ex.param("avars").map(a -> ReadParams.jsonParam(api, "avars", a));
        open(ex, StreamQuery.named(ns, meta.properties(), ex.pathParam("name"), avars, api.limits()));
    }

    void adhoc(Exchange ex) {
        Namespace ns = api.namespace(ex);
        api.existingCollection(ns);
        List<JsonNode> filters = new ArrayList<>();
        ex.params("filter").forEach(f -> filters.add(ReadParams.jsonParam(api, "filter", f)));
        DocumentAccess access = ex.context().access(ns);
        filters.forEach(access::checkStreamFilter); // as a GET's filter
        open(ex, StreamQuery.adhoc(ns, filters, api.limits()));
    }

    private void open(Exchange ex, StreamQuery base) {
        boolean websocket = ex.header("Upgrade").map(u -> u.equalsIgnoreCase("websocket")).orElse(false);
        if (!websocket && !ex.header("Accept").map(a -> a.contains(EVENT_STREAM)).orElse(false)) {
            throw WeftException.badRequest("a stream is read over a WebSocket or with Accept: " + EVENT_STREAM);
        }
        DocumentAccess access = ex.context().access(base.ns());
        StreamQuery query = withAccess(base.withLeaves(ex.param("leaves").map(Boolean::parseBoolean).orElse(false)), access);
        Optional<String> resume = ex.param("resumeAfter").or(() -> ex.header("Last-Event-ID"));
        if (resume.isPresent()) {
            query = query.resumingAfter(resume.get(), api.json());
        }
        hub.check(query);
        StreamQuery q = query;
        Grant grant = grant(access, ex.credential(), ex.method(), ex.segments());
        if (websocket) {
            if (!ex.upgrade(container, (rq, rs, cb) -> new Socket(hub, q, grant))) {
                throw WeftException.badRequest("malformed WebSocket upgrade");
            }
            return;
        }
        hub.subscribe(q, grant, new SseOutlet(ex.openAsync(200, EVENT_STREAM)));
    }

    /**
     * {@code query} with the read filter and projection of {@code access}: 400 when its filter
     * reads a path the collection's policy hides ({@code fullDocument.password} is
     * {@code password}), 403 (401 anonymous) when one the response projection hides.
     */
    private static StreamQuery withAccess(StreamQuery query, DocumentAccess access) {
        access.checkStreamPaths(query.documentPaths());
        return query.withAccess(access.eventFilter(), access.responseProjection());
    }

    /** The stream's access as the authorize stage would grant it now to the same credential and route. */
    private Grant grant(DocumentAccess access, Credential credential, String method, List<String> segments) {
        return new Grant() {
            @Override
            public StreamQuery renew(StreamQuery current) {
                return withAccess(current, access.regranted(authorizer.authorize(credential.current(), method, segments)));
            }

            @Override
            public long expiresAtMs() {
                return credential.expiresAtMs();
            }
        };
    }

    /**
     * One WebSocket client. It subscribes when Jetty creates it, before the 101 is sent, so no
     * event committed after the client sees the connection open can be missed; a frame due
     * before the session opens waits in {@link #pending} (at most one: the hub has one write in
     * flight per outlet). Public only because Jetty calls the listener methods reflectively.
     *
     * <p>Frames are written through Jetty's core session, not the API's {@code sendText}: the
     * payload is the event's JSON bytes, rendered once and shared by every subscriber (each write
     * wraps them in its own read-only buffer), where {@code sendText} would encode the same
     * string again for every client. One {@link #written} callback, and one text frame and flusher
     * entry whose payload is set before each write, serve every write, as there is one in flight
     * at a time and the flusher lets go of an entry before it calls the entry's callback.
     *
     * <p>Frames go straight to the connection's frame flusher ({@link WebSocketConnection#enqueueFrame}),
     * past the session's per-frame layers (validation, outgoing-frame count, extension stack),
     * which cost about 7% of Weft's CPU per notification in {@code bench streams}. Those layers
     * add nothing here: the frames are valid by construction, the hub bounds what is queued per
     * client, and a message sent uncompressed is allowed under permessage-deflate (RFC 7692,
     * RSV1 clear). The flusher still orders these frames with Jetty's own (pong, close) and
     * refuses them once a close frame is queued, failing the write.
     */
    public static final class Socket implements Session.Listener.AutoDemanding, Outlet {
        private final StreamHub.Subscription subscription;
        private Session session;
        private volatile CoreSession core;
        private WebSocketConnection connection; // written before core is published
        private Frame pending;
        private Consumer<Throwable> pendingDone;
        /** The {@code done} of the write in flight. */
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
        /** The text frame and flusher entry of every event write, made once: only the payload changes. */
        private final org.eclipse.jetty.websocket.core.Frame text = new org.eclipse.jetty.websocket.core.Frame(OpCode.TEXT);
        private final OutgoingEntry textEntry = new OutgoingEntry.Builder(text, written).build();

        Socket(StreamHub hub, StreamQuery query, Grant grant) {
            this.subscription = hub.subscribe(query, grant, this);
        }

        @Override
        public void onWebSocketOpen(Session session) {
            Frame frame;
            Consumer<Throwable> done;
            CoreSession c = ((WebSocketSession) session).getCoreSession();
            synchronized (this) {
                this.session = session;
                this.connection = c instanceof WebSocketCoreSession w ? w.getConnection() : null;
                this.core = c;
                frame = pending;
                done = pendingDone;
                pending = null;
            }
            if (frame != null) {
                write(c, frame, done);
            }
        }

        @Override
        public void send(Frame frame, Consumer<Throwable> done) {
            CoreSession c = core;
            if (c == null) {
                synchronized (this) {
                    c = core;
                    if (c == null) {
                        pending = frame;
                        pendingDone = done;
                        return;
                    }
                }
            }
            write(c, frame, done);
        }

        private void write(CoreSession core, Frame frame, Consumer<Throwable> done) {
            inFlight = done;
            WebSocketConnection c = connection;
            if (c != null && !frame.isHeartbeat()) {
                text.setPayload(frame.payload()); // the flusher is done with the previous write: one in flight
                c.enqueueFrame(textEntry);
                return;
            }
            org.eclipse.jetty.websocket.core.Frame f = frame.isHeartbeat()
                    ? new org.eclipse.jetty.websocket.core.Frame(OpCode.PING)
                    : new org.eclipse.jetty.websocket.core.Frame(OpCode.TEXT, frame.payload());
            if (c != null) {
                c.enqueueFrame(new OutgoingEntry.Builder(f, written).build());
            } else {
                core.sendFrame(f, written, false);
            }
        }

        private void finished(Throwable failure) {
            Consumer<Throwable> done = inFlight;
            inFlight = null;
            done.accept(failure);
        }

        @Override
        public void close(int code, String reason) {
            Session s = session;
            if (s != null) {
                s.close(code, reason, org.eclipse.jetty.websocket.api.Callback.NOOP);
            }
        }

        @Override
        public void abort() {
            Session s = session;
            if (s != null) {
                s.disconnect();
            }
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

    /**
     * One SSE client: each frame is an asynchronous write on the open response. A client that
     * goes away is noticed by the next write (at the latest the heartbeat), whose failure cancels
     * the subscription; so the outlet holds nothing but the stream.
     */
    private static final class SseOutlet implements Outlet {
        private final Exchange.AsyncStream stream;

        SseOutlet(Exchange.AsyncStream stream) {
            this.stream = stream;
        }

        @Override
        public void send(Frame frame, Consumer<Throwable> done) {
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
}
