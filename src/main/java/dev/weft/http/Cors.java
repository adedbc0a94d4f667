package dev.weft.http;

import java.util.List;
import java.util.Optional;

/**
 * CORS for browsers calling Weft from another origin. No origin is allowed unless listed in
 * {@code cors-origins} ({@code *} allows any, without credentials). An allowed request gets
 * {@code Access-Control-Allow-Origin} and the response headers clients need exposed (ETag,
 * Location, the auth token); a preflight ({@code OPTIONS} with
 * {@code Access-Control-Request-Method}) is answered here, before authentication, since
 * browsers send it without credentials: 204 when the origin is allowed, 403 otherwise.
 */
final class Cors {
    static final String METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";
    static final String ALLOWED_HEADERS = "Authorization, Content-Type, Accept, If-Match, If-None-Match, No-Auth-Challenge";
    static final String EXPOSED_HEADERS = "ETag, Location, Auth-Token, Auth-Token-Valid-Until, X-Total-Count, X-Total-Pages, Retry-After, Weft-Next, Link";

    private final List<String> origins;
    private final boolean anyOrigin;
    private final String maxAge;

    Cors(List<String> origins, long maxAgeSeconds) {
        this.origins = List.copyOf(origins);
        this.anyOrigin = origins.contains("*");
        this.maxAge = Long.toString(maxAgeSeconds);
    }

    /**
     * Adds the CORS headers an allowed origin gets; true when the request was a preflight, which
     * is then answered and must go no further.
     */
    boolean apply(Exchange ex) {
        Optional<String> origin = ex.header("Origin");
        if (origin.isEmpty()) {
            return false;
        }
        boolean allowed = anyOrigin || origins.contains(origin.get());
        boolean preflight = ex.method().equals("OPTIONS") && ex.header("Access-Control-Request-Method").isPresent();
        if (allowed) {
            ex.setHeader("Access-Control-Allow-Origin", anyOrigin ? "*" : origin.get());
            ex.setHeader("Vary", "Origin");
            if (!anyOrigin) {
                ex.setHeader("Access-Control-Allow-Credentials", "true");
            }
            ex.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
        }
        if (!preflight) {
            return false;
        }
        if (!allowed) {
            ex.sendJson(403, Errors.body(403, "origin " + origin.get() + " is not allowed (cors-origins)"));
            return true;
        }
        ex.setHeader("Access-Control-Allow-Methods", METHODS);
        ex.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
        ex.setHeader("Access-Control-Max-Age", maxAge);
        ex.sendEmpty(204);
        return true;
    }
}
