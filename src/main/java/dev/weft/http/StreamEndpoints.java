package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.security.Authorizer;
import dev.weft.security.Credential;
import dev.weft.security.DocumentPolicy;
import dev.weft.security.Permission;
import dev.weft.store.Metadata;
import dev.weft.store.Namespace;
import dev.weft.stream.Grant;
import dev.weft.stream.Outlet;
import dev.weft.stream.StreamHub;
import dev.weft.stream.StreamQuery;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.eclipse.jetty.websocket.server.ServerWebSocketContainer;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /{db}/{coll}/_streams/{name}} (a stream defined in collection metadata) and
 * {@code GET /{db}/{coll}/_streams?filter=...} (ad-hoc, a filter on the documents): a WebSocket
 * when the request is an upgrade, Server-Sent Events with {@code Accept: text/event-stream}.
 * Parameters: {@code avars}, {@code leaves=true}, {@code resumeAfter} (or {@code Last-Event-ID}).
 * Everything a client can get wrong (unknown stream, bad definition or filter, resume token too
 * old) is answered 4xx before the upgrade. The request's {@link Permission} (access rules) gives
 * the subscriber's read filter and projection, applied to every event; the collection's
 * {@link DocumentPolicy} refuses filters on what it hides (400, as a GET's), and the hub applies
 * it to every event. The engine is {@link StreamHub}; this class only opens the stream, on a
 * {@link StreamSocket} or an {@link SseOutlet}, the two {@link Outlet}s.
 */
final class StreamEndpoints {
    private static final String EVENT_STREAM = "text/event-stream";

    private final Api api;
    private final StreamHub hub;
    private final ServerWebSocketContainer container;
    private final Authorizer authorizer;
    private final WebSocketSender.Kind senders;

    /** {@code senders}: how WebSocket frames are written, chosen once at start-up ({@link WebSocketSender.Kind#atStartup}). */
    StreamEndpoints(Api api, StreamHub hub, ServerWebSocketContainer container, Authorizer authorizer,
                    WebSocketSender.Kind senders) {
        this.api = api;
        this.hub = hub;
        this.container = container;
        this.authorizer = authorizer;
        this.senders = senders;
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
        filters.forEach(f -> api.policy(ns).checkQuery("filter", f)); // as a GET's filter
        open(ex, StreamQuery.adhoc(ns, filters, api.limits()));
    }

    private void open(Exchange ex, StreamQuery base) {
        boolean websocket = ex.header("Upgrade").map(u -> u.equalsIgnoreCase("websocket")).orElse(false);
        if (!websocket && !ex.header("Accept").map(a -> a.contains(EVENT_STREAM)).orElse(false)) {
            throw WeftException.badRequest("a stream is read over a WebSocket or with Accept: " + EVENT_STREAM);
        }
        DocumentPolicy policy = api.policy(base.ns());
        base.documentPaths().values().forEach(path -> policy.checkPath("the stream's filter", path)); // fullDocument.password is password
        StreamQuery query = withAccess(base.withLeaves(ex.param("leaves").map(Boolean::parseBoolean).orElse(false)),
                ex.permission());
        Optional<String> resume = ex.param("resumeAfter").or(() -> ex.header("Last-Event-ID"));
        if (resume.isPresent()) {
            query = query.resumingAfter(resume.get(), api.json());
        }
        hub.check(query);
        StreamQuery q = query;
        Grant grant = grant(ex.credential(), ex.method(), ex.segments());
        if (websocket) {
            if (!ex.upgrade(container, (rq, rs, cb) -> new StreamSocket(hub, q, grant, senders, container.getMaxOutgoingFrames()))) {
                throw WeftException.badRequest("malformed WebSocket upgrade");
            }
            return;
        }
        hub.subscribe(q, grant, new SseOutlet(ex.openAsync(200, EVENT_STREAM)));
    }

    /**
     * {@code query} with the read filter and projection of {@code permission}; 403 (401
     * anonymous) when its filter names a field the projection hides.
     */
    private static StreamQuery withAccess(StreamQuery query, Permission permission) {
        query.documentPaths().forEach((written, path) -> permission.checkShown("the stream's filter", written, path));
        Optional<Filter> readFilter = permission.readsEverything()
                ? Optional.empty() : Optional.of(permission.narrowRead(Filter.all()));
        return query.withAccess(readFilter, permission.projection());
    }

    /** The stream's access as the authorize stage would grant it now to the same credential and route. */
    private Grant grant(Credential credential, String method, List<String> segments) {
        return new Grant() {
            @Override
            public StreamQuery renew(StreamQuery current) {
                return withAccess(current, authorizer.authorize(credential.current(), method, segments));
            }

            @Override
            public long expiresAtMs() {
                return credential.expiresAtMs();
            }
        };
    }
}
