package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.security.AuthToken;
import dev.weft.security.Principal;
import dev.weft.security.Security;
import dev.weft.security.acl.AclAuthorizer;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's {@code /tokens/{user}}: {@code GET} answers the caller's own auth token, the one this
 * very answer announces ({@code {"auth_token", "auth_token_valid_until"}}), and {@code DELETE}
 * revokes every token of the user (204, and this answer announces none). Nobody reads another
 * user's token, not even an admin (a token is a credential: reading it would be impersonating its
 * user); an admin may revoke another user's tokens. Anonymous is 401, anyone else 403.
 */
final class TokenEndpoints {
    private final Security security;
    private final Json json;

    TokenEndpoints(Security security, Json json) {
        this.security = security;
        this.json = json;
    }

    void get(Exchange ex) {
        String user = ex.pathParam("user");
        Principal caller = authenticated(ex);
        if (!caller.name().equals(user)) {
            throw new WeftException(403, "an auth token is shown to its own user only");
        }
        AuthToken token = ex.authToken().orElseThrow(() -> WeftException.notFound(
                "this request has no auth token: bearer JWTs get none, nor does a login while auth-cache-entries users hold one"));
        ObjectNode body = Json.NODES.objectNode().put("auth_token", token.token())
                .put("auth_token_valid_until", token.validUntil());
        ex.sendJson(200, json.bytes(body));
    }

    void delete(Exchange ex) {
        String user = ex.pathParam("user");
        Principal caller = authenticated(ex);
        boolean self = caller.name().equals(user);
        if (!self && !caller.roles().contains(AclAuthorizer.ADMIN_ROLE)) {
            throw new WeftException(403, "only its own user or an admin may revoke a user's auth tokens");
        }
        security.revokeTokens(user);
        if (self) {
            ex.dropAuthToken();
        }
        ex.sendEmpty(204);
    }

    private static Principal authenticated(Exchange ex) {
        Principal caller = ex.principal();
        if (caller.name().isEmpty()) {
            throw new WeftException(401, "authentication required");
        }
        return caller;
    }
}
