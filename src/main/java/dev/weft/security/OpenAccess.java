package dev.weft.security;

/**
 * The security stages as they stand before authentication exists: everyone is anonymous and
 * everything is allowed. It is the only place that says so, so that replacing it switches
 * security on for every route at once.
 */
public final class OpenAccess {
    private OpenAccess() {}

    public static final Authenticator AUTHENTICATOR = header -> Principal.ANONYMOUS;
    public static final Authorizer AUTHORIZER = (principal, method, path) -> { };
}
