package dev.weft.security;

/**
 * The authenticate stage of the request path: turns a request's credentials into a
 * {@link Principal}, or {@link Principal#ANONYMOUS} when it carries none (the authorize stage
 * decides what anonymous may do). Bad credentials throw a 401 {@link dev.weft.core.WeftException};
 * a source that failed too often gets 429, a saturated hashing pool 503.
 */
@FunctionalInterface
public interface Authenticator {
    Principal authenticate(AuthRequest request);
}
