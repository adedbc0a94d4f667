package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class DatabaseEndpointsTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void createsListsAndDropsDatabasesAndCollections() throws Exception {
        assertThat(weft.put("/shop", null).statusCode()).isEqualTo(201);
        assertThat(weft.put("/shop", "{\"desc\":\"again\"}").statusCode()).isEqualTo(200);
        assertThat(weft.get("/").body()).contains("\"shop\"");
        assertThat(weft.put("/shop/orders", null).statusCode()).isEqualTo(201);
        assertThat(weft.put("/shop/items", null).statusCode()).isEqualTo(201);
        HttpResponse<String> colls = weft.get("/shop");
        assertThat(colls.statusCode()).isEqualTo(200);
        assertThat(colls.body()).contains("\"orders\"", "\"items\"");

        // RESTHeart refuses to drop without the etag, and refuses a stale one.
        assertThat(weft.delete("/shop/items").statusCode()).isEqualTo(409);
        assertThat(weft.delete("/shop/items", "If-Match", "0123456789abcdef01234567").statusCode()).isEqualTo(412);
        HttpResponse<String> meta = weft.put("/shop/items", "{\"x\":1}");
        String collEtag = meta.headers().firstValue("ETag").orElseThrow();
        assertThat(weft.delete("/shop/items", "If-Match", collEtag).statusCode()).isEqualTo(204);
        assertThat(weft.get("/shop").body()).doesNotContain("\"items\"");
        assertThat(weft.get("/shop/items").statusCode()).isEqualTo(404);

        String dbEtag = weft.get("/shop").headers().firstValue("ETag").orElseThrow();
        assertThat(weft.delete("/shop", "If-Match", dbEtag).statusCode()).isEqualTo(204);
        assertThat(weft.get("/shop").statusCode()).isEqualTo(404);
        assertThat(weft.get("/shop/orders").statusCode()).isEqualTo(404);
    }

    @Test
    void collectionNeedsItsDatabase() throws Exception {
        HttpResponse<String> r = weft.put("/nodb/coll", null);
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).contains("\"http status code\":404", "nodb");
    }

    @Test
    void invalidNamesAreRefused() throws Exception {
        assertThat(weft.put("/_bad", null).statusCode()).isEqualTo(400);
        assertThat(weft.put("/" + "x".repeat(70), null).statusCode()).isEqualTo(400);
    }

    @Test
    void databaseAndCollectionListsArePaged() throws Exception {
        for (String db : new String[] {"paged-a", "paged-b", "paged-c"}) {
            assertThat(weft.put("/" + db, null).statusCode()).isEqualTo(201);
        }
        for (String coll : new String[] {"c1", "c2", "c3"}) {
            assertThat(weft.put("/paged-a/" + coll, null).statusCode()).isEqualTo(201);
        }
        assertThat(weft.get("/?page=100").body()).isEqualTo("[]");
        assertThat(weft.get("/paged-a?page=100").body()).isEqualTo("[]");
        assertThat(weft.get("/paged-a?pagesize=2").body()).isEqualTo("[\"c1\",\"c2\"]");
        assertThat(weft.get("/paged-a?pagesize=2&page=2").body()).isEqualTo("[\"c3\"]");
        assertThat(weft.get("/paged-a?pagesize=0").body()).isEqualTo("[]");
        String all = weft.get("/?pagesize=1000").body();
        assertThat(all).contains("\"paged-a\",\"paged-b\",\"paged-c\"");
        java.util.List<String> names = java.util.Arrays.asList(all.substring(2, all.length() - 2).split("\",\""));
        int page = names.indexOf("paged-b") + 1; // pagesize 1: its position, from 1
        assertThat(weft.get("/?pagesize=1&page=" + page).body()).isEqualTo("[\"paged-b\"]");
        assertThat(weft.get("/?pagesize=1001").statusCode()).isEqualTo(400);
        assertThat(weft.get("/paged-a?page=0").statusCode()).isEqualTo(400);
    }

    @Test
    void metadataIsReadAtMetaAsRestheartsPropertiesDocument() throws Exception {
        assertThat(weft.put("/metadb", "{\"desc\":\"a db\"}").statusCode()).isEqualTo(201);
        assertThat(weft.put("/metadb/coll", "{\"owner\":\"ops\",\"n\":2}").statusCode()).isEqualTo(201);
        HttpResponse<String> db = weft.get("/metadb/_meta");
        assertThat(db.statusCode()).as(db.body()).isEqualTo(200);
        String dbEtag = db.headers().firstValue("ETag").orElseThrow();
        assertThat(db.body()).isEqualTo("{\"_id\":\"_properties\",\"desc\":\"a db\",\"_etag\":{\"$oid\":\"" + dbEtag + "\"}}");
        HttpResponse<String> coll = weft.get("/metadb/coll/_meta");
        assertThat(coll.statusCode()).as(coll.body()).isEqualTo(200);
        String collEtag = coll.headers().firstValue("ETag").orElseThrow();
        assertThat(coll.body()).isEqualTo("{\"_id\":\"_properties.coll\",\"owner\":\"ops\",\"n\":2,\"_etag\":{\"$oid\":\""
                + collEtag + "\"}}");
        // the etag is the one a drop needs
        assertThat(weft.delete("/metadb/coll", "If-Match", collEtag).statusCode()).isEqualTo(204);
        assertThat(weft.get("/metadb/coll/_meta").statusCode()).isEqualTo(404);
        assertThat(weft.get("/nodb/_meta").statusCode()).isEqualTo(404);
        assertThat(weft.get("/nodb/coll/_meta").statusCode()).isEqualTo(404);
    }

    @Test
    void readingMetadataIsAManagementRequest() throws Exception {
        weft.createCollection("db", "notes");
        AuthorizationMatrixTest.users(weft);
        AuthorizationMatrixTest.rules(weft, "admin");
        assertThat(AuthorizationMatrixTest.send(weft, "alice", "GET", "/db/notes", null).statusCode()).isEqualTo(200);
        assertThat(AuthorizationMatrixTest.send(weft, "alice", "GET", "/db/notes/_meta", null).statusCode()).isEqualTo(403);
        assertThat(AuthorizationMatrixTest.send(weft, "alice", "GET", "/db/_meta", null).statusCode()).isEqualTo(403);
    }
}
