package dev.weft.security;

import java.util.Optional;

/** What the authenticate stage sees of a request, and the response headers it may add. */
public interface AuthRequest {
    Optional<String> header(String name);

    /** The peer's IP address, as the listener saw it (no proxy headers are trusted). */
    String remoteAddress();

    /** Adds a header to the response, whatever its status ({@code Auth-Token}, {@code Retry-After}). */
    void setResponseHeader(String name, String value);

    /** Adds the headers announcing {@code token}: {@code Auth-Token} and {@code Auth-Token-Valid-Until}. */
    default void setAuthToken(AuthToken token) {
        setResponseHeader(AuthToken.HEADER, token.token());
        setResponseHeader(AuthToken.VALID_UNTIL_HEADER, token.validUntil());
    }

    /**
     * The {@code access_token} query parameter, only on routes that take one (stream routes: a
     * browser cannot set headers on a WebSocket upgrade); empty on every other route, so that
     * tokens stay out of the URLs of ordinary requests.
     */
    default Optional<String> accessToken() {
        return Optional.empty();
    }

    /** Told by the authenticate stage what the request authenticated with (kept by change streams). */
    default void authenticatedWith(Credential credential) {
    }
}
