package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.Values;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An unindexed sort read split, with the native row cut ({@code weft_sort_keep}: the rows worse
 * than each part's worst kept first key are dropped in SQLite), asked for by a user whose rule
 * has a readFilter (their own notes) and a projectResponse (no {@code secret}): the page holds
 * only their notes, in the reference order, without the hidden field; the best notes of others,
 * which rank above all of theirs, neither show nor push theirs off the page.
 */
class SortKeepHttpTest {
    private static final Json JSON = Json.standard();

    @Test
    void aRestrictedUsersSortedPageHoldsOnlyWhatTheRulesShow() throws Exception {
        try (TestServer weft = new TestServer("--parallel-scans", "1", "--scan-parts", "2", "--scan-split-min-rows", "100")) {
            AuthorizationMatrixTest.users(weft);
            send(weft, "admin", "PUT", "/db", null);
            send(weft, "admin", "PUT", "/db/notes", null);
            AuthorizationMatrixTest.rules(weft, "admin");
            Random random = new Random(7);
            List<JsonNode> alices = new ArrayList<>();
            StringBuilder batch = new StringBuilder("[");
            for (int i = 0; i < 1500; i++) {
                boolean alice = i % 3 == 0;
                // others' notes rank above every one of alice's, descending
                int n = alice ? random.nextInt(1000) : 1000 + random.nextInt(1000);
                String doc = "{\"_id\":" + i + ",\"owner\":\"" + (alice ? "alice" : "bob") + "\",\"n\":" + n
                        + ",\"m\":" + random.nextInt(4) + ",\"secret\":\"s" + i + "\"}";
                if (alice) {
                    alices.add(JSON.parse(doc.getBytes(StandardCharsets.UTF_8), "doc"));
                }
                batch.append(i == 0 ? "" : ",").append(doc);
            }
            HttpResponse<String> loaded = send(weft, "admin", "POST", "/db/notes", batch.append("]").toString());
            assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);
            for (String spec : List.of("{\"n\":-1}", "{\"n\":1}", "{\"n\":-1,\"m\":1}")) {
                for (int page = 1; page <= 3; page++) {
                    Sort sort = Sort.parse(spec, QueryLimits.defaults());
                    Comparator<JsonNode> order = sort.comparator().thenComparing((a, b) -> Values.compare(a.get("_id"), b.get("_id")));
                    List<String> expected = alices.stream().sorted(order).skip((page - 1) * 10L).limit(10)
                            .map(d -> d.get("_id").toString()).toList();
                    HttpResponse<String> r = send(weft, "alice", "GET",
                            "/db/notes?sort=" + q(spec) + "&pagesize=10&page=" + page, null);
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    assertThat(r.body()).doesNotContain("secret").doesNotContain("bob");
                    List<String> got = new ArrayList<>();
                    JSON.parse(r.body().getBytes(StandardCharsets.UTF_8), "page").forEach(d -> got.add(d.get("_id").toString()));
                    assertThat(got).as(spec + " page " + page).isEqualTo(expected);
                }
            }
        }
    }
}
