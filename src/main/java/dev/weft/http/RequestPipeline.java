package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.observe.Metrics;
import dev.weft.security.Authenticator;
import dev.weft.security.Authorizer;
import java.util.Optional;
import java.util.concurrent.Executor;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
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
 * thread; this handler declares itself non-blocking). There, a GET that memory alone can answer
 * (principal from the credential cache, permission from the compiled rules, response from the
 * {@link ResultCache}) is answered at once; handing a request to a new virtual thread costs about
 * as much CPU as Jetty's whole request handling (docs/decisions/0001). Every other request, and
 * any request the memory path has a doubt about, runs the stages on its own virtual thread,
 * where endpoints block freely. The memory path never blocks and never answers differently from
 * the stages: it only serves what the stages cached for the same key.
 */
final class RequestPipeline extends Handler.Abstract.NonBlocking {
    private static final Logger LOG = LoggerFactory.getLogger(RequestPipeline.class);

    private final Routes routes;
    private final Authenticator authenticator;
    private final Authorizer authorizer;
    private final Metrics metrics;
    private final Cors cors;
    private final long maxBodyBytes;
    private final Executor requestThreads;

    RequestPipeline(Routes routes, Authenticator authenticator, Authorizer authorizer, Metrics metrics, Cors cors,
                    long maxBodyBytes, Executor requestThreads) {
        this.requestThreads = requestThreads;
        this.routes = routes;
        this.authenticator = authenticator;
        this.authorizer = authorizer;
        this.metrics = metrics;
        this.cors = cors;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (!answerFromMemory(request, response, callback)) {
            requestThreads.execute(() -> runStages(request, response, callback));
        }
        return true;
    }

    /**
     * The memory-only path (see the class comment). Declines, having sent nothing and leaving the
     * response as it found it (authentication may have added its headers), on anything but a plain
     * GET of a route with a {@link CachedRead}, on credentials or rules not in memory, on a CORS
     * request, on a cache miss, and on any error (the stages then report it).
     */
    private boolean answerFromMemory(Request request, Response response, Callback callback) {
        if (!request.getMethod().equals("GET") || request.getHeaders().contains("Origin")) {
            return false;
        }
        long start = System.nanoTime();
        try {
            Optional<Routes.Match> match = routes.match(request.getHttpURI().getPath());
            CachedRead read = match.map(m -> m.route().fromCache().get("GET")).orElse(null);
            if (read == null) {
                return false;
            }
            Exchange exchange = new Exchange(request, response, callback, match.get().params(), maxBodyBytes);
            if (!answerFromMemory(exchange, match.get(), read)) {
                response.reset();
                return false;
            }
            metrics.observe(match.get().route().template(), "GET", exchange.status(), System.nanoTime() - start);
            return true;
        } catch (RuntimeException e) {
            if (!response.isCommitted()) {
                response.reset();
            }
            return false;
        }
    }

    private boolean answerFromMemory(Exchange exchange, Routes.Match match, CachedRead read) {
        Optional<Principal> principal = authenticator.authenticateFromMemory(exchange);
        if (principal.isEmpty()) {
            return false;
        }
        Optional<Permission> permission = authorizer.authorizeFromMemory(principal.get(), "GET", match.segments());
        if (permission.isEmpty()) {
            return false;
        }
        exchange.principal(principal.get());
        exchange.permission(permission.get());
        return read.answerFromCache(exchange);
    }

    private void runStages(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        String method = request.getMethod();
        String template = "unmatched";
        Exchange exchange = new Exchange(request, response, callback, Routes.PathParams.NONE, maxBodyBytes);
        try {
            if (cors.apply(exchange)) {
                template = "preflight";
                return;
            }
            Optional<Routes.Match> match = routes.match(request.getHttpURI().getPath());
            if (match.isEmpty()) {
                throw WeftException.notFound("no resource at " + request.getHttpURI().getPath());
            }
            template = match.get().route().template();
            Endpoint endpoint = match.get().route().methods().get(method);
            if (endpoint == null) {
                response.getHeaders().put("Allow", String.join(", ", match.get().route().methods().keySet()));
                throw new WeftException(405, method + " is not allowed on " + template);
            }
            exchange = new Exchange(request, response, callback, match.get().params(), maxBodyBytes);
            if (match.get().route().takesAccessToken()) {
                exchange.takeAccessToken();
            }
            exchange.principal(authenticator.authenticate(exchange));
            exchange.segments(match.get().segments());
            exchange.permission(authorizer.authorize(exchange.principal(), method, match.get().segments()));
            endpoint.handle(exchange);
        } catch (WeftException e) {
            answerError(exchange, e.status(), e.getMessage());
        } catch (Throwable e) {
            LOG.error("{} {} failed", method, request.getHttpURI().getPath(), e); // no query: it may hold an access_token
            answerError(exchange, 500, "internal error; the server log has the details");
        } finally {
            metrics.observe(template, method, exchange.answered() ? exchange.status() : 500, System.nanoTime() - start);
        }
    }

    private static void answerError(Exchange exchange, int status, String message) {
        if (!exchange.answered()) {
            exchange.discardUnreadBody();
            if (status == 401 && exchange.header("No-Auth-Challenge").isEmpty()) {
                exchange.setHeader("WWW-Authenticate", "Basic realm=\"Weft\"");
            }
            exchange.sendJson(status, Errors.body(status, message));
        } else {
            // Part of the answer is already on the wire: all that is left is to cut the connection.
            exchange.fail(new WeftException(status, message));
        }
    }
}
