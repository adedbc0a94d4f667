package dev.weft.security;

import java.util.Set;

/** Who a request acts for: a user name and its roles. Anonymous requests have their own role. */
public record Principal(String name, Set<String> roles) {
    public static final String UNAUTHENTICATED_ROLE = "$unauthenticated";
    public static final Principal ANONYMOUS = new Principal("", Set.of(UNAUTHENTICATED_ROLE));
}
