package dev.weft.security;

import java.util.List;
import java.util.Optional;

/**
 * The authorize stage of the request path: decides whether {@code principal} may make
 * {@code request}, and with which restrictions. Throws a 401 (anonymous) or 403
 * {@link dev.weft.core.WeftException} when not ({@link Permission#denied}).
 */
@FunctionalInterface
public interface Authorizer {
    Permission authorize(Principal principal, AccessRequest request);

    /** A request known only by its method and decoded path segments. */
    default Permission authorize(Principal principal, String method, List<String> segments) {
        return authorize(principal, AccessRequest.of(method, segments));
    }

    /**
     * The permission when the rules in memory are current, without blocking; empty when they
     * must be (re)loaded first or the request is refused (then {@link #authorize} says why).
     */
    default Optional<Permission> authorizeFromMemory(Principal principal, AccessRequest request) {
        return Optional.empty();
    }

    /**
     * A number that grows whenever the rules change, on any node (open change streams are
     * authorized again then); constant for fixed rules.
     */
    default long rulesVersion() {
        return 0;
    }

    /** What the authorizer requires of documents in its own collections (the rules must compile). */
    default DocumentPolicy.Lookup policies() {
        return DocumentPolicy.Lookup.NONE;
    }
}
