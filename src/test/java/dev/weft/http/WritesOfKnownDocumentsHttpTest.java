package dev.weft.http;

import static dev.weft.http.BulkEndpointsTest.json;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Writes of documents the node has just written or read: on PostgreSQL these assume the stored
 * bytes the node knows (one round trip, decision 0005) and JSON arrays of upserts lock and read
 * all their documents at once. Every answer must still be the stored document's: unique keys,
 * updates the document cannot take, per-document errors of an array with the others kept,
 * multikey marking by a bulk update, If-Match after a read. Runs on both stores.
 */
class WritesOfKnownDocumentsHttpTest {
    private static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "known");
        assertThat(weft.put("/db/known/_indexes/byU", "{\"keys\":{\"u\":1},\"ops\":{\"unique\":true,\"sparse\":true}}").statusCode()).isEqualTo(201);
        assertThat(weft.put("/db/known/_indexes/byTags", "{\"keys\":{\"tags\":1}}").statusCode()).isEqualTo(201);
    }

    @AfterAll
    static void closeServer() throws Exception {
        weft.close();
    }

    @Test
    void aPatchThatBreaksAUniqueIndexIs409AndChangesNothing() throws Exception {
        assertThat(weft.post("/db/known", "{\"_id\":\"k1\",\"u\":1,\"n\":0}").statusCode()).isEqualTo(201);
        assertThat(weft.post("/db/known", "{\"_id\":\"k2\",\"u\":2,\"n\":0}").statusCode()).isEqualTo(201);
        HttpResponse<String> clash = weft.patch("/db/known/k2", "{\"$set\":{\"u\":1},\"$inc\":{\"n\":1}}");
        assertThat(clash.statusCode()).as(clash.body()).isEqualTo(409);
        // SQLite's check adds "(writing _id ...)"; PostgreSQL's constraint names only the index
        assertThat(json(clash).get("message").asString())
                .startsWith("duplicate key: unique index 'byU' already has this key for another document");
        JsonNode k2 = json(weft.get("/db/known/k2"));
        assertThat(k2.get("u").asInt()).isEqualTo(2);
        assertThat(k2.get("n").asInt()).isEqualTo(0);
        // the key is still free for k2's own next write, and k1 still holds 1
        assertThat(weft.patch("/db/known/k2", "{\"$set\":{\"u\":3},\"$inc\":{\"n\":1}}").statusCode()).isEqualTo(200);
        assertThat(json(weft.get("/db/known/_size?filter=" + q("{\"u\":1}"))).get("_size").asInt()).isEqualTo(1);
        assertThat(json(weft.get("/db/known/k2")).get("n").asInt()).isEqualTo(1);
    }

    @Test
    void anUpdateTheStoredDocumentCannotTakeIs400AndChangesNothing() throws Exception {
        assertThat(weft.post("/db/known", "{\"_id\":\"s1\",\"name\":\"x\"}").statusCode()).isEqualTo(201);
        HttpResponse<String> bad = weft.patch("/db/known/s1", "{\"$inc\":{\"name\":1}}");
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
        assertThat(json(weft.get("/db/known/s1")).get("name").asString()).isEqualTo("x");
    }

    @Test
    void ifMatchAfterAReadNamesTheStoredEtag() throws Exception {
        assertThat(weft.put("/db/known/e1?wm=upsert", "{\"n\":1}").statusCode()).isEqualTo(201);
        HttpResponse<String> read = weft.get("/db/known/e1");
        String etag = read.headers().firstValue("ETag").orElseThrow();
        HttpResponse<String> replaced = weft.put("/db/known/e1", "{\"n\":2}", "If-Match", etag);
        assertThat(replaced.statusCode()).isEqualTo(200);
        assertThat(weft.put("/db/known/e1", "{\"n\":3}", "If-Match", etag).statusCode()).isEqualTo(412);
        assertThat(weft.patch("/db/known/e1", "{\"$inc\":{\"n\":10}}", "If-Match", etag).statusCode()).isEqualTo(412);
        assertThat(weft.delete("/db/known/e1", "If-Match", etag).statusCode()).isEqualTo(412);
        assertThat(json(weft.get("/db/known/e1")).get("n").asInt()).isEqualTo(2);
        String now = replaced.headers().firstValue("ETag").orElseThrow();
        assertThat(weft.delete("/db/known/e1", "If-Match", now).statusCode()).isEqualTo(204);
        assertThat(weft.get("/db/known/e1").statusCode()).isEqualTo(404);
        // a document deleted after the node knew it: an update-only write is 404, an upsert creates it
        assertThat(weft.patch("/db/known/e1", "{\"$set\":{\"n\":4}}").statusCode()).isEqualTo(404);
        assertThat(weft.patch("/db/known/e1?wm=upsert", "{\"$set\":{\"n\":5}}").statusCode()).isEqualTo(201);
        assertThat(json(weft.get("/db/known/e1")).get("n").asInt()).isEqualTo(5);
    }

    @Test
    void anArrayOfUpsertsKeepsEveryDocumentThatCanBeWrittenAndSaysWhichCannot() throws Exception {
        assertThat(weft.post("/db/known", "{\"_id\":\"a1\",\"u\":101}").statusCode()).isEqualTo(201);
        HttpResponse<String> r = weft.post("/db/known?wm=upsert",
                "[{\"_id\":\"a1\",\"u\":102},{\"_id\":\"a2\",\"u\":103},{\"_id\":\"a3\",\"u\":103},{\"_id\":\"a4\",\"u\":104}]");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(207);
        JsonNode body = json(r);
        assertThat(body.get("inserted").asInt()).isEqualTo(2);
        assertThat(body.get("modified").asInt()).isEqualTo(1);
        assertThat(body.get("errors").size()).isEqualTo(1);
        assertThat(body.get("errors").get(0).get("index").asInt()).isEqualTo(2);
        assertThat(body.get("errors").get(0).get("httpStatus").asInt()).isEqualTo(409);
        assertThat(json(weft.get("/db/known/a1")).get("u").asInt()).isEqualTo(102);
        assertThat(json(weft.get("/db/known/a2")).get("u").asInt()).isEqualTo(103);
        assertThat(weft.get("/db/known/a3").statusCode()).isEqualTo(404);
        assertThat(json(weft.get("/db/known/a4")).get("u").asInt()).isEqualTo(104);
        // all writable: one answer, every document written
        HttpResponse<String> clean = weft.post("/db/known?wm=upsert", "[{\"_id\":\"a1\",\"u\":105},{\"_id\":\"a3\",\"u\":106}]");
        assertThat(clean.statusCode()).as(clean.body()).isEqualTo(200);
        assertThat(json(clean).get("inserted").asInt()).isEqualTo(1);
        assertThat(json(clean).get("modified").asInt()).isEqualTo(1);
        assertThat(json(weft.get("/db/known/a1")).get("u").asInt()).isEqualTo(105);
    }

    @Test
    void aBulkUpdateThatStoresArraysOnAnIndexedPathIsFoundByAnElement() throws Exception {
        weft.post("/db/known", "[{\"_id\":\"t1\",\"g\":\"bulk\",\"tags\":\"x\"},{\"_id\":\"t2\",\"g\":\"bulk\",\"tags\":\"y\"}]");
        HttpResponse<String> patched = weft.patch("/db/known/*?filter=" + q("{\"g\":\"bulk\"}"), "{\"$set\":{\"tags\":[\"p\",\"q\"]}}");
        assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
        assertThat(json(patched).get("modified").asInt()).isEqualTo(2);
        HttpResponse<String> found = weft.get("/db/known?filter=" + q("{\"tags\":\"q\"}") + "&sort=" + q("{\"tags\":1}"));
        assertThat(found.statusCode()).isEqualTo(200);
        assertThat(json(found).size()).isEqualTo(2);
        HttpResponse<String> deleted = weft.delete("/db/known/*?filter=" + q("{\"tags\":\"p\"}"));
        assertThat(json(deleted).get("deleted").asInt()).isEqualTo(2);
        assertThat(weft.get("/db/known/t1").statusCode()).isEqualTo(404);
    }
}
