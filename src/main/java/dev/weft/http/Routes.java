package dev.weft.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The route table: every path template Weft answers and which endpoint serves each method. It is
 * the one place to read to know the API's surface. Templates are tried in order, so literal
 * segments ({@code _size}, {@code _indexes}, {@code *}) come before the {@code {id}} they would
 * otherwise match.
 */
final class Routes {
    /**
     * A path template, its endpoint per method, and per method the {@link CachedRead} that may
     * answer from memory before the endpoint would run.
     */
    record Route(String template, String[] segments, Map<String, Endpoint> methods, Map<String, CachedRead> fromCache) {}

    /** A matched route, its path parameters, and every decoded path segment (what access rules see). */
    record Match(Route route, Map<String, String> params, List<String> segments) {}

    private final List<Route> routes;

    private Routes(List<Route> routes) {
        this.routes = routes;
    }

    static Routes of(Endpoints e) {
        Builder b = new Builder();
        b.route("/ping").get(e.ping());
        b.route("/metrics").get(e.metrics());
        b.route("/").get(e.databases()::list);
        b.route("/{db}").get(e.databases()::listCollections).put(managed(e.databases()::put))
                .delete(managed(e.databases()::drop));
        b.route("/{db}/{coll}/_size").get(e.collections()::size);
        b.route("/{db}/{coll}/_indexes").get(e.indexes()::list);
        b.route("/{db}/{coll}/_indexes/{name}").put(managed(e.indexes()::put)).delete(managed(e.indexes()::drop));
        b.route("/{db}/{coll}/_streams").get(e.streams()::adhoc);
        b.route("/{db}/{coll}/_streams/{name}").get(e.streams()::named);
        b.route("/{db}/{coll}/*").patch(e.bulk()::patch).delete(e.bulk()::delete);
        b.route("/{db}/{coll}/{id}").get(e.documents()::get, e.documents()::answerFromCache).put(e.documents()::put)
                .patch(e.documents()::patch).delete(e.documents()::delete);
        b.route("/{db}/{coll}").get(e.collections()::list, e.collections()::answerFromCache).post(e.collections()::post)
                .put(managed(e.collections()::put)).delete(managed(e.collections()::drop));
        return new Routes(b.routes);
    }

    /**
     * Marks a management request (creating or dropping a database, a collection or an index):
     * it needs a permission that allows management, which an access rule grants only with
     * {@code allowManagementRequests}.
     */
    private static Endpoint managed(Endpoint endpoint) {
        return ex -> {
            ex.permission().admitManagement();
            endpoint.handle(ex);
        };
    }

    /** Every route, in the order they are tried. */
    List<Route> all() {
        return routes;
    }

    /** The route whose template matches {@code path}, with its decoded path parameters. */
    Optional<Match> match(String path) {
        String[] parts = split(path);
        for (Route route : routes) {
            if (route.segments.length != parts.length) {
                continue;
            }
            Map<String, String> params = new HashMap<>(4);
            boolean ok = true;
            for (int i = 0; i < parts.length && ok; i++) {
                String seg = route.segments[i];
                if (seg.startsWith("{")) {
                    params.put(seg.substring(1, seg.length() - 1), parts[i]);
                } else {
                    ok = seg.equals(parts[i]);
                }
            }
            if (ok) {
                return Optional.of(new Match(route, params, List.of(parts)));
            }
        }
        return Optional.empty();
    }

    private static String[] split(String path) {
        List<String> parts = new ArrayList<>(4);
        for (String raw : path.split("/")) {
            if (!raw.isEmpty()) {
                parts.add(raw.indexOf('%') < 0 && raw.indexOf('+') < 0 ? raw : decode(raw));
            }
        }
        return parts.toArray(String[]::new);
    }

    private static String decode(String raw) {
        try {
            return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw dev.weft.core.WeftException.badRequest("malformed path segment: " + raw);
        }
    }

    private static final class Builder {
        final List<Route> routes = new ArrayList<>();

        RouteBuilder route(String template) {
            Map<String, Endpoint> methods = new LinkedHashMap<>();
            Map<String, CachedRead> fromCache = new LinkedHashMap<>();
            routes.add(new Route(template, split(template), methods, fromCache));
            return new RouteBuilder(methods, fromCache);
        }
    }

    private record RouteBuilder(Map<String, Endpoint> methods, Map<String, CachedRead> fromCache) {
        RouteBuilder get(Endpoint e) { methods.put("GET", e); return this; }
        RouteBuilder get(Endpoint e, CachedRead cached) { fromCache.put("GET", cached); return get(e); }
        RouteBuilder post(Endpoint e) { methods.put("POST", e); return this; }
        RouteBuilder put(Endpoint e) { methods.put("PUT", e); return this; }
        RouteBuilder patch(Endpoint e) { methods.put("PATCH", e); return this; }
        RouteBuilder delete(Endpoint e) { methods.put("DELETE", e); return this; }
    }
}
