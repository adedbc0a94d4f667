package dev.weft.security;

import java.util.function.Function;

/**
 * The authenticate stage of the request path: turns a request's credentials (read through
 * {@code header}) into a {@link Principal}, or {@link Principal#ANONYMOUS} when it carries none.
 * Bad credentials throw a 401 {@link dev.weft.core.WeftException}.
 */
@FunctionalInterface
public interface Authenticator {
    Principal authenticate(Function<String, String> header);
}
