package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.store.sql.SqlStore;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The planner's key counts are remembered (plan-probe-cache-ms, here long enough to outlive the
 * test), yet a query is always planned for the collection and indexes as they are: an index
 * created or dropped, or a collection dropped and made again, is counted afresh; and counts gone
 * stale under writes cost time only, never a document.
 */
class PlanProbeCacheHttpTest {
    private static final String REGEX = q("{\"url\":{\"$regex\":\".*pach.*\"}}");
    private static final String TRIGRAM = "{\"keys\":{\"url\":\"trigram\"}}";
    private TestServer weft;

    @BeforeEach
    void start() throws Exception {
        weft = new TestServer("--plan-probe-cache-ms", "3600000", "--result-cache-entries", "0"); // every query planned
    }

    @AfterEach
    void stop() throws Exception {
        weft.close();
    }

    /** {@code n} documents {@code from} on, those whose number is below {@code matching} holding "pach". */
    private void insert(String coll, int from, int n, int matching) throws Exception {
        StringBuilder docs = new StringBuilder("[");
        for (int i = from; i < from + n; i++) {
            docs.append(i > from ? "," : "").append("{\"_id\":").append(i).append(",\"url\":\"https://")
                    .append(i < matching ? "apache" : "example").append(".org/").append(i).append("\"}");
        }
        HttpResponse<String> r = weft.post("/db/" + coll, docs.append("]").toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private List<Integer> matches(String coll) throws Exception {
        HttpResponse<String> r = weft.get("/db/" + coll + "?pagesize=1000&sort=" + q("{\"_id\":1}") + "&filter=" + REGEX);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<Integer> ids = new ArrayList<>();
        for (JsonNode d : new Json(64).parse(r.body(), "answer")) {
            ids.add(d.get("_id").asInt());
        }
        return ids;
    }

    /** Collection c: 200 documents, 2 holding "pach", a trigram index on url that a regex query was planned to read. */
    private void indexedCollectionPlannedByTrigrams() throws Exception {
        weft.createCollection("db", "c");
        insert("c", 0, 200, 2);
        assertThat(weft.put("/db/c/_indexes/url", TRIGRAM).statusCode()).isEqualTo(201);
        assertThat(matches("c")).containsExactly(0, 1);
        assertThat(plan()).startsWith("TRIGRAMS url");
    }

    private String plan() {
        return ((SqlStore) weft.store).lastPlan().description();
    }

    @Test
    void anIndexCreatedOrDroppedAfterAQueryIsPlannedAtOnce() throws Exception {
        weft.createCollection("db", "c");
        insert("c", 0, 200, 2);
        assertThat(matches("c")).containsExactly(0, 1);
        assertThat(plan()).doesNotStartWith("TRIGRAMS");
        assertThat(weft.put("/db/c/_indexes/url", TRIGRAM).statusCode()).isEqualTo(201);
        assertThat(matches("c")).containsExactly(0, 1);
        assertThat(plan()).startsWith("TRIGRAMS url");
        assertThat(weft.delete("/db/c/_indexes/url").statusCode()).isEqualTo(204);
        assertThat(matches("c")).containsExactly(0, 1);
        assertThat(plan()).doesNotStartWith("TRIGRAMS");
    }

    @Test
    void aCollectionDroppedAndMadeAgainIsCountedAfresh() throws Exception {
        indexedCollectionPlannedByTrigrams();
        String etag = weft.put("/db/c", "{}").headers().firstValue("ETag").orElseThrow();
        assertThat(weft.delete("/db/c", "If-Match", etag).statusCode()).isEqualTo(204);
        // the same names, but 10 documents: too few for a lookup of 2 candidates to beat the scan
        weft.createCollection("db", "c");
        insert("c", 0, 10, 2);
        assertThat(weft.put("/db/c/_indexes/url", TRIGRAM).statusCode()).isEqualTo(201);
        assertThat(matches("c")).containsExactly(0, 1);
        assertThat(plan()).doesNotStartWith("TRIGRAMS");
    }

    @Test
    void countsGoneStaleUnderWritesStillFindEveryMatch() throws Exception {
        indexedCollectionPlannedByTrigrams();
        insert("c", 200, 300, 500); // every new document holds "pach": the remembered counts say 2
        List<Integer> all = new ArrayList<>(List.of(0, 1));
        for (int i = 200; i < 500; i++) {
            all.add(i);
        }
        assertThat(matches("c")).containsExactlyElementsOf(all);
    }
}
