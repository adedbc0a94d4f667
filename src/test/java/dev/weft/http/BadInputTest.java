package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/** Every kind of bad input gets a 4xx JSON error naming the problem, and writes nothing. */
class BadInputTest {
    static TestServer weft;
    static final Json JSON = Json.standard();

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer("--max-body-bytes", "4096", "--max-nesting-depth", "16", "--max-page-size", "50");
        weft.createCollection("db", "c");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static Stream<Arguments> badRequests() {
        String deep = "{\"a\":".repeat(40) + "1" + "}".repeat(40);
        return Stream.of(
                Arguments.of("POST", "/db/c", "{\"a\":", 400, "not valid JSON"),
                Arguments.of("POST", "/db/c", "{\"$set\":{\"a\":1}}", 400, "$set"),
                Arguments.of("POST", "/db/c", deep, 400, "nested too deeply"),
                Arguments.of("POST", "/db/c", "{\"pad\":\"" + "x".repeat(5000) + "\"}", 413, "max-body-bytes"),
                Arguments.of("GET", "/db/c?filter=" + q("{\"a\":"), null, 400, "filter"),
                Arguments.of("GET", "/db/c?filter=" + q("{\"$where\":\"1\"}"), null, 400, "$where"),
                Arguments.of("GET", "/db/c?filter=" + q("{\"a\":{\"$foo\":1}}"), null, 400, "$foo"),
                Arguments.of("GET", "/db/c?filter=" + q("[1]"), null, 400, "filter"),
                Arguments.of("GET", "/db/c?filter=" + q("{\"a\":{\"$regex\":\"(a)\\\\1\"}}"), null, 400, "regex"),
                Arguments.of("GET", "/db/c?pagesize=51", null, 400, "pagesize"),
                Arguments.of("GET", "/db/c?pagesize=-1", null, 400, "pagesize"),
                Arguments.of("GET", "/db/c?pagesize=ten", null, 400, "pagesize"),
                Arguments.of("GET", "/db/c?page=0", null, 400, "page"),
                Arguments.of("GET", "/db/c?sort=" + q("{\"a\":2}"), null, 400, "sort"),
                Arguments.of("GET", "/db/c?keys=" + q("{\"a\":1,\"b\":0}"), null, 400, ""),
                Arguments.of("GET", "/db/c/zz?id_type=NUMBER", null, 400, "number"),
                Arguments.of("PATCH", "/db/c/x?wm=upsert", "{\"$inc\":{\"a\":\"one\"}}", 400, "$inc"),
                Arguments.of("PATCH", "/db/c/x?wm=upsert", "{\"$set\":{\"_id\":2}}", 400, "_id"),
                Arguments.of("PATCH", "/db/c/x?wm=upsert", "{\"$bogus\":{\"a\":1}}", 400, "$bogus"),
                Arguments.of("POST", "/db/c?wm=sometimes", "{}", 400, "wm"),
                Arguments.of("PUT", "/db/c/x?wm=upsert", "[1,2]", 400, "object"));
    }

    @ParameterizedTest(name = "{0} {1} -> {3}")
    @MethodSource("badRequests")
    void answersA4xxJsonErrorNamingTheProblem(String method, String path, String body, int status, String mentions) throws Exception {
        HttpResponse<String> r = weft.send(method, path, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        JsonNode error = JSON.parse(r.body(), "error");
        assertThat(error.get("http status code").asInt()).isEqualTo(status);
        assertThat(error.get("http status description").asString()).isNotBlank();
        assertThat(error.get("message").asString()).containsIgnoringCase(mentions);
        assertThat(r.body()).doesNotContain("Exception", "\tat ");
        assertThat(JSON.parse(weft.get("/db/c/_size").body(), "size").get("_size").asInt()).isZero();
    }

    /** A chunked body has no Content-Length: it is read up to the limit, and refused past it. */
    @Test
    void aChunkedBodyIsHeldToTheSameLimit() throws Exception {
        weft.createCollection("db", "chunked");
        HttpResponse<String> small = sendChunked("/db/chunked", "{\"a\":1}");
        assertThat(small.statusCode()).as(small.body()).isEqualTo(201);
        HttpResponse<String> large = sendChunked("/db/chunked", "{\"pad\":\"" + "x".repeat(5000) + "\"}");
        assertThat(large.statusCode()).as(large.body()).isEqualTo(413);
        assertThat(large.body()).contains("max-body-bytes");
        assertThat(JSON.parse(weft.get("/db/chunked/_size").body(), "size").get("_size").asInt()).isEqualTo(1);
    }

    private static HttpResponse<String> sendChunked(String path, String body) throws Exception {
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.net.http.HttpRequest request = weft.request(path).header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(bytes)))
                .build();
        return java.net.http.HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void unsupportedContentTypeIs415() throws Exception {
        HttpResponse<String> r = weft.send("POST", "/db/c", "a=1", "Content-Type", "text/plain");
        assertThat(r.statusCode()).isEqualTo(415);
        assertThat(r.body()).contains("\"http status code\":415");
    }

    @Test
    void unknownRouteAndMethodAreJsonErrors() throws Exception {
        assertThat(weft.get("/db/c/x/y/z").statusCode()).isEqualTo(404);
        HttpResponse<String> r = weft.send("POST", "/db/c/_size", "{}");
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.body()).contains("\"http status code\":405");
    }
}
