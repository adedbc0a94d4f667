package dev.weft.security.acl;

import dev.weft.security.AccessRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/** Requests for predicate and variable tests: method, path, query parameters and a JSON body. */
final class TestRequests {
    private TestRequests() {}

    static AccessRequest of(String method, String path, List<String> segments, Map<String, String> params,
                            Optional<JsonNode> body) {
        return new AccessRequest() {
            public String method() {
                return method;
            }

            public List<String> segments() {
                return segments;
            }

            public String path() {
                return path;
            }

            public Set<String> paramNames() {
                return params.keySet();
            }

            public Optional<String> param(String name) {
                return Optional.ofNullable(params.get(name));
            }

            public Optional<JsonNode> jsonBody() {
                return body;
            }
        };
    }
}
