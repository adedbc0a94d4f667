package dev.weft.security;

import dev.weft.core.Json;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Who a request acts for: a user name, its roles, and its account's other properties (the user
 * document without its password, or a JWT's claims), which rules read as {@code @user.<name>}.
 * Anonymous requests have their own role.
 */
public record Principal(String name, Set<String> roles, JsonNode account) {
    public static final String UNAUTHENTICATED_ROLE = "$unauthenticated";
    public static final Principal ANONYMOUS = new Principal("", Set.of(UNAUTHENTICATED_ROLE));

    public Principal(String name, Set<String> roles) {
        this(name, roles, Json.NODES.objectNode());
    }
}
