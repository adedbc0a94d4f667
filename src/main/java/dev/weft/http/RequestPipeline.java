package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.observe.Metrics;
import dev.weft.security.Authenticator;
import dev.weft.security.Authorizer;
import java.util.Map;
import java.util.Optional;
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
 * <p>Jetty calls this handler on a virtual thread (it is a blocking handler and the thread pool
 * has a virtual-thread executor), so endpoints block freely.
 */
final class RequestPipeline extends Handler.Abstract {
    private static final Logger LOG = LoggerFactory.getLogger(RequestPipeline.class);

    private final Routes routes;
    private final Authenticator authenticator;
    private final Authorizer authorizer;
    private final Metrics metrics;
    private final Cors cors;
    private final long maxBodyBytes;

    RequestPipeline(Routes routes, Authenticator authenticator, Authorizer authorizer, Metrics metrics, Cors cors,
                    long maxBodyBytes) {
        this.routes = routes;
        this.authenticator = authenticator;
        this.authorizer = authorizer;
        this.metrics = metrics;
        this.cors = cors;
        this.maxBodyBytes = maxBodyBytes;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        String method = request.getMethod();
        String template = "unmatched";
        Exchange exchange = new Exchange(request, response, callback, Map.of(), maxBodyBytes);
        try {
            if (cors.apply(exchange)) {
                template = "preflight";
                return true;
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
            exchange.principal(authenticator.authenticate(exchange));
            exchange.permission(authorizer.authorize(exchange.principal(), method, match.get().segments()));
            endpoint.handle(exchange);
        } catch (WeftException e) {
            answerError(exchange, e.status(), e.getMessage());
        } catch (Throwable e) {
            LOG.error("{} {} failed", method, request.getHttpURI().getPathQuery(), e);
            answerError(exchange, 500, "internal error; the server log has the details");
        } finally {
            metrics.observe(template, method, exchange.answered() ? exchange.status() : 500, System.nanoTime() - start);
        }
        return true;
    }

    private static void answerError(Exchange exchange, int status, String message) {
        if (!exchange.answered()) {
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
