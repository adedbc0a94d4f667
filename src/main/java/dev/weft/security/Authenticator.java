package dev.weft.security;

import java.util.Optional;

/**
 * The authenticate stage of the request path: turns a request's credentials into a
 * {@link Principal}, or {@link Principal#ANONYMOUS} when it carries none (the authorize stage
 * decides what anonymous may do). Bad credentials throw a 401 {@link dev.weft.core.WeftException};
 * a source that failed too often gets 429, a saturated hashing pool 503.
 */
@FunctionalInterface
public interface Authenticator {
    Principal authenticate(AuthRequest request);

    /**
     * The principal when memory alone can tell it, without blocking and without side effects
     * beyond response headers (and, when a remembered credential is due for it, starting its
     * verification on a thread of its own): no credentials, or credentials remembered by a cache.
     * Empty means "ask {@link #authenticate}", never "refused".
     */
    default Optional<Principal> authenticateFromMemory(AuthRequest request) {
        return Optional.empty();
    }
}
