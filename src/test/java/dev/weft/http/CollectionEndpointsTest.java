package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class CollectionEndpointsTest {
    static TestServer weft;
    static final Json JSON = Json.standard();

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "people");
        StringBuilder bulk = new StringBuilder("[");
        for (int i = 0; i < 30; i++) {
            if (i > 0) {
                bulk.append(',');
            }
            bulk.append("{\"_id\":").append(i).append(",\"age\":").append(20 + i % 10)
                    .append(",\"name\":\"p").append(i).append("\",\"tags\":[\"t").append(i % 3).append("\"]")
                    .append(",\"addr\":{\"city\":\"").append(i % 2 == 0 ? "Rome" : "Oslo").append("\"}}");
        }
        HttpResponse<String> r = weft.post("/db/people", bulk.append(']').toString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).get("inserted").asInt()).isEqualTo(30);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static JsonNode json(HttpResponse<String> r) {
        return JSON.parse(r.body(), "response");
    }

    static List<Integer> ids(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<Integer> ids = new ArrayList<>();
        json(r).forEach(d -> ids.add(d.get("_id").asInt()));
        return ids;
    }

    @Test
    void listsNewestIdFirstByDefaultWithPages() throws Exception {
        assertThat(ids(weft.get("/db/people?pagesize=3"))).containsExactly(29, 28, 27);
        assertThat(ids(weft.get("/db/people?pagesize=3&page=2"))).containsExactly(26, 25, 24);
        assertThat(ids(weft.get("/db/people"))).hasSize(30);
        assertThat(ids(weft.get("/db/people?pagesize=10&page=4"))).isEmpty();
    }

    @Test
    void filtersSortsAndProjects() throws Exception {
        assertThat(ids(weft.get("/db/people?filter=" + q("{\"age\":{\"$gte\":28}}") + "&sort=" + q("{\"_id\":1}"))))
                .containsExactly(8, 9, 18, 19, 28, 29);
        // repeated filters are ANDed
        assertThat(ids(weft.get("/db/people?filter=" + q("{\"age\":{\"$gte\":28}}") + "&filter=" + q("{\"addr.city\":\"Rome\"}")
                + "&sort=_id"))).containsExactly(8, 18, 28);
        assertThat(ids(weft.get("/db/people?filter=" + q("{\"tags\":\"t1\",\"_id\":{\"$lt\":10}}") + "&sort=-_id")))
                .containsExactly(7, 4, 1);
        assertThat(ids(weft.get("/db/people?filter=" + q("{\"name\":{\"$regex\":\"^P2\",\"$options\":\"i\"}}") + "&sort=%2B_id")))
                .containsExactly(2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29);
        HttpResponse<String> sorted = weft.get("/db/people?sort=" + q("{\"age\":-1,\"_id\":1}") + "&pagesize=4");
        assertThat(ids(sorted)).containsExactly(9, 19, 29, 8);
        JsonNode projected = json(weft.get("/db/people?keys=" + q("{\"name\":1}") + "&pagesize=1"));
        assertThat(projected.get(0).propertyNames()).containsExactlyInAnyOrder("_id", "name");
        JsonNode excluded = json(weft.get("/db/people?keys=" + q("{\"addr\":0,\"tags\":0}") + "&pagesize=1"));
        assertThat(excluded.get(0).has("addr")).isFalse();
        assertThat(excluded.get(0).has("age")).isTrue();
    }

    @Test
    void countsAndSize() throws Exception {
        HttpResponse<String> r = weft.get("/db/people?count&pagesize=7&filter=" + q("{\"addr.city\":\"Oslo\"}"));
        assertThat(r.headers().firstValue("X-Total-Count")).contains("15");
        assertThat(r.headers().firstValue("X-Total-Pages")).contains("3");
        assertThat(json(weft.get("/db/people/_size")).get("_size").asInt()).isEqualTo(30);
        assertThat(json(weft.get("/db/people/_size?filter=" + q("{\"age\":20}"))).get("_size").asInt()).isEqualTo(3);
    }

    @Test
    void hintForcesAnIndexAndUnknownHintIsRefused() throws Exception {
        assertThat(weft.put("/db/people/_indexes/by_age", "{\"keys\":{\"age\":1}}").statusCode()).isEqualTo(201);
        List<Integer> hinted = ids(weft.get("/db/people?hint=by_age&filter=" + q("{\"age\":25}") + "&sort=_id"));
        List<Integer> byKeys = ids(weft.get("/db/people?hint=" + q("{\"age\":1}") + "&filter=" + q("{\"age\":25}") + "&sort=_id"));
        assertThat(hinted).containsExactly(5, 15, 25).isEqualTo(byKeys);
        assertThat(weft.get("/db/people?hint=nope").statusCode()).isEqualTo(400);
    }

    @Test
    void aWriteIsSeenByTheNextRead() throws Exception {
        weft.createCollection("db", "cache");
        String url = "/db/cache?filter=" + q("{\"k\":1}");
        assertThat(json(weft.get(url)).size()).isZero();
        weft.post("/db/cache", "{\"k\":1}");
        assertThat(json(weft.get(url)).size()).isEqualTo(1);
        weft.send("DELETE", "/db/cache/*?filter=" + q("{}"), null);
        assertThat(json(weft.get(url)).size()).isZero();
    }

    @Test
    void missingCollectionIs404() throws Exception {
        assertThat(weft.get("/db/nothere").statusCode()).isEqualTo(404);
        assertThat(weft.post("/db/nothere", "{}").statusCode()).isEqualTo(404);
        assertThat(weft.get("/nodb/nothere").statusCode()).isEqualTo(404);
    }
}
