package dev.weft.security;

/**
 * The authorize stage as it stands before access rules exist: everything is allowed. It is the
 * only place that says so, so that replacing it switches authorization on for every route at once.
 */
public final class OpenAccess {
    private OpenAccess() {}

    public static final Authorizer AUTHORIZER = (principal, method, segments) -> Permission.ALL;
}
