package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Deep pages through the HTTP API, with a small position index (blocks of 16, from skip 20): a
 * page at any depth equals the same slice of the whole ordered collection, before and after
 * inserts, deletes and sort-key changes in the middle, for the default order, {@code _id}
 * ascending and an indexed field both ways; and the pages did start from the index
 * ({@code weft_deep_pages_total}), also after the writes.
 */
class DeepPagesTest {
    private static final Json JSON = Json.standard();
    private static final Pattern STARTED = Pattern.compile("(?m)^weft_deep_pages_total (\\d+)");
    private static final List<String> ORDERS = List.of("", "&sort=" + q("{\"_id\":1}"), "&sort=" + q("{\"n\":1}"),
            "&sort=" + q("{\"n\":-1}"));
    TestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new TestServer("--position-index-min-skip", "20", "--position-index-block", "16", "--result-cache-entries", "0");
        server.createCollection("db", "c");
        assertThat(server.put("/db/c/_indexes/byN", "{\"keys\":{\"n\":1}}").statusCode()).isEqualTo(201);
        StringBuilder docs = new StringBuilder("[");
        for (int i = 0; i < 600; i++) {
            docs.append(i == 0 ? "" : ",").append("{\"_id\":\"d").append(10000 + i * 3).append("\",\"n\":").append(i * 37 % 211).append("}");
        }
        assertThat(server.post("/db/c", docs.append("]").toString()).statusCode()).isEqualTo(200);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void deepPagesEqualTheReferenceBeforeAndAfterWritesInTheMiddle() throws Exception {
        for (String order : ORDERS) {
            warm(order);
        }
        long before = started();
        assertPagesMatch();
        assertThat(started()).as("pages started from the index").isGreaterThan(before);

        for (int i = 0; i < 40; i++) {
            assertThat(server.post("/db/c", "{\"_id\":\"d" + (10000 + i * 7) + "x" + "\",\"n\":" + (i * 13 % 211) + "}").statusCode())
                    .isEqualTo(201);
            assertThat(server.delete("/db/c/d" + (10000 + (200 + i * 5) * 3)).statusCode()).isEqualTo(204);
            assertThat(server.patch("/db/c/d" + (10000 + (100 + i) * 3), "{\"$set\":{\"n\":" + (i % 7) + "}}").statusCode())
                    .isEqualTo(200);
        }
        assertPagesMatch();
        long afterWrites = started();
        for (long deadline = System.currentTimeMillis() + 15_000; started() == afterWrites && System.currentTimeMillis() < deadline; ) {
            // PostgreSQL: the writes reach the index once the event log reader has read them
            Thread.sleep(100);
            assertPagesMatch();
        }
        assertThat(started()).as("the index, kept current by the writes, is used again").isGreaterThan(afterWrites);
    }

    /**
     * A reader whose rule has a readFilter gets deep pages of its own documents only: the rule
     * makes the query filtered, so the position index (counted over every document, and built
     * here by the admin's pages) never serves it.
     */
    @Test
    void aRestrictedReadersDeepPagesHoldOnlyItsOwnDocuments() throws Exception {
        AuthorizationMatrixTest.users(server);
        server.createCollection("db", "owned");
        HttpResponse<String> rule = AuthorizationMatrixTest.send(server, "admin", "POST", "/weft/acl", """
                {"_id":"owned-read","roles":["user"],"predicate":"path-prefix('/db/owned') and method(GET)",
                 "readFilter":{"owner":"@user._id"}}""");
        assertThat(rule.statusCode()).as(rule.body()).isEqualTo(201);
        StringBuilder docs = new StringBuilder("[");
        List<String> alices = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String id = "o" + (1000 + i);
            String owner = i % 3 == 0 ? "alice" : "bob";
            docs.append(i == 0 ? "" : ",").append("{\"_id\":\"").append(id).append("\",\"owner\":\"").append(owner).append("\"}");
            if (owner.equals("alice")) {
                alices.add(0, id); // the default order is _id descending
            }
        }
        assertThat(server.post("/db/owned", docs.append("]").toString()).statusCode()).isEqualTo(200);
        long built = started();
        for (long deadline = System.currentTimeMillis() + 20_000; started() == built && System.currentTimeMillis() < deadline; ) {
            server.get("/db/owned?page=10&pagesize=7");
            Thread.sleep(50);
        }
        assertThat(started()).as("the admin's deep pages start from the position index").isGreaterThan(built);

        long before = started();
        for (int page : new int[] {5, 8, 13, 20, 21}) {
            HttpResponse<String> r = AuthorizationMatrixTest.send(server, "alice", "GET", "/db/owned?page=" + page + "&pagesize=5", null);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            int skip = (page - 1) * 5;
            assertThat(ids(r.body())).as("alice's page %d", page)
                    .isEqualTo(alices.subList(Math.min(skip, alices.size()), Math.min(skip + 5, alices.size())));
        }
        assertThat(started()).as("no page of alice's started from the index counted over bob's documents too").isEqualTo(before);
    }

    /** Asks deep pages of {@code order} until its position index is built (they are exact meanwhile too). */
    private void warm(String order) throws Exception {
        long before = started();
        for (long deadline = System.currentTimeMillis() + 20_000; System.currentTimeMillis() < deadline; ) {
            page(order, 10, 7);
            if (started() > before) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no position index for order " + order);
    }

    private void assertPagesMatch() throws Exception {
        for (String order : ORDERS) {
            List<String> all = ids(server.get("/db/c?pagesize=1000" + order).body());
            for (int pageSize : new int[] {3, 5, 7}) {
                for (int page : new int[] {8, 9, 13, 40, 77, 85, 86, 120, 200, 201, 300}) {
                    long skip = (long) (page - 1) * pageSize;
                    List<String> expected = all.subList((int) Math.min(skip, all.size()), (int) Math.min(skip + pageSize, all.size()));
                    assertThat(page(order, page, pageSize)).as("order %s page %d of %d", order, page, pageSize)
                            .isEqualTo(expected);
                }
            }
        }
    }

    private List<String> page(String order, int page, int pageSize) throws Exception {
        HttpResponse<String> r = server.get("/db/c?page=" + page + "&pagesize=" + pageSize + order);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return ids(r.body());
    }

    private static List<String> ids(String body) {
        List<String> ids = new ArrayList<>();
        for (JsonNode d : JSON.parse(body.getBytes(), "page")) {
            ids.add(d.get("_id").asString());
        }
        return ids;
    }

    private long started() throws Exception {
        Matcher m = STARTED.matcher(server.get("/metrics").body());
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }
}
