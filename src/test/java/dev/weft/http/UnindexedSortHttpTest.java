package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.Values;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An unindexed sort's page, read split over a collection whose sort field sits at the start, in
 * the middle or at the end of its documents (its key read from either end of the stored bytes),
 * or is missing, nested under the same name, an array, a string with quotes and brackets: the
 * page is the reference comparator's, ties by {@code _id}, ascending and descending.
 */
class UnindexedSortHttpTest {
    private static final Json JSON = Json.standard();

    @Test
    void aPageIsTheReferenceOrderWhereverTheSortFieldIsInTheDocument() throws Exception {
        try (TestServer server = new TestServer("--scan-split-min-rows", "100")) {
            server.createCollection("db", "c");
            List<JsonNode> docs = new ArrayList<>();
            StringBuilder batch = new StringBuilder("[");
            for (int i = 0; i < 400; i++) {
                String doc = document(i);
                docs.add(JSON.parse(doc.getBytes(java.nio.charset.StandardCharsets.UTF_8), "doc"));
                batch.append(i == 0 ? "" : ",").append(doc);
            }
            HttpResponse<String> loaded = server.post("/db/c", batch.append("]").toString());
            assertThat(loaded.statusCode()).as(loaded.body()).isEqualTo(200);

            for (String spec : List.of("{\"k\":-1}", "{\"k\":1}", "{\"k\":-1,\"m\":1}")) {
                Sort sort = Sort.parse(spec, QueryLimits.defaults());
                Comparator<JsonNode> order = sort.comparator().thenComparing((a, b) -> Values.compare(a.get("_id"), b.get("_id")));
                List<String> expected = docs.stream().sorted(order).limit(15).map(d -> d.get("_id").toString()).toList();
                HttpResponse<String> r = server.get("/db/c?sort=" + q(spec) + "&pagesize=15");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                List<String> got = new ArrayList<>();
                JSON.parse(r.body().getBytes(java.nio.charset.StandardCharsets.UTF_8), "page")
                        .forEach(d -> got.add(d.get("_id").toString()));
                assertThat(got).as(spec).isEqualTo(expected);
            }
        }
    }

    /** Document {@code i}: its {@code k} first, in the middle, last, missing, nested, an array or a tricky string. */
    private static String document(int i) {
        String k = switch (i % 7) {
            case 0 -> "\"k\":" + (i * 7919 % 1000);
            case 1 -> "\"k\":" + (i * 7919 % 1000) / 4.0;
            case 2 -> "\"k\":\"s]\\\"{" + (i % 13) + "\\\\\"";
            case 3 -> "\"k\":[" + (i % 50) + "," + (1000 - i % 50) + "]";
            case 4 -> "\"other\":{\"k\":5000}";
            case 5 -> "\"k\":null";
            default -> "\"k\":" + (i % 2 == 0);
        };
        String middle = "\"m\":" + (i % 3) + ",\"s\":\"x\\\"},\\\"k\\\":9999\",\"a\":[{\"k\":-1},\"]\"]";
        return switch (i % 3) {
            case 0 -> "{\"_id\":" + i + "," + k + "," + middle + "}";
            case 1 -> "{\"_id\":" + i + "," + middle + "," + k + "}";
            default -> "{\"_id\":" + i + ",\"m\":" + (i % 3) + "," + k + ",\"s\":\"x\\\"},\\\"k\\\":9999\",\"a\":[{\"k\":-1},\"]\"]}";
        };
    }
}
