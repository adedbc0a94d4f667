package dev.weft.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
     * A path template, its endpoint per method, and per method the {@link MemoryRead} that may
     * answer from memory before the endpoint would run. {@code paramNames[i]} is the name of
     * segment i when it is {@code {name}}, else empty; {@code takesAccessToken}: the route accepts
     * {@code ?access_token=} in place of an Authorization header; {@code open}: the route answers
     * anyone without looking at credentials or access rules, because what it serves holds no data
     * (the console's files, the API description).
     */
    record Route(String template, String[] segments, String[] paramNames, Map<String, Endpoint> methods,
                 Map<String, MemoryRead> fromMemory, boolean takesAccessToken, boolean open) {

        static Route of(String template, Map<String, Endpoint> methods, Map<String, MemoryRead> fromMemory,
                        boolean takesAccessToken) {
            return of(template, methods, fromMemory, takesAccessToken, false);
        }

        static Route of(String template, Map<String, Endpoint> methods, Map<String, MemoryRead> fromMemory,
                        boolean takesAccessToken, boolean open) {
            String[] segments = split(template);
            String[] names = new String[segments.length];
            for (int i = 0; i < segments.length; i++) {
                boolean param = segments[i].startsWith("{") && segments[i].endsWith("}");
                names[i] = param ? segments[i].substring(1, segments[i].length() - 1) : "";
            }
            return new Route(template, segments, names, methods, fromMemory, takesAccessToken, open);
        }

        /** Whether {@code parts} has this template's length and its literal segments. */
        boolean matches(String[] parts) {
            if (segments.length != parts.length) {
                return false;
            }
            for (int i = 0; i < parts.length; i++) {
                if (paramNames[i].isEmpty() && !segments[i].equals(parts[i])) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A matched route, its path parameters, and every decoded path segment (what access rules see). */
    record Match(Route route, PathParams params, List<String> segments) {}

    /**
     * The values of a matched template's {@code {name}} segments: the template's names beside the
     * request's segments, looked up by a scan (a template has at most three), so matching a
     * request builds no map.
     */
    record PathParams(String[] names, List<String> segments) {
        static final PathParams NONE = new PathParams(new String[0], List.of());

        Optional<String> get(String name) {
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(name)) {
                    return Optional.of(segments.get(i));
                }
            }
            return Optional.empty();
        }
    }

    private final List<Route> routes;

    Routes(List<Route> routes) {
        this.routes = routes;
    }

    static Routes of(Endpoints e) {
        Builder b = new Builder();
        b.route("/ping").get(e.ping());
        b.route("/metrics").get(e.metrics());
        b.route("/").get(e.databases()::list);
        // Files holding no data, so a browser can load the console before it has logged in.
        b.openRoute("/_openapi.json").get(e.openApi());
        b.openRoute("/_console").get(e.console()::index);
        b.openRoute("/_console/{file}").get(e.console()::file);
        // RESTHeart's auth token service: a database named "tokens" has no collections in the API
        b.route("/tokens/{user}").get(e.tokens()::get).delete(e.tokens()::delete);
        // RESTHeart's sessions and transactions; before /{db} and /{db}/{coll}, which would match them
        b.route("/_sessions").post(e.sessions()::create);
        b.route("/_sessions/{sid}").delete(e.sessions()::end);
        b.route("/_sessions/{sid}/_txns").get(e.sessions()::state).post(e.sessions()::start);
        b.route("/_sessions/{sid}/_txns/{txn}").patch(e.sessions()::commit).delete(e.sessions()::abort);
        // RESTHeart counts reading metadata as a management request
        b.route("/{db}/_meta").get(managed(e.databases()::meta));
        b.route("/{db}/{coll}/_meta").get(managed(e.collections()::meta));
        b.route("/{db}").get(e.databases()::listCollections).put(managed(e.databases()::put))
                .delete(managed(e.databases()::drop));
        b.route("/{db}/{coll}/_size").get(e.collections()::size);
        b.route("/{db}/{coll}/_indexes").get(e.indexes()::list);
        b.route("/{db}/{coll}/_indexes/{name}").put(managed(e.indexes()::put)).delete(managed(e.indexes()::drop));
        // Browsers cannot set headers on a WebSocket or EventSource: streams take ?access_token=.
        b.route("/{db}/{coll}/_streams", URL_TOKEN).get(e.streams()::adhoc);
        b.route("/{db}/{coll}/_streams/{name}", URL_TOKEN).get(e.streams()::named);
        b.route("/{db}/{coll}/_aggrs").post(e.aggregations()::adhoc);
        b.route("/{db}/{coll}/_aggrs/{uri}").get(e.aggregations()::named);
        b.route("/{db}/{coll}/*").patch(e.bulk()::patch).delete(e.bulk()::delete);
        b.route("/{db}/{coll}/{id}").get(e.documents()::get, e.documents()::answerFromCache).put(e.documents()::put)
                .patch(e.documents()::patch).delete(e.documents()::delete);
        b.route("/{db}/{coll}").get(e.collections()::list, e.collections()::answerFromMemory).post(e.collections()::post)
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

    /**
     * The route whose template matches {@code path}, with its decoded path parameters. Runs on
     * every request: templates are compared segment by segment without allocating, and the match
     * reads its parameters from the request's segments (no map is built).
     */
    Optional<Match> match(String path) {
        String[] parts = split(path);
        for (Route route : routes) {
            if (route.matches(parts)) {
                List<String> segments = List.of(parts);
                return Optional.of(new Match(route, new PathParams(route.paramNames, segments), segments));
            }
        }
        return Optional.empty();
    }

    /** The non-empty segments of {@code path}, each percent-decoded ({@code +} stays a plus). */
    static String[] split(String path) {
        String[] parts = new String[countSegments(path)];
        int n = 0;
        for (int start = 0; start < path.length(); ) {
            int end = path.indexOf('/', start);
            end = end < 0 ? path.length() : end;
            if (end > start) {
                String raw = path.substring(start, end);
                parts[n++] = raw.indexOf('%') < 0 && raw.indexOf('+') < 0 ? raw : decode(raw);
            }
            start = end + 1;
        }
        return parts;
    }

    private static int countSegments(String path) {
        int count = 0;
        for (int i = 0; i < path.length(); i++) {
            if (path.charAt(i) != '/' && (i == 0 || path.charAt(i - 1) == '/')) {
                count++;
            }
        }
        return count;
    }

    private static String decode(String raw) {
        try {
            return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw dev.weft.core.WeftException.badRequest("malformed path segment: " + raw);
        }
    }

    /** Marks a route that accepts {@code ?access_token=} in place of an Authorization header. */
    private static final boolean URL_TOKEN = true;

    private static final class Builder {
        final List<Route> routes = new ArrayList<>();

        RouteBuilder route(String template) {
            return route(template, false);
        }

        RouteBuilder route(String template, boolean takesAccessToken) {
            return add(template, takesAccessToken, false);
        }

        RouteBuilder openRoute(String template) {
            return add(template, false, true);
        }

        private RouteBuilder add(String template, boolean takesAccessToken, boolean open) {
            Map<String, Endpoint> methods = new LinkedHashMap<>();
            Map<String, MemoryRead> fromMemory = new LinkedHashMap<>();
            routes.add(Route.of(template, methods, fromMemory, takesAccessToken, open));
            return new RouteBuilder(methods, fromMemory);
        }
    }

    private record RouteBuilder(Map<String, Endpoint> methods, Map<String, MemoryRead> fromMemory) {
        RouteBuilder get(Endpoint e) { methods.put("GET", e); return this; }
        RouteBuilder get(Endpoint e, MemoryRead cached) { fromMemory.put("GET", cached); return get(e); }
        RouteBuilder post(Endpoint e) { methods.put("POST", e); return this; }
        RouteBuilder put(Endpoint e) { methods.put("PUT", e); return this; }
        RouteBuilder patch(Endpoint e) { methods.put("PATCH", e); return this; }
        RouteBuilder delete(Endpoint e) { methods.put("DELETE", e); return this; }
    }
}
