package dev.weft.http;

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
            for (int i = 0; i < 2; i++) {
                large.add(clients.submit(() -> server.get("/db/big/_size?filter=" + q(slowFilter()))));
            }
            Thread.sleep(300); // both large counts are reading
            HttpResponse<String> small = server.get("/db/small/a?keys=" + q("{\"v\":1}"));
            boolean largeStillRunning = large.stream().noneMatch(Future::isDone);

            assertThat(small.statusCode()).isEqualTo(200);
            assertThat(small.body()).isEqualTo("{\"_id\":\"a\",\"v\":1}");
            assertThat(largeStillRunning).as("the small read answered while both large counts ran").isTrue();
            for (Future<HttpResponse<String>> f : large) {
                assertThat(f.get().statusCode()).isEqualTo(200);
                assertThat(f.get().body()).isEqualTo("{\"_size\":0}");
            }
            clients.close();
            // one slot: one of the two was split, the other read alone
            assertThat(splitScans(server.store)).isEqualTo(1);
        }
    }
}
