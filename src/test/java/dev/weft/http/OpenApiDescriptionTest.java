package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * /_openapi.json is docs/openapi.yaml, and it describes every route of the route table: each
 * template, each method it answers and each of its path parameters.
 */
class OpenApiDescriptionTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    private static JsonNode description() throws Exception {
        HttpResponse<String> r = weft.get("/_openapi.json", "Authorization", TestServer.ANONYMOUS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        return Json.standard().parse(r.body(), "openapi");
    }

    @Test
    void servedToAnyoneAsJson() throws Exception {
        JsonNode d = description();
        assertThat(d.get("openapi").asString()).isEqualTo("3.1.0");
        assertThat(d.at("/info/title").asString()).isEqualTo("Weft");
        // YAML read as YAML 1.2 would have it: quoted status codes stay strings
        assertThat(d.at("/paths/~1ping/get/responses").propertyNames()).containsExactly("200");
    }

    @Test
    void everyRouteMethodAndPathParameterOfTheRouteTableIsDescribed() throws Exception {
        JsonNode d = description();
        List<String> missing = new ArrayList<>();
        for (Routes.Route route : weft.server.routes().all()) {
            JsonNode path = d.get("paths").get(route.template());
            if (path == null) {
                missing.add(route.template());
                continue;
            }
            for (String method : route.methods().keySet()) {
                JsonNode operation = path.get(method.toLowerCase(Locale.ROOT));
                if (operation == null) {
                    missing.add(method + " " + route.template());
                    continue;
                }
                for (String name : route.paramNames()) {
                    if (!name.isEmpty() && !describes(d, path, operation, name)) {
                        missing.add(method + " " + route.template() + " path parameter " + name);
                    }
                }
            }
        }
        assertThat(missing).as("routes of Routes that docs/openapi.yaml does not describe").isEmpty();
    }

    /** Whether the path or the operation lists {@code name} as a path parameter (inline or by $ref). */
    private static boolean describes(JsonNode d, JsonNode path, JsonNode operation, String name) {
        for (JsonNode list : new JsonNode[] {path.get("parameters"), operation.get("parameters")}) {
            if (list == null) {
                continue;
            }
            for (JsonNode p : list) {
                JsonNode resolved = p.has("$ref") ? d.at(p.get("$ref").asString().substring(1)) : p;
                if (name.equals(resolved.path("name").asString("")) && "path".equals(resolved.path("in").asString(""))) {
                    return true;
                }
            }
        }
        return false;
    }
}
