package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.store.Store;
import dev.weft.store.postgres.PostgresStore;
import dev.weft.store.sqlite.SqliteStore;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Split scans are bounded so that large queries do not starve small ones (both stores): with
 * {@code parallel-scans 1}, of two large counts running at once one is split and the other reads
 * alone, the split's parts run on connections of their own, and a small read answers meanwhile.
 */
class ParallelScansHttpTest {
    private static final int DOCS = 6_000;

    /** Thirty unanchored patterns with no literal, against every document's 1 KB text: a second or more over {@link #DOCS}. */
    private static String slowFilter() {
        StringBuilder or = new StringBuilder("{\"$or\":[");
        for (int i = 0; i < 30; i++) {
            or.append(i == 0 ? "" : ",").append("{\"s\":{\"$regex\":\"[^a-j]{").append(i + 1).append("}\"}}");
        }
        return or.append("]}").toString();
    }

    private static long splitScans(Store store) {
        return store instanceof SqliteStore s ? s.splitScans() : ((PostgresStore) store).splitScans();
    }

    @Test
    void aSmallReadAnswersWhileLargeSplitScansRun() throws Exception {
        try (TestServer server = new TestServer("--query-timeout-ms", "600000", "--parallel-scans", "1", "--scan-parts", "2", "--sqlite-readers", "3",
                "--scan-split-min-rows", "1000")) {
            server.createCollection("db", "big");
            String text = "abcdefghij".repeat(100);
            for (int from = 0; from < DOCS; from += 2_000) {
                StringBuilder batch = new StringBuilder("[");
                for (int i = from; i < from + 2_000; i++) {
                    batch.append(i == from ? "" : ",").append("{\"_id\":").append(i).append(",\"s\":\"").append(text)
                            .append("\"}");
                }
                HttpResponse<String> r = server.post("/db/big", batch.append("]").toString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
            server.createCollection("db", "small");
            assertThat(server.post("/db/small", "{\"_id\":\"a\",\"v\":1}").statusCode()).isEqualTo(201);

            ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
            List<Future<HttpResponse<String>>> large = new ArrayList<>();
            long[] largeAnswered = new long[2];
            for (int i = 0; i < 2; i++) {
                int n = i;
                large.add(clients.submit(() -> {
                    HttpResponse<String> r = server.get("/db/big/_size?filter=" + q(slowFilter()));
                    largeAnswered[n] = System.nanoTime();
                    return r;
                }));
            }
            Thread.sleep(300); // both large counts are reading
            HttpResponse<String> small = server.get("/db/small/a?keys=" + q("{\"v\":1}"));
            long smallAnswered = System.nanoTime();

            assertThat(small.statusCode()).isEqualTo(200);
            assertThat(small.body()).isEqualTo("{\"_id\":\"a\",\"v\":1}");
            for (Future<HttpResponse<String>> f : large) {
                assertThat(f.get().statusCode()).as(f.get().body()).isEqualTo(200);
                assertThat(f.get().body()).isEqualTo("{\"_size\":0}");
            }
            assertThat(smallAnswered).as("the small read answered while both large counts ran")
                    .isLessThan(Math.min(largeAnswered[0], largeAnswered[1]));
            clients.close();
            // one slot: one of the two was split, the other read alone
            assertThat(splitScans(server.store)).isEqualTo(1);
        }
    }

    /**
     * A restricted user's reads split like anyone's, and each part is still narrowed by the rule:
     * counts, pages, an unindexed sort and a {@code $group} read in parts see only the user's own
     * documents, and never the field its {@code projectResponse} hides.
     */
    @Test
    void aRestrictedUsersSplitScansSeeOnlyWhatItsRuleAllows() throws Exception {
        try (TestServer server = new TestServer("--parallel-scans", "1", "--scan-parts", "2", "--scan-split-min-rows", "100")) {
            server.createCollection("db", "notes");
            StringBuilder batch = new StringBuilder("[");
            for (int i = 0; i < 1_000; i++) {
                String owner = i % 10 == 0 ? "alice" : "bob";
                batch.append(i == 0 ? "" : ",").append("{\"_id\":").append(i).append(",\"owner\":\"").append(owner)
                        .append("\",\"n\":").append(i % 7).append(",\"secret\":\"").append(owner).append("-secret\"}");
            }
            assertThat(server.post("/db/notes", batch.append("]").toString()).statusCode()).isEqualTo(200);
            AuthorizationMatrixTest.users(server);
            send(server, "admin", "POST", "/weft/acl", """
                    [{"_id":"notes-own","roles":["user"],"priority":10,"predicate":"path-prefix('/db/notes')",
                      "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0},"allowAdhocAggregations":true}]""");
            long before = splitScans(server.store);

            HttpResponse<String> size = send(server, "alice", "GET", "/db/notes/_size", null);
            assertThat(size.body()).isEqualTo("{\"_size\":100}");
            HttpResponse<String> page = send(server, "alice", "GET", "/db/notes?pagesize=5&filter=" + q("{\"n\":{\"$gte\":0}}"), null);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("\"_id\":990,", "\"_id\":950,").doesNotContain("bob").doesNotContain("secret");
            HttpResponse<String> sorted = send(server, "alice", "GET", "/db/notes?pagesize=3&sort=" + q("{\"n\":-1,\"_id\":1}"), null);
            assertThat(sorted.statusCode()).isEqualTo(200);
            assertThat(sorted.body()).contains("\"_id\":20,", "\"_id\":90,", "\"_id\":160,")
                    .doesNotContain("bob").doesNotContain("secret");
            HttpResponse<String> hidden = send(server, "alice", "POST", "/db/notes/_aggrs",
                    "[{\"$group\":{\"_id\":\"$owner\",\"secrets\":{\"$addToSet\":\"$secret\"}}}]");
            assertThat(hidden.statusCode()).as(hidden.body()).isEqualTo(403);
            HttpResponse<String> groups = send(server, "alice", "POST", "/db/notes/_aggrs",
                    "[{\"$group\":{\"_id\":\"$owner\",\"count\":{\"$sum\":1},\"ns\":{\"$addToSet\":\"$n\"}}}]");
            assertThat(groups.statusCode()).as(groups.body()).isEqualTo(200);
            assertThat(groups.body()).startsWith("[{\"_id\":\"alice\",\"count\":100,\"ns\":[").doesNotContain("bob");
            HttpResponse<String> counted = send(server, "alice", "POST", "/db/notes/_aggrs", "[{\"$count\":\"n\"}]");
            assertThat(counted.body()).isEqualTo("[{\"n\":100}]");
            assertThat(splitScans(server.store) - before).as("the restricted reads were split").isGreaterThanOrEqualTo(3);
        }
    }

    /**
     * Ids spread unevenly over their span ({@code "user" + n}: the interpolated ranges hold one to
     * two decimal digits' worth each, many none) are read in shrinking runs of ranges: every
     * document exactly once, so counts, an unindexed sort and a {@code $group} whose accumulators
     * depend on the input order ({@code $first $last $push}) answer exactly what an unsplit read does.
     */
    @Test
    void splitReadsInRunsOfUnevenRangesAnswerWhatOneReaderDoes() throws Exception {
        try (TestServer split = new TestServer("--parallel-scans", "1", "--scan-parts", "2", "--scan-split-min-rows", "100");
             TestServer alone = new TestServer("--parallel-scans", "0")) {
            for (TestServer server : List.of(split, alone)) {
                server.createCollection("db", "users");
                StringBuilder batch = new StringBuilder("[");
                for (int i = 0; i < 3_000; i++) {
                    batch.append(i == 0 ? "" : ",").append("{\"_id\":\"user").append(i).append("\",\"g\":\"g")
                            .append(i % 7).append("\",\"v\":").append(i % 13).append('}');
                }
                HttpResponse<String> r = server.post("/db/users", batch.append("]").toString());
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
            long before = splitScans(split.store);
            List<String> reads = List.of(
                    "/db/users/_size",
                    "/db/users/_size?filter=" + q("{\"v\":{\"$gte\":12}}"),
                    // each server stamps its own _etag
                    "/db/users?pagesize=9&sort=" + q("{\"v\":-1,\"g\":1}") + "&keys=" + q("{\"_etag\":0}"));
            for (String read : reads) {
                HttpResponse<String> answer = split.get(read);
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
                assertThat(answer.body()).as(read).isEqualTo(alone.get(read).body());
            }
            assertThat(split.get("/db/users/_size").body()).isEqualTo("{\"_size\":3000}");
            String pipeline = "[{\"$group\":{\"_id\":\"$g\",\"n\":{\"$sum\":1},\"s\":{\"$sum\":\"$v\"},"
                    + "\"first\":{\"$first\":\"$_id\"},\"last\":{\"$last\":\"$_id\"},\"ids\":{\"$push\":\"$_id\"}}}]";
            HttpResponse<String> groups = split.post("/db/users/_aggrs", pipeline);
            assertThat(groups.statusCode()).as(groups.body()).isEqualTo(200);
            assertThat(groups.body()).isEqualTo(alone.post("/db/users/_aggrs", pipeline).body())
                    .startsWith("[{\"_id\":\"g0\",\"n\":429,");
            // the filtered count, the sort and the $group (a count of everything is SQL's own count)
            assertThat(splitScans(split.store) - before).as("the reads were split").isGreaterThanOrEqualTo(3);
        }
    }
}
