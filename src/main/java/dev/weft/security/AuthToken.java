package dev.weft.security;

import java.util.function.Function;

/**
 * A user's auth token as an answer announces it ({@code Auth-Token}, {@code Auth-Token-Valid-Until}).
 * Every authenticated answer of the user carries the same token until it expires, so the
 * transport encodes the two headers once per token, through {@link #encoded}.
 */
public final class AuthToken {
    public static final String HEADER = "Auth-Token";
    public static final String VALID_UNTIL_HEADER = "Auth-Token-Valid-Until";

    private final String token;
    private final String validUntil;
    private volatile Object encoded;

    AuthToken(String token, String validUntil) {
        this.token = token;
        this.validUntil = validUntil;
    }

    public String token() {
        return token;
    }

    /** The instant the token dies, ISO-8601 in UTC. */
    public String validUntil() {
        return validUntil;
    }

    /**
     * What {@code encoder} makes of this token, made on first use and then kept with it. There is
     * one transport per process: every call passes the same encoder.
     */
    @SuppressWarnings("unchecked")
    public <T> T encoded(Function<AuthToken, T> encoder) {
        Object e = encoded;
        if (e == null) {
            e = encoder.apply(this);
            encoded = e;
        }
        return (T) e;
    }
}
