package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.store.TtlReaper;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * TTL indexes ({@code expireAfterSeconds}): the reaper deletes the documents whose indexed date is
 * older than the limit, through the normal write path (delete events), at most {@code ttl-batch}
 * per pass; bad options are 400.
 */
class TtlIndexTest {
    TestServer weft;

    @AfterEach
    void stop() throws Exception {
        weft.close();
    }

    void seed() throws Exception {
        weft.createCollection("db", "sessions");
        HttpResponse<String> index = weft.put("/db/sessions/_indexes/expiry",
                "{\"keys\":{\"at\":1},\"ops\":{\"expireAfterSeconds\":60}}");
        assertThat(index.statusCode()).as(index.body()).isEqualTo(201);
        long now = System.currentTimeMillis();
        String old = "{\"$date\":" + (now - 3_600_000) + "}";
        String recent = "{\"$date\":" + now + "}";
        HttpResponse<String> r = weft.post("/db/sessions", "["
                + "{\"_id\":\"old1\",\"at\":" + old + "},{\"_id\":\"old2\",\"at\":" + old + "},"
                + "{\"_id\":\"oldIso\",\"at\":{\"$date\":\"2020-01-01T00:00:00Z\"}},"
                + "{\"_id\":\"oldInArray\",\"at\":[" + recent + "," + old + "]},"
                + "{\"_id\":\"recent\",\"at\":" + recent + "},{\"_id\":\"notADate\",\"at\":\"2020-01-01\"},"
                + "{\"_id\":\"number\",\"at\":1},{\"_id\":\"missing\"}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    List<String> ids() throws Exception {
        JsonNode docs = Json.standard().parse(weft.get("/db/sessions?sort=" + TestServer.q("{\"_id\":1}")
                + "&keys=" + TestServer.q("{\"_id\":1}")).body(), "list");
        List<String> out = new ArrayList<>();
        docs.forEach(d -> out.add(d.get("_id").stringValue()));
        return out;
    }

    @Test
    void expiredDocumentsAreDeletedInTheBackgroundWithDeleteEvents() throws Exception {
        weft = new TestServer("--ttl-interval-ms", "100");
        weft.createCollection("db", "sessions");
        try (StreamClients.Sse events = StreamClients.Sse.open(weft, "/db/sessions/_streams")) {
            assertThat(events.status()).isEqualTo(200);
            seed();
            List<String> deleted = new ArrayList<>();
            while (deleted.size() < 4) {
                JsonNode e = events.next(10);
                if (e.path("operationType").asString().equals("delete")) {
                    deleted.add(e.get("documentKey").get("_id").stringValue());
                }
            }
            assertThat(deleted).containsExactlyInAnyOrder("old1", "old2", "oldIso", "oldInArray");
        }
        assertThat(ids()).containsExactly("missing", "notADate", "number", "recent");
        assertThat(weft.get("/db/sessions/_indexes").body()).contains("\"expireAfterSeconds\":60");
    }

    @Test
    void onePassDeletesAtMostTheBatch() throws Exception {
        weft = new TestServer("--ttl-interval-ms", "86400000");
        seed();
        TtlReaper reaper = new TtlReaper(weft.store, Json.standard(), 86_400_000, 3, System::currentTimeMillis);
        assertThat(reaper.pass()).isEqualTo(3);
        assertThat(ids()).hasSize(5);
        assertThat(reaper.pass()).isEqualTo(1);
        assertThat(reaper.pass()).isZero();
        assertThat(ids()).containsExactly("missing", "notADate", "number", "recent");
        weft = weft.restartWith("--ttl-interval-ms", "86400000"); // the option is stored with the index
        assertThat(weft.get("/db/sessions/_indexes").body()).contains("\"expireAfterSeconds\":60");
    }

    @Test
    void badTtlOptionsAre400() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "c");
        for (String ops : new String[] {"{\"keys\":{\"a\":1,\"b\":1},\"ops\":{\"expireAfterSeconds\":5}}",
                "{\"keys\":{\"_id\":1},\"ops\":{\"expireAfterSeconds\":5}}",
                "{\"keys\":{\"a\":1},\"ops\":{\"expireAfterSeconds\":-1}}",
                "{\"keys\":{\"a\":1},\"ops\":{\"expireAfterSeconds\":1.5}}",
                "{\"keys\":{\"a\":1},\"ops\":{\"expireAfterSeconds\":\"5\"}}",
                "{\"keys\":{\"a\":1},\"ops\":{\"expireAfterSeconds\":2147483648}}"}) {
            HttpResponse<String> r = weft.put("/db/c/_indexes/t", ops);
            assertThat(r.statusCode()).as(ops).isEqualTo(400);
            assertThat(r.body()).as(ops).contains("expireAfterSeconds");
        }
        assertThat(weft.get("/db/c/_indexes").body()).doesNotContain("\"t\"");
    }
}
