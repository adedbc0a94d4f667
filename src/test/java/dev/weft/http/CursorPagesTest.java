package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Keyset cursors through the HTTP API: each full page answers {@code Weft-Next} (and a
 * {@code Link rel="next"}), {@code after=} continues exactly after the page's last document
 * while others are inserted and deleted, for the default order, an indexed sort, an unindexed
 * sort with ties and a filtered query; tokens of another query, another user, or altered ones
 * are 400 JSON.
 */
class CursorPagesTest {
    private static final Json JSON = Json.standard();
    TestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new TestServer();
        server.createCollection("db", "c");
        assertThat(server.put("/db/c/_indexes/byN", "{\"keys\":{\"n\":1}}").statusCode()).isEqualTo(201);
        StringBuilder docs = new StringBuilder("[");
        for (int i = 0; i < 120; i++) {
            docs.append(i == 0 ? "" : ",").append(doc("d" + (1000 + i), i));
        }
        HttpResponse<String> r = server.post("/db/c", docs.append("]").toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    /** n is unique-ish and indexed, m has many ties and no index, odd says which half a filter keeps. */
    private static String doc(String id, int i) {
        return "{\"_id\":\"" + id + "\",\"n\":" + (i * 7 % 131) + ",\"m\":" + (i % 5) + ",\"odd\":" + (i % 2 == 1) + "}";
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void aWalkReturnsEveryDocumentThatExistedThroughoutExactlyOnceWhileOthersAreWritten() throws Exception {
        for (String query : List.of("", "sort=" + q("{\"n\":1}"), "sort=" + q("{\"n\":-1}"), "sort=" + q("{\"m\":-1}"),
                "sort=" + q("{\"m\":1,\"n\":-1}"), "filter=" + q("{\"odd\":true}") + "&sort=" + q("{\"m\":1}"),
                "sort=" + q("{\"_id\":1}"))) {
            walkWhileWriting(query);
        }
    }

    private void walkWhileWriting(String query) throws Exception {
        boolean oddOnly = query.contains("odd");
        Set<String> throughout = new TreeSet<>();
        for (JsonNode d : JSON.parse(server.get("/db/c?pagesize=1000").body().getBytes(), "page")) {
            if (!oddOnly || d.get("odd").asBoolean()) {
                throughout.add(d.get("_id").asString());
            }
        }
        List<String> seen = new ArrayList<>();
        String next = null;
        int written = 0;
        for (int page = 0; page < 100; page++) {
            HttpResponse<String> r = server.get("/db/c?pagesize=7&" + query + (next == null ? "" : "&after=" + next));
            assertThat(r.statusCode()).as(query + ": " + r.body()).isEqualTo(200);
            JsonNode docs = JSON.parse(r.body().getBytes(), "page");
            docs.forEach(d -> seen.add(d.get("_id").asString()));
            Optional<String> token = r.headers().firstValue("Weft-Next");
            if (docs.size() < 7) {
                assertThat(token).as("no token after the last page").isEmpty();
                break;
            }
            assertThat(r.headers().firstValue("Link").orElseThrow()).startsWith("</db/c?pagesize=7").endsWith(">; rel=\"next\"")
                    .contains("after=" + token.orElseThrow());
            next = token.orElseThrow();
            // writes between pages: a new document anywhere in the order, and one that existed deleted
            int i = 500 + written++;
            assertThat(server.post("/db/c", doc("new" + query.hashCode() + "-" + i, i)).statusCode()).isEqualTo(201);
            String victim = throughout.stream().skip(written * 3L % throughout.size()).findFirst().orElseThrow();
            if (server.delete("/db/c/" + victim).statusCode() == 204) {
                throughout.remove(victim);
            }
        }
        assertThat(new HashSet<>(seen)).as(query + ": no duplicate").hasSize(seen.size());
        assertThat(seen).as(query + ": every document that existed throughout").containsAll(throughout);
    }

    @Test
    void theLinkHeaderIsTheNextPage() throws Exception {
        HttpResponse<String> first = server.get("/db/c?sort=" + q("{\"n\":1}") + "&pagesize=3&page=1");
        String link = first.headers().firstValue("Link").orElseThrow();
        String target = link.substring(1, link.indexOf('>'));
        assertThat(target).doesNotContain("page=1");
        HttpResponse<String> viaLink = server.get(target);
        HttpResponse<String> viaPage = server.get("/db/c?sort=" + q("{\"n\":1}") + "&pagesize=3&page=2");
        assertThat(viaLink.statusCode()).isEqualTo(200);
        assertThat(viaLink.body()).isEqualTo(viaPage.body());
    }

    @Test
    void aTokenOfAnotherQueryOrAnAlteredOneIs400() throws Exception {
        String sort = "sort=" + q("{\"n\":1}");
        String token = server.get("/db/c?pagesize=5&" + sort).headers().firstValue("Weft-Next").orElseThrow();
        assertThat(server.get("/db/c?pagesize=5&" + sort + "&after=" + token).statusCode()).isEqualTo(200);
        assertThat(server.get("/db/c?pagesize=50&keys=" + q("{\"n\":1}") + "&" + sort + "&after=" + token).statusCode())
                .as("page size and projection may change between pages").isEqualTo(200);
        byte[] raw = Base64.getUrlDecoder().decode(token);
        raw[raw.length / 2] ^= 1;
        String altered = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        for (String bad : List.of("/db/c?pagesize=5&sort=" + q("{\"n\":-1}") + "&after=" + token,
                "/db/c?pagesize=5&" + sort + "&filter=" + q("{\"odd\":true}") + "&after=" + token,
                "/db/c?pagesize=5&after=" + token,
                "/db/c?pagesize=5&" + sort + "&after=" + altered,
                "/db/c?pagesize=5&" + sort + "&after=not-a-token",
                "/db/c?pagesize=5&" + sort + "&after=" + "A".repeat(5000),
                "/db/c?pagesize=5&" + sort + "&after=%25%25")) {
            HttpResponse<String> r = server.get(bad);
            assertThat(r.statusCode()).as(bad + ": " + r.body()).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/json");
            assertThat(r.body()).contains("after is not a cursor token of this query");
        }
        server.createCollection("db", "other");
        assertThat(server.get("/db/other?pagesize=5&" + sort + "&after=" + token).statusCode()).isEqualTo(400);
    }

    @Test
    void aRestrictedReaderGetsOpaqueTokensBoundToItself() throws Exception {
        AuthorizationMatrixTest.users(server);
        server.createCollection("db", "posts");
        assertThat(send(server, "admin", "POST", "/weft/acl", """
                {"_id":"posts","roles":["user"],"predicate":"path-prefix('/db/posts')",
                 "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0}}""").statusCode()).isEqualTo(201);
        StringBuilder docs = new StringBuilder("[");
        for (int i = 0; i < 10; i++) {
            docs.append(i == 0 ? "" : ",").append("{\"_id\":\"p").append(i).append("\",\"owner\":\"")
                    .append(i % 2 == 0 ? "alice" : "bob").append("\",\"secret\":\"SECRET-VALUE-").append(i).append("\"}");
        }
        assertThat(server.post("/db/posts", docs.append("]").toString()).statusCode()).isEqualTo(200);
        // sorting by a field projectResponse hides is refused before any token exists
        HttpResponse<String> bySecret = send(server, "alice", "GET", "/db/posts?pagesize=2&sort=" + q("{\"secret\":1}"), null);
        assertThat(bySecret.statusCode()).isEqualTo(403);
        assertThat(bySecret.body()).contains("secret");
        List<String> seen = new ArrayList<>();
        String next = null;
        do {
            HttpResponse<String> r = send(server, "alice", "GET", "/db/posts?pagesize=2" + (next == null ? "" : "&after=" + next), null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).doesNotContain("SECRET");
            JSON.parse(r.body().getBytes(), "page").forEach(d -> seen.add(d.get("_id").asString()));
            next = r.headers().firstValue("Weft-Next").orElse(null);
            if (next != null) {
                assertThat(new String(Base64.getUrlDecoder().decode(next), java.nio.charset.StandardCharsets.ISO_8859_1))
                        .doesNotContain("SECRET"); // sealed: ids as short as "p8" could appear by chance in ciphertext
                HttpResponse<String> asBob = send(server, "bob", "GET", "/db/posts?pagesize=2&after=" + next, null);
                assertThat(asBob.statusCode()).as("alice's token is not bob's").isEqualTo(400);
            }
        } while (next != null);
        assertThat(seen).containsExactly("p8", "p6", "p4", "p2", "p0");
    }
}
