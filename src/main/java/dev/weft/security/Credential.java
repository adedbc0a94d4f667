package dev.weft.security;

/**
 * What a request authenticated with, kept by a long-lived request (a change stream) so that it
 * can be checked again while the request stays open: a password stops holding when the user is
 * deleted or the password changes, a token (auth token, JWT) also at its expiry. The roles come
 * from the users collection as it is now (a JWT's from the token), so a removed role is seen.
 */
public interface Credential {
    /** No credential: the anonymous principal, for as long as the request lasts. */
    Credential ANONYMOUS = fixed(Principal.ANONYMOUS);

    /**
     * The principal this credential stands for now; a 401 {@link dev.weft.core.WeftException}
     * saying why when it no longer holds. May read the users collection (blocking).
     */
    Principal current();

    /** The wall-clock time (epoch ms) at which the credential stops holding by itself; {@link Long#MAX_VALUE} for never. */
    default long expiresAtMs() {
        return Long.MAX_VALUE;
    }

    /** A credential that stands for {@code principal} as long as the request lasts (tests, open access). */
    static Credential fixed(Principal principal) {
        return () -> principal;
    }
}
