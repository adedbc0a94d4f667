package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * POST and PATCH take {@code application/x-www-form-urlencoded} and {@code multipart/form-data}
 * bodies as RESTHeart does: each field relaxed JSON, a bare word a string, anything else 400 with
 * nothing stored.
 */
class FormBodiesTest {
    static TestServer weft;
    static final Json JSON = Json.standard();
    static final String BOUNDARY = "----weftBoundary7MA4YWxk";

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "forms");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static HttpResponse<String> send(String method, String path, String contentType, String body) throws Exception {
        return weft.client.send(weft.request(path).header("Content-Type", contentType)
                .method(method, HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> urlencoded(String method, String path, String body) throws Exception {
        return send(method, path, "application/x-www-form-urlencoded", body);
    }

    static String multipartBody(String... nameValues) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < nameValues.length; i += 2) {
            b.append("--").append(BOUNDARY).append("\r\nContent-Disposition: form-data; name=\"").append(nameValues[i])
                    .append("\"\r\n\r\n").append(nameValues[i + 1]).append("\r\n");
        }
        return b.append("--").append(BOUNDARY).append("--\r\n").toString();
    }

    static JsonNode stored(String id) throws Exception {
        HttpResponse<String> r = weft.get("/db/forms/" + id + "?keys=" + TestServer.q("{\"_etag\":0}"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.parse(r.body(), "document");
    }

    @Test
    void aUrlencodedFormIsADocumentOfRelaxedJsonFields() throws Exception {
        HttpResponse<String> r = urlencoded("POST", "/db/forms",
                "_id=u1&n=1&s=%221%22&word=alice&o=%7Ba%3A1%7D&t=true&list=%5B1%2C%27x%27%5D&d=2.5");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(stored("u1").toString())
                .isEqualTo("{\"_id\":\"u1\",\"n\":1,\"s\":\"1\",\"word\":\"alice\",\"o\":{\"a\":1},\"t\":true,\"list\":[1,\"x\"],\"d\":2.5}");
        assertThat(urlencoded("PATCH", "/db/forms/u1", "n=2&extra=%22a+b%22").statusCode()).isEqualTo(200);
        assertThat(stored("u1").get("n").asInt()).isEqualTo(2);
        assertThat(stored("u1").get("extra").asString()).isEqualTo("a b");
    }

    @Test
    void aMultipartFormIsADocumentOfRelaxedJsonFields() throws Exception {
        String contentType = "multipart/form-data; boundary=" + BOUNDARY;
        HttpResponse<String> r = send("POST", "/db/forms", contentType,
                multipartBody("_id", "m1", "n", "1", "s", "\"1\"", "word", "bob", "o", "{'a': [1, 2]}"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(stored("m1").toString()).isEqualTo("{\"_id\":\"m1\",\"n\":1,\"s\":\"1\",\"word\":\"bob\",\"o\":{\"a\":[1,2]}}");
        assertThat(send("PATCH", "/db/forms/m1", contentType, multipartBody("$inc", "{n: 5}")).statusCode()).isEqualTo(200);
        assertThat(stored("m1").get("n").asInt()).isEqualTo(6);
    }

    @Test
    void aFieldThatIsNotJsonIs400AndStoresNothing() throws Exception {
        assertRefused(urlencoded("POST", "/db/forms", "_id=bad1&x=hello+world"), "form field x");
        assertRefused(urlencoded("POST", "/db/forms", "_id=bad2&x=%7Ba%3A"), "form field x");
        assertRefused(urlencoded("POST", "/db/forms", "_id=bad3&x=1&x=2"), "given twice");
        assertRefused(urlencoded("POST", "/db/forms", "_id=bad4&x=%zz"), "x-www-form-urlencoded");
        assertRefused(send("POST", "/db/forms", "multipart/form-data; boundary=" + BOUNDARY,
                multipartBody("_id", "bad5", "x", "not json")), "form field x");
        assertRefused(send("POST", "/db/forms", "multipart/form-data", "garbage"), "boundary");
        assertRefused(send("POST", "/db/forms", "multipart/form-data; boundary=" + BOUNDARY,
                "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\n\r\nx\r\n--"
                        + BOUNDARY + "--\r\n"), "is a file");
        assertThat(weft.get("/db/forms/_size?filter=" + TestServer.q("{\"_id\":{\"$regex\":\"^bad\"}}")).body())
                .isEqualTo("{\"_size\":0}");
        // forms are for POST and PATCH only, as RESTHeart
        assertThat(urlencoded("PUT", "/db/forms/put1", "n=1").statusCode()).isEqualTo(415);
    }

    @Test
    void aFormWritesNoFurtherThanTheUsersRuleAllows() throws Exception {
        AuthorizationMatrixTest.users(weft);
        weft.put("/db/notes", null);
        AuthorizationMatrixTest.rules(weft, "admin");
        String alice = AuthorizationMatrixTest.authorization("alice");
        HttpResponse<String> forged = weft.client.send(weft.request("/db/notes").setHeader("Authorization", alice)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("_id=f1&text=x&owner=bob")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(forged.statusCode()).as(forged.body()).isEqualTo(403);
        assertThat(weft.get("/db/notes/f1").statusCode()).isEqualTo(404);
        HttpResponse<String> own = weft.client.send(weft.request("/db/notes").setHeader("Authorization", alice)
                .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                .POST(HttpRequest.BodyPublishers.ofString(multipartBody("_id", "f2", "text", "x"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(own.statusCode()).as(own.body()).isEqualTo(201);
        assertThat(weft.get("/db/notes/f2").body()).contains("\"owner\":\"alice\"");
        HttpResponse<String> patched = weft.client.send(weft.request("/db/notes/f2").setHeader("Authorization", alice)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .method("PATCH", HttpRequest.BodyPublishers.ofString("owner=bob")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(403);
        assertThat(weft.get("/db/notes/f2").body()).contains("\"owner\":\"alice\"");
    }

    static void assertRefused(HttpResponse<String> r, String mentions) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).startsWith("{\"http status code\":400,").contains(mentions);
    }
}
