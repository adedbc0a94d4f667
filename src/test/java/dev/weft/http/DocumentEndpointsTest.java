package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class DocumentEndpointsTest {
    static TestServer weft;
    static final Json JSON = Json.standard();

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "docs");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static JsonNode json(HttpResponse<String> r) {
        return JSON.parse(r.body(), "response");
    }

    @Test
    void postWithoutIdCreatesAnObjectIdAndLocation() throws Exception {
        HttpResponse<String> r = weft.post("/db/docs", "{\"name\":\"ada\"}");
        assertThat(r.statusCode()).isEqualTo(201);
        // Absolute, as RESTHeart's (issue 20): from the request's scheme and Host.
        String url = r.headers().firstValue("Location").orElseThrow();
        assertThat(url).matches("http://127\\.0\\.0\\.1:\\d+/db/docs/[0-9a-f]{24}");
        String location = java.net.URI.create(url).getPath();
        String etag = r.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> got = weft.get(location);
        assertThat(got.statusCode()).isEqualTo(200);
        JsonNode doc = json(got);
        assertThat(doc.get("name").asString()).isEqualTo("ada");
        assertThat(doc.get("_id").get("$oid").asString()).isEqualTo(location.substring(9));
        assertThat(doc.get("_etag").get("$oid").asString()).isEqualTo(etag);
        assertThat(got.headers().firstValue("ETag")).contains(etag);
    }

    @Test
    void duplicateIdIsConflict() throws Exception {
        assertThat(weft.post("/db/docs", "{\"_id\":\"dup\",\"v\":1}").statusCode()).isEqualTo(201);
        HttpResponse<String> again = weft.post("/db/docs", "{\"_id\":\"dup\",\"v\":2}");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(json(again).get("http status code").asInt()).isEqualTo(409);
        assertThat(json(weft.get("/db/docs/dup")).get("v").asInt()).isEqualTo(1);
        // wm=upsert on POST replaces
        assertThat(weft.post("/db/docs?wm=upsert", "{\"_id\":\"dup\",\"v\":3}").statusCode()).isEqualTo(200);
        assertThat(json(weft.get("/db/docs/dup")).get("v").asInt()).isEqualTo(3);
    }

    @Test
    void postInUpdateModeWithoutAnIdIs400() throws Exception {
        HttpResponse<String> r = weft.post("/db/docs?wm=update", "{\"probe\":1}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isEqualTo("{\"http status code\":400,\"http status description\":\"Bad Request\","
                + "\"message\":\"wm=update needs the _id of the document to update\"}");
        assertThat(weft.post("/db/docs?wm=update", "[{\"_id\":\"probe1\",\"probe\":1},{\"probe\":2}]").statusCode()).isEqualTo(400);
        assertThat(json(weft.get("/db/docs/_size?filter=" + TestServer.q("{\"probe\":{\"$exists\":true}}"))).get("_size").asInt())
                .isEqualTo(0);
        // with an _id it updates; a missing one stays 404
        assertThat(weft.post("/db/docs?wm=update", "{\"_id\":\"no-such\",\"v\":1}").statusCode()).isEqualTo(404);
    }

    @Test
    void putOfAMissingDocumentIs404AndCreatesNothing() throws Exception {
        assertThat(weft.put("/db/docs/put-missing", "{\"a\":1}").statusCode()).isEqualTo(404);
        assertThat(weft.get("/db/docs/put-missing").statusCode()).isEqualTo(404);
    }

    @Test
    void patchOfAMissingDocumentIs404AndCreatesNothing() throws Exception {
        assertThat(weft.patch("/db/docs/patch-missing", "{\"a\":1}").statusCode()).isEqualTo(404);
        assertThat(weft.get("/db/docs/patch-missing").statusCode()).isEqualTo(404);
    }

    @Test
    void putWithUpsertCreatesAMissingDocumentWith201() throws Exception {
        assertThat(weft.put("/db/docs/put-upsert?wm=upsert", "{\"a\":1}").statusCode()).isEqualTo(201);
        assertThat(json(weft.get("/db/docs/put-upsert")).get("a").asInt()).isEqualTo(1);
    }

    @Test
    void putOfAnExistingDocumentReplacesItWholeWith200() throws Exception {
        weft.put("/db/docs/put-replace?wm=upsert", "{\"a\":1}");

        assertThat(weft.put("/db/docs/put-replace", "{\"b\":2}").statusCode()).isEqualTo(200);

        JsonNode replaced = json(weft.get("/db/docs/put-replace"));
        assertThat(replaced.has("a")).isFalse();
        assertThat(replaced.get("b").asInt()).isEqualTo(2);
    }

    @Test
    void patchAppliesUpdateOperatorsToAnExistingDocument() throws Exception {
        weft.put("/db/docs/patch-ops?wm=upsert", "{\"b\":2}");

        assertThat(weft.patch("/db/docs/patch-ops", "{\"$inc\":{\"b\":5},\"$set\":{\"c.d\":true}}").statusCode())
                .isEqualTo(200);

        JsonNode patched = json(weft.get("/db/docs/patch-ops"));
        assertThat(patched.get("b").asInt()).isEqualTo(7);
        assertThat(patched.get("c").get("d").asBoolean()).isTrue();
    }

    @Test
    void aPatchBodyWithoutOperatorsSetsItsFieldsAndKeepsTheOthers() throws Exception {
        weft.put("/db/docs/patch-plain?wm=upsert", "{\"b\":7}");

        assertThat(weft.patch("/db/docs/patch-plain", "{\"e\":\"x\"}").statusCode()).isEqualTo(200);

        JsonNode patched = json(weft.get("/db/docs/patch-plain"));
        assertThat(patched.get("b").asInt()).isEqualTo(7);
        assertThat(patched.get("e").asString()).isEqualTo("x");
    }

    @Test
    void patchWithUpsertCreatesAMissingDocumentWith201() throws Exception {
        assertThat(weft.patch("/db/docs/patch-upsert?wm=upsert", "{\"$set\":{\"z\":1}}").statusCode()).isEqualTo(201);
        assertThat(json(weft.get("/db/docs/patch-upsert")).get("z").asInt()).isEqualTo(1);
    }

    @Test
    void putWithInsertModeCreatesOnceThenAnswers409AndKeepsTheFirst() throws Exception {
        assertThat(weft.put("/db/docs/put-insert?wm=insert", "{\"a\":1}").statusCode()).isEqualTo(201);
        assertThat(weft.put("/db/docs/put-insert?wm=insert", "{\"a\":2}").statusCode()).isEqualTo(409);
        assertThat(json(weft.get("/db/docs/put-insert")).get("a").asInt()).isEqualTo(1);
    }

    @Test
    void etagsGuardWritesAndConditionalReads() throws Exception {
        HttpResponse<String> created = weft.put("/db/docs/e1?wm=upsert", "{\"n\":1}");
        String etag = created.headers().firstValue("ETag").orElseThrow();
        assertThat(weft.get("/db/docs/e1", "If-None-Match", etag).statusCode()).isEqualTo(304);
        assertThat(weft.get("/db/docs/e1", "If-None-Match", "\"" + etag + "\"").statusCode()).isEqualTo(304);
        assertThat(weft.get("/db/docs/e1", "If-None-Match", "other").statusCode()).isEqualTo(200);
        assertThat(weft.patch("/db/docs/e1", "{\"n\":2}", "If-Match", "000000000000000000000000").statusCode()).isEqualTo(412);
        HttpResponse<String> ok = weft.patch("/db/docs/e1", "{\"n\":2}", "If-Match", etag);
        assertThat(ok.statusCode()).isEqualTo(200);
        String next = ok.headers().firstValue("ETag").orElseThrow();
        assertThat(next).isNotEqualTo(etag);
        assertThat(weft.delete("/db/docs/e1", "If-Match", etag).statusCode()).isEqualTo(412);
        assertThat(weft.delete("/db/docs/e1", "If-Match", next).statusCode()).isEqualTo(204);
        assertThat(weft.get("/db/docs/e1").statusCode()).isEqualTo(404);
        assertThat(weft.delete("/db/docs/e1").statusCode()).isEqualTo(404);
    }

    @Test
    void extendedJsonIdsAndDates() throws Exception {
        String oid = "5f0c2a4e9d1b2c3d4e5f6a7b";
        assertThat(weft.post("/db/docs", "{\"_id\":{\"$oid\":\"" + oid + "\"},\"when\":{\"$date\":1700000000000}}").statusCode())
                .isEqualTo(201);
        JsonNode doc = json(weft.get("/db/docs/" + oid));
        assertThat(doc.get("when").get("$date").asLong()).isEqualTo(1700000000000L);
        // the same hex as a string id is a different document
        assertThat(weft.get("/db/docs/" + oid + "?id_type=STRING").statusCode()).isEqualTo(404);
        assertThat(weft.post("/db/docs", "{\"_id\":42,\"n\":true}").statusCode()).isEqualTo(201);
        assertThat(weft.get("/db/docs/42?id_type=NUMBER").statusCode()).isEqualTo(200);
        assertThat(weft.get("/db/docs/abc?id_type=NUMBER").statusCode()).isEqualTo(400);
        assertThat(weft.get("/db/docs/xyz?id_type=OBJECTID").statusCode()).isEqualTo(400);
        HttpResponse<String> found = weft.get("/db/docs?filter=" + TestServer.q("{\"when\":{\"$gt\":{\"$date\":\"2023-01-01T00:00:00Z\"}}}"));
        assertThat(json(found).size()).isEqualTo(1);
    }

    @Test
    void projectionOnASingleDocument() throws Exception {
        weft.post("/db/docs", "{\"_id\":\"k1\",\"a\":1,\"b\":{\"c\":2,\"d\":3}}");
        JsonNode doc = json(weft.get("/db/docs/k1?keys=" + TestServer.q("{\"b.c\":1}")));
        assertThat(doc.get("_id").asString()).isEqualTo("k1");
        assertThat(doc.has("a")).isFalse();
        assertThat(doc.get("b").get("c").asInt()).isEqualTo(2);
        assertThat(doc.get("b").has("d")).isFalse();
    }
}
