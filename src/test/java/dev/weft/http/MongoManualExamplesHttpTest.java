package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * MongoDB manual examples (their input documents, operation and documented result) run through
 * the HTTP API: each test loads the example's documents into its own collection.
 */
class MongoManualExamplesHttpTest {
    static TestServer weft;
    static final Json JSON = Json.standard();

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.put("/db", null);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static JsonNode json(HttpResponse<String> r) {
        return JSON.parse(r.body(), "response");
    }

    /** A fresh collection holding {@code documents} (a JSON array). */
    static String collection(String name, String documents) throws Exception {
        assertThat(weft.put("/db/" + name, null).statusCode()).isEqualTo(201);
        assertThat(weft.post("/db/" + name, documents).statusCode()).isEqualTo(200);
        return "/db/" + name;
    }

    /** The documents of a GET, without their _etag, as compact JSON. */
    static String found(String pathAndQuery) throws Exception {
        HttpResponse<String> r = weft.get(pathAndQuery);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode docs = json(r);
        if (docs.isArray()) {
            docs.forEach(d -> ((tools.jackson.databind.node.ObjectNode) d).remove("_etag"));
        } else {
            ((tools.jackson.databind.node.ObjectNode) docs).remove("_etag");
        }
        return docs.toString();
    }

    static String error(HttpResponse<String> r) {
        return json(r).get("message").asString();
    }

    // $inc manual: { _id: 1, sku: "abc123", quantity: 10, metrics: { orders: 2, ratings: 3.5 } }
    @Test
    void incByNumericIdKeepsTheStoredId() throws Exception {
        String c = collection("inc", "[{\"_id\":1,\"sku\":\"abc123\",\"quantity\":10,\"metrics\":{\"orders\":2,\"ratings\":3.5}}]");
        HttpResponse<String> r = weft.patch(c + "/1?id_type=NUMBER", "{\"$inc\":{\"quantity\":-2,\"metrics.orders\":1}}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(found(c + "/1?id_type=NUMBER"))
                .isEqualTo("{\"_id\":1,\"sku\":\"abc123\",\"quantity\":8,\"metrics\":{\"orders\":3,\"ratings\":3.5}}");
        assertThat(weft.patch(c + "/1?id_type=NUMBER&wm=upsert", "{\"$inc\":{\"quantity\":1}}").statusCode()).isEqualTo(200);
        assertThat(weft.patch(c + "/1?id_type=NUMBER", "{\"$set\":{\"_id\":1.0}}").statusCode()).isEqualTo(200);
        assertThat(found(c + "/1?id_type=NUMBER")).startsWith("{\"_id\":1,").contains("\"quantity\":9");
        HttpResponse<String> changed = weft.patch(c + "/1?id_type=NUMBER", "{\"$set\":{\"_id\":2}}");
        assertThat(changed.statusCode()).isEqualTo(400);
    }

    /** The _ids of a GET's documents, in order. */
    static String ids(String pathAndQuery) throws Exception {
        HttpResponse<String> r = weft.get(pathAndQuery);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return json(r).valueStream().map(d -> d.get("_id").toString()).toList().toString();
    }

    // Sort manual ("Comparison/Sort Order"): an empty array sorts before null and missing fields.
    @Test
    void emptyArraySortsBelowNullAndMissing() throws Exception {
        String c = collection("sortempty", "[{\"_id\":1,\"a\":[1]},{\"_id\":2,\"a\":null},{\"_id\":3,\"a\":[]},"
                + "{\"_id\":4},{\"_id\":5,\"a\":0}]");
        assertThat(ids(c + "?sort=" + q("{\"a\":1}"))).isEqualTo("[3, 2, 4, 5, 1]");
        assertThat(ids(c + "?sort=" + q("{\"a\":-1}"))).isEqualTo("[1, 5, 2, 4, 3]");
    }
}
