package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A query's time ({@code query-timeout-ms}, lowered by {@code maxTimeMS}) and an unindexed
 * sort's memory ({@code max-sort-bytes}) are bounded, on both stores: past the time the query
 * stops with MongoDB's wording, its read slot is free again, and other requests go on.
 */
class QueryLimitsTest {
    private static final int DOCS = 10_000;
    /** No literal any match must hold, so no text prefilter can skip a document: every one is evaluated. */
    private static final String NO_MATCH = "{\"s\":{\"$regex\":\"[^a-j]{3}\"}}";

    /**
     * A filter that tests a hundred unanchored patterns against every document's 1 KB text: seconds
     * over {@link #DOCS}. The patterns hold no literal, so the text prefilter passes every document.
     */
    private static String slowFilter() {
        StringBuilder or = new StringBuilder("{\"$or\":[");
        for (int i = 0; i < 100; i++) {
            or.append(i == 0 ? "" : ",").append("{\"s\":{\"$regex\":\"[^a-j]{").append(i + 1).append("}\"}}");
        }
        return or.append("]}").toString();
    }

    private static void seed(TestServer server, int docs) throws Exception {
        server.createCollection("db", "c");
        String text = "abcdefghij".repeat(100);
        for (int from = 0; from < docs; from += 2_000) {
            StringBuilder batch = new StringBuilder("[");
            for (int i = from; i < Math.min(docs, from + 2_000); i++) {
                batch.append(i == from ? "" : ",").append("{\"_id\":").append(i).append(",\"n\":").append(docs - i)
                        .append(",\"s\":\"").append(text).append("\"}");
            }
            HttpResponse<String> r = server.post("/db/c", batch.append("]").toString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
    }

    private static void assertTimedOut(HttpResponse<String> r, String limit) {
        assertThat(r.statusCode()).as(r.request().uri() + ": " + r.body()).isEqualTo(503);
        assertThat(r.body()).startsWith("{\"http status code\":503,").contains(
                "\"message\":\"operation exceeded time limit: the query ran longer than " + limit);
    }

    @Test
    void maxTimeMSStopsASlowQueryAndFreesItsReadSlot() throws Exception {
        try (TestServer server = new TestServer()) {
            seed(server, DOCS);
            String filter = "filter=" + q(NO_MATCH);
            for (int i = 0; i < 12; i++) { // more than there are read connections
                assertTimedOut(server.get("/db/c?" + filter + "&maxTimeMS=1"), "1 ms (its maxTimeMS)");
            }
            assertTimedOut(server.get("/db/c/_size?" + filter + "&maxTimeMS=1"), "1 ms (its maxTimeMS)");
            assertTimedOut(server.get("/db/c?count&pagesize=0&" + filter + "&maxTimeMS=1"), "1 ms (its maxTimeMS)");
            assertTimedOut(server.get("/db/c?" + filter + "&maxTimeMS=1", "Accept", "application/x-ndjson"),
                    "1 ms (its maxTimeMS)");

            HttpResponse<String> unlimited = server.get("/db/c?" + filter + "&maxTimeMS=0");
            assertThat(unlimited.statusCode()).as(unlimited.body()).isEqualTo(200);
            assertThat(unlimited.body()).isEqualTo("[]");
            HttpResponse<String> size = server.get("/db/c/_size?filter=" + q("{\"n\":{\"$gt\":0}}"));
            assertThat(size.body()).isEqualTo("{\"_size\":" + DOCS + "}");
            assertThat(server.get("/db/c/7?id_type=NUMBER").statusCode()).isEqualTo(200);

            for (String bad : List.of("-1", "abc", "1.5")) {
                HttpResponse<String> r = server.get("/db/c?" + filter + "&maxTimeMS=" + bad);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
                assertThat(r.body()).contains("parameter maxTimeMS must be a whole number of milliseconds, 0 or more");
            }
        }
    }

    @Test
    void theSettingStopsEveryQueryAndMaxTimeMSCannotRaiseIt() throws Exception {
        try (TestServer server = new TestServer("--query-timeout-ms", "300", "--result-cache-entries", "0")) {
            seed(server, DOCS);
            String slow = "/db/c?filter=" + q(slowFilter());
            List<Future<HttpResponse<String>>> slowOnes = new ArrayList<>();
            long started = System.nanoTime();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < 6; i++) {
                    slowOnes.add(pool.submit(() -> server.get(slow + "&maxTimeMS=600000")));
                }
                Thread.sleep(100);
                long smallStarted = System.nanoTime();
                HttpResponse<String> small = server.get("/db/c/7?id_type=NUMBER");
                long smallMs = (System.nanoTime() - smallStarted) / 1_000_000;
                assertThat(small.statusCode()).isEqualTo(200);
                // at worst it waits for the slow ones holding the read slots to reach their 300 ms limit,
                // never for the 600 s they asked for (the bound is loose: the test machine may be loaded)
                assertThat(smallMs).as("a small read beside slow queries").isLessThan(10_000);
                for (Future<HttpResponse<String>> r : slowOnes) {
                    assertTimedOut(r.get(), "300 ms (the setting query-timeout-ms)");
                }
            }
            assertThat((System.nanoTime() - started) / 1_000_000).as("six slow queries stopped").isLessThan(30_000);
            assertTimedOut(server.get("/db/c/_size?filter=" + q(slowFilter())), "300 ms (the setting query-timeout-ms)");
            HttpResponse<String> fast = server.get("/db/c?pagesize=2&keys=" + q("{\"n\":1}"));
            assertThat(fast.body()).isEqualTo("[{\"_id\":9999,\"n\":1},{\"_id\":9998,\"n\":2}]");
        }
    }

