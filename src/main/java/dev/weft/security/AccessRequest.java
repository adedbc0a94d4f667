package dev.weft.security;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * What the authorize stage may look at in a request besides its principal: RESTHeart's
 * predicates and variables read the query parameters and the JSON body, not only the path.
 */
public interface AccessRequest {
    String method();

    /** The decoded path segments. */
    List<String> segments();

    /** The decoded path as requested ({@code %R}, {@code %U}). */
    default String path() {
        return "/" + String.join("/", segments());
    }

    /** The raw query string, empty when none. */
    default String queryString() {
        return "";
    }

    default Set<String> paramNames() {
        return Set.of();
    }

    default Optional<String> param(String name) {
        return Optional.empty();
    }

    /** The request body when it is JSON that parses; read at most once, shared with the endpoint. */
    default Optional<JsonNode> jsonBody() {
        return Optional.empty();
    }

    default String remoteAddress() {
        return "";
    }

    /** A request of which only the method and path are known (tests, built-ins). */
    static AccessRequest of(String method, List<String> segments) {
        return new AccessRequest() {
            @Override
            public String method() {
                return method;
            }

            @Override
            public List<String> segments() {
                return segments;
            }
        };
    }
}
