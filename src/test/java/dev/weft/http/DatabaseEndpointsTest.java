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
}