    @Test
    void aBulkWriteWhoseSearchRunsPastItsTimeChangesNothing() throws Exception {
        try (TestServer server = new TestServer()) {
            seed(server, DOCS);
            String filter = "filter=" + q(NO_MATCH);
            HttpResponse<String> patch = server.patch("/db/c/*?" + filter + "&maxTimeMS=1", "{\"$set\":{\"touched\":true}}");
            assertTimedOut(patch, "1 ms (its maxTimeMS)");
            HttpResponse<String> delete = server.delete("/db/c/*?" + filter + "&maxTimeMS=1");
            assertTimedOut(delete, "1 ms (its maxTimeMS)");
            HttpResponse<String> slowDelete = server.delete("/db/c/*?filter=" + q("{\"n\":{\"$gt\":0}}") + "&maxTimeMS=1");
            assertTimedOut(slowDelete, "1 ms (its maxTimeMS)");
            assertThat(server.get("/db/c/_size").body()).isEqualTo("{\"_size\":" + DOCS + "}");
            assertThat(server.get("/db/c/_size?filter=" + q("{\"touched\":true}")).body()).isEqualTo("{\"_size\":0}");

            HttpResponse<String> within = server.patch("/db/c/*?filter=" + q("{\"n\":{\"$lte\":3}}"),
                    "{\"$set\":{\"touched\":true}}");
            assertThat(within.body()).isEqualTo("{\"inserted\":0,\"deleted\":0,\"modified\":3,\"matched\":3}");
        }
    }

    @Test
    void anUnindexedSortPastMaxSortBytesIs400() throws Exception {
        try (TestServer server = new TestServer("--max-sort-bytes", "4096")) {
            seed(server, 20);
            String byN = "/db/c?sort=" + q("{\"n\":1}") + "&keys=" + q("{\"n\":1}");
            HttpResponse<String> deep = server.get(byN + "&pagesize=2&page=3");
            assertThat(deep.statusCode()).as(deep.body()).isEqualTo(400);
            assertThat(deep.body()).contains("this sort is served by no index, so its first skip+limit = 6 matches are kept"
                    + " in memory, and they hold more than max-sort-bytes (4096 bytes)");
            HttpResponse<String> first = server.get(byN + "&pagesize=2");
            assertThat(first.body()).isEqualTo("[{\"_id\":19,\"n\":1},{\"_id\":18,\"n\":2}]");
            HttpResponse<String> byId = server.get("/db/c?pagesize=10&keys=" + q("{\"n\":1}"));
            assertThat(byId.statusCode()).as("a sort an index serves keeps nothing: " + byId.body()).isEqualTo(200);
        }
    }
}
