package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.security.Authorizer;
import dev.weft.security.Credential;
import dev.weft.security.DocumentAccess;
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
 * Parameters: {@code avars}, {@code stages} (ad-hoc: stages over the event), {@code leaves=true}, {@code resumeAfter} (or {@code Last-Event-ID}).
 * Everything a client can get wrong (unknown stream, bad definition or filter, resume token too
 * old) is answered 4xx before the upgrade. The request's {@link DocumentAccess} decides, as for
 * every other read: it refuses filters on what the collection's policy or the response
 * projection hides, and gives the subscriber's read filter and projection, applied to every
 * event (the hub applies the collection's policy to every event). The engine is
 * {@link StreamHub}; this class only opens the stream, on a {@link StreamSocket} or an
 * {@link SseOutlet}, the two {@link Outlet}s.
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
        DocumentAccess access = ex.context().access(ns);
        filters.forEach(access::checkStreamFilter); // as a GET's filter
        StreamQuery query = StreamQuery.adhoc(ns, filters, api.limits());
        Optional<JsonNode> stages = ex.param("stages").map(s -> ReadParams.jsonParam(api, "stages", s));
        if (stages.isPresent()) {
            ex.permission().admitAdhocAggregation(); // stages evaluated per event are an ad-hoc pipeline
        }
        open(ex, stages.map(s -> query.withStageParam(s, api.limits())).orElse(query));
    }

    private void open(Exchange ex, StreamQuery base) {
        if (ex.jsonMode().isPresent()) {
            // events are encoded once and shared by every subscriber, in the standard output
            throw WeftException.badRequest("query parameter jsonMode: change streams answer the standard output only");
        }
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
            if (!ex.upgrade(container, (rq, rs, cb) -> new StreamSocket(hub, q, grant, senders, container.getMaxOutgoingFrames()))) {
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
}
