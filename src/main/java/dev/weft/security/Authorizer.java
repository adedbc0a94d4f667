package dev.weft.security;

/**
 * The authorize stage of the request path: decides whether {@code principal} may call
 * {@code method} on {@code path}; throws a 401 (anonymous) or 403 {@link dev.weft.core.WeftException}
 * when not.
 */
@FunctionalInterface
public interface Authorizer {
    void authorize(Principal principal, String method, String path);
}
