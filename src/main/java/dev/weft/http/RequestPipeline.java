package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.observe.Metrics;
import dev.weft.security.Authenticator;
import dev.weft.security.Authorizer;
import dev.weft.security.DocumentPolicy;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import dev.weft.store.DuplicateKey;
import dev.weft.store.QueryTime;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The request path as explicit stages: CORS (a preflight is answered here), parse (route and
 * method), authenticate, authorize, then the endpoint's plan-execute-respond. Every failure becomes RESTHeart's error body here and
 * nowhere else: a {@link WeftException} maps to its status, anything else is a 500 whose details
 * go to the log, never to the client. A 401 carries {@code WWW-Authenticate: Basic realm="Weft"}
 * unless the request says {@code No-Auth-Challenge} (so browsers show no login dialog). Every
 * request is observed once in {@link Metrics}.
 *
 * <p>Threads: Jetty calls {@link #handle} on the thread that parsed the request (a selector
 * thread, as this handler declares itself non-blocking, or the virtual thread that answered the
 * connection's previous request, see {@link RequestThreads}). There, a GET that memory alone can answer
 * (principal from the credential cache, permission from the compiled rules, response from the
 * {@link ResultCache}) is answered at once; handing a request to a new virtual thread costs about
 * as much CPU as Jetty's whole request handling (docs/decisions/0001). Every other request, and
 * any request the memory path has a doubt about, runs the stages on its own virtual thread,
 * where endpoints block freely. The memory path never blocks and never answers differently from
 * the stages: it serves what the stages cached for the same key (CachedReadsTest compares the
 * two), or runs the stages' own list read where the store holds the collection in memory, which
 * gives up at its first wait ({@link dev.weft.store.MemoryOnly}; HeldListsOnSelectorTest). On a cache miss it hands the route, principal and permission it found to the
 * virtual thread, so no request is routed, authenticated or authorized twice.
 *
 * <p>Deny by default: an {@link Exchange} has no permission until {@link RequestContext} is set
 * here, after the authorize stage; an endpoint reached any other way fails instead of running
 * unrestricted.
 */
final class RequestPipeline extends Handler.Abstract.NonBlocking {
    private static final Logger LOG = LoggerFactory.getLogger(RequestPipeline.class);

    /**
     * What an open route's request is granted: nothing beyond reaching its endpoint, which serves
     * files that hold no data and never touches the store.
     */
    private static final Permission OPEN_ROUTE = Permission.NOTHING;

    private final Routes routes;
    private final Authenticator authenticator;
    private final Authorizer authorizer;
    private final Metrics metrics;
    private final Cors cors;
    private final long maxBodyBytes;
    private final Executor requestThreads;
    private final DocumentPolicy.Lookup policies;
    private final DocumentPolicy.Lookup writePolicies;
    private final Json json;
    private final Api api;

    /**
     * @param writePolicies the policies of requests that may write: {@code policies} with what
     *                      only writes check (JSON Schemas), which reads need not look up
     */
    RequestPipeline(Routes routes, Authenticator authenticator, Authorizer authorizer, DocumentPolicy.Lookup policies,
                    DocumentPolicy.Lookup writePolicies, Metrics metrics, Cors cors, long maxBodyBytes,
                    Executor requestThreads, Api api) {
        this.api = api;
        this.json = api.json();
        this.writePolicies = writePolicies;
        this.requestThreads = requestThreads;
        this.policies = policies;
        this.routes = routes;
        this.authenticator = authenticator;
        this.authorizer = authorizer;
        this.metrics = metrics;
        this.cors = cors;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        MemoryPath memory = answerFromMemory(request, response, callback);
        if (!memory.answered()) {
            requestThreads.execute(() -> runStages(request, response, callback, memory.authorized()));
        }
        return true;
    }

    /**
     * How the memory path ended: answered, declined with nothing done, or declined on a cache
     * miss with the exchange it parsed, authenticated and authorized.
     */
    private record MemoryPath(boolean answered, Optional<Exchange> authorized) {
        static final MemoryPath ANSWERED = new MemoryPath(true, Optional.empty());
        static final MemoryPath DECLINED = new MemoryPath(false, Optional.empty());
    }

    /**
     * The memory-only path (see the class comment). Unless it answered, it has sent nothing and
     * hands the stages either the exchange it parsed, authenticated and authorized from memory (a
     * cache miss: the stages go on from there instead of redoing that work, and the response keeps
     * the headers authentication added), or nothing (the stages start from scratch, the response
     * as it was). It declines
     * on anything but a plain GET of a route with a {@link MemoryRead}, on credentials or rules
     * not in memory, on a CORS request and on any error (the stages then report it).
     */
    private MemoryPath answerFromMemory(Request request, Response response, Callback callback) {
        if (!request.getMethod().equals("GET") || request.getHeaders().contains("Origin")) {
            return MemoryPath.DECLINED;
        }
        long start = System.nanoTime();
        try {
            Optional<Routes.Match> match = routes.match(request.getHttpURI().getPath());
            MemoryRead read = match.map(m -> m.route().fromMemory().get("GET")).orElse(null);
            if (read == null) {
                return MemoryPath.DECLINED;
            }
            Exchange exchange = new Exchange(request, response, callback, match.get().params(), maxBodyBytes,
                    match.get().route().takesAccessToken());
            if (exchange.hasParam("sid") || exchange.hasParam("txn")) {
                return MemoryPath.DECLINED; // a session's request: its transaction's reads are never cached
            }
            // what the stages refuse before any endpoint runs, the memory path must not answer:
            // a cached page's key holds neither parameter (declines: the stages answer the 400)
            RestheartParams.refuseUnsupported(exchange);
            QueryTime.parse(exchange.param(QueryTime.PARAMETER));
            Optional<Principal> principal = authenticator.authenticateFromMemory(exchange);
            Optional<Permission> permission = principal.flatMap(p ->
                    authorizer.authorizeFromMemory(p, new ExchangeAccess(exchange, match.get().segments(), false, json)));
            if (permission.isEmpty()) {
                response.reset();
                return MemoryPath.DECLINED;
            }
            exchange.authorized(new RequestContext(match.get(), principal.get(), permission.get(), policies));
            if (!read.answerFromMemory(exchange)) {
                return new MemoryPath(false, Optional.of(exchange));
            }
            metrics.observe(match.get().route().template(), "GET", exchange.status(), System.nanoTime() - start);
            return MemoryPath.ANSWERED;
        } catch (RuntimeException e) {
            if (!response.isCommitted()) {
                response.reset();
            }
            return MemoryPath.DECLINED;
        }
    }

    /**
     * Parse, authenticate and authorize (unless the memory path did), then the endpoint. Every
     * failure is answered here and nowhere else.
     */
    private void runStages(Request request, Response response, Callback callback, Optional<Exchange> authorized) {
        long start = System.nanoTime();
        String method = request.getMethod();
        String template = "unmatched";
        Exchange exchange = authorized.orElseGet(() ->
                new Exchange(request, response, callback, Routes.PathParams.NONE, maxBodyBytes, false));
        try {
            if (authorized.isEmpty()) {
                if (cors.apply(exchange)) {
                    template = "preflight";
                    return;
                }
                Routes.Match match = parse(request, response);
                template = match.route().template();
                exchange = new Exchange(request, response, callback, match.params(), maxBodyBytes,
                        match.route().takesAccessToken());
                if (match.route().open()) {
                    exchange.authorized(new RequestContext(match, Principal.ANONYMOUS, OPEN_ROUTE, policies));
                } else {
                    Principal principal = authenticator.authenticate(exchange);
                    exchange.authorized(new RequestContext(match, principal,
                            authorizer.authorize(principal, new ExchangeAccess(exchange, match.segments(), true, json)),
                            method.equals("GET") ? policies : writePolicies));
                }
            }
            Routes.Route route = exchange.context().match().route();
            template = route.template();
            RestheartParams.refuseUnsupported(exchange);
            Exchange routed = exchange;
            Endpoint endpoint = route.methods().get(method);
            QueryTime.limitedTo(QueryTime.parse(routed.param(QueryTime.PARAMETER)),
                    () -> SessionEndpoints.handle(routed, api.sessions(), api.store(), endpoint));
        } catch (WeftException e) {
            answerError(exchange, e.status(), e.getMessage());
        } catch (Throwable e) {
            LOG.error("{} {} failed", method, request.getHttpURI().getPath(), e); // no query: it may hold an access_token
            answerError(exchange, 500, "internal error; the server log has the details");
        } finally {
            metrics.observe(template, method, exchange.answered() ? exchange.status() : 500, System.nanoTime() - start);
        }
    }

    /** The route and an endpoint for the method: 404 when no route matches, 405 when it lacks the method. */
    private Routes.Match parse(Request request, Response response) {
        Optional<Routes.Match> match = routes.match(request.getHttpURI().getPath());
        if (match.isEmpty()) {
            throw WeftException.notFound("no resource at " + request.getHttpURI().getPath());
        }
        Routes.Route route = match.get().route();
        if (!route.methods().containsKey(request.getMethod())) {
            response.getHeaders().put("Allow", String.join(", ", route.methods().keySet()));
            throw new WeftException(405, request.getMethod() + " is not allowed on " + route.template());
        }
        return match.get();
    }

    /**
     * A duplicate key's 409 names the clashing {@code _id}, key or index only to a client that may
     * read every document in full: to one with a read filter or a response projection it would
     * tell what a document it cannot see holds.
     */
    static String conflictMessage(Exchange exchange, String message) {
        boolean seesEverything = exchange.authorizedContext()
                .map(c -> c.permission().seesEverything()).orElse(false);
        return seesEverything ? message : DuplicateKey.withoutValues(message);
    }

    private static void answerError(Exchange exchange, int status, String message) {
        if (!exchange.answered()) {
            exchange.discardUnreadBody();
            if (status == 401 && exchange.header("No-Auth-Challenge").isEmpty()) {
                exchange.setHeader("WWW-Authenticate", "Basic realm=\"Weft\"");
            }
            exchange.sendJson(status, Errors.body(status, status == 409 ? conflictMessage(exchange, message) : message));
        } else {
            // Part of the answer is already on the wire: all that is left is to cut the connection.
            exchange.fail(new WeftException(status, message));
        }
    }
}
