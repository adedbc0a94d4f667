package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * MongoDB's index options {@code sparse} and {@code partialFilterExpression}, with and without
 * {@code unique}: a document the index does not hold has no key in it (so it never clashes), and
 * a query is answered in full whether or not it may use the index (the planner takes such an
 * index only when the query's own filter implies what it holds).
 */
class IndexOptionsTest {
    private static String ids(TestServer weft, String query) throws Exception {
        HttpResponse<String> r = weft.get("/db/c?keys=" + q("{\"_id\":1}") + "&" + query);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    @Test
    void aSparseUniqueIndexLetsManyDocumentsLackTheField() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "c");
            assertThat(weft.put("/db/c/_indexes/email", "{\"keys\":{\"email\":1},\"ops\":{\"unique\":true,\"sparse\":true}}")
                    .statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":1}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":2}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":3,\"email\":\"a@x\"}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":4,\"email\":\"a@x\"}").statusCode()).isEqualTo(409);
            assertThat(weft.post("/db/c", "{\"_id\":5,\"email\":null}").statusCode()).isEqualTo(201); // null is present
            assertThat(weft.post("/db/c", "{\"_id\":6,\"email\":null}").statusCode()).isEqualTo(409);
            // sorted on the index's field: documents without it are still listed
            assertThat(ids(weft, "sort=" + q("{\"email\":1}") + "&pagesize=10"))
                    .contains("{\"_id\":1}", "{\"_id\":2}", "{\"_id\":3}", "{\"_id\":5}");
            assertThat(ids(weft, "filter=" + q("{\"email\":null}"))).isEqualTo("[{\"_id\":5},{\"_id\":2},{\"_id\":1}]");
            assertThat(ids(weft, "filter=" + q("{\"email\":\"a@x\"}") + "&hint=email")).isEqualTo("[{\"_id\":3}]");
            assertThat(weft.get("/db/c?hint=email").statusCode()).isEqualTo(400);
            assertThat(weft.get("/db/c/_indexes").body())
                    .contains("{\"_id\":\"email\",\"key\":{\"email\":1},\"unique\":true,\"sparse\":true}");
        }
    }

    @Test
    void aPartialUniqueIndexHoldsOnlyMatchingDocumentsAndSurvivesARestart() throws Exception {
        TestServer weft = new TestServer();
        try {
            weft.createCollection("db", "c");
            String definition = "{\"keys\":{\"email\":1},\"ops\":{\"unique\":true,"
                    + "\"partialFilterExpression\":{\"active\":true}}}";
            assertThat(weft.put("/db/c/_indexes/active_email", definition).statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":\"p1\",\"email\":\"a@x\",\"active\":true}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":\"p2\",\"email\":\"a@x\",\"active\":false}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":\"p3\",\"email\":\"a@x\"}").statusCode()).isEqualTo(201);
            assertThat(weft.post("/db/c", "{\"_id\":\"p4\",\"email\":\"a@x\",\"active\":true}").statusCode()).isEqualTo(409);
            // becoming active makes it clash; leaving the filter frees the key
            assertThat(weft.patch("/db/c/p2", "{\"$set\":{\"active\":true}}").statusCode()).isEqualTo(409);
            assertThat(weft.patch("/db/c/p1", "{\"$set\":{\"active\":false}}").statusCode()).isEqualTo(200);
            assertThat(weft.patch("/db/c/p2", "{\"$set\":{\"active\":true}}").statusCode()).isEqualTo(200);

            // a query not implying the filter reads every document; one implying it may use the index
            assertThat(ids(weft, "filter=" + q("{\"email\":\"a@x\"}"))).isEqualTo("[{\"_id\":\"p3\"},{\"_id\":\"p2\"},{\"_id\":\"p1\"}]");
            assertThat(ids(weft, "filter=" + q("{\"email\":\"a@x\",\"active\":true}") + "&hint=active_email"))
                    .isEqualTo("[{\"_id\":\"p2\"}]");
            assertThat(weft.get("/db/c?hint=active_email&filter=" + q("{\"email\":\"a@x\"}")).statusCode()).isEqualTo(400);
            assertThat(weft.get("/db/c/_size?filter=" + q("{\"email\":\"a@x\"}")).body()).isEqualTo("{\"_size\":3}");

            weft = weft.restartWith();
            assertThat(weft.get("/db/c/_indexes").body()).contains("{\"_id\":\"active_email\",\"key\":{\"email\":1},"
                    + "\"unique\":true,\"partialFilterExpression\":{\"active\":true}}");
            assertThat(weft.post("/db/c", "{\"_id\":\"p5\",\"email\":\"a@x\",\"active\":true}").statusCode()).isEqualTo(409);
            assertThat(weft.post("/db/c", "{\"_id\":\"p6\",\"email\":\"a@x\"}").statusCode()).isEqualTo(201);
            assertThat(weft.put("/db/c/_indexes/active_email", definition).statusCode()).isEqualTo(201);
        } finally {
            weft.close();
        }
    }

    @Test
    void badOptionsAre400AndCreateNothing() throws Exception {
        try (TestServer weft = new TestServer()) {
            weft.createCollection("db", "c");
            assertThat(weft.put("/db/c/_indexes/x", "{\"keys\":{\"a\":1},\"ops\":{\"sparse\":\"yes\"}}").statusCode()).isEqualTo(400);
            assertThat(weft.put("/db/c/_indexes/x", "{\"keys\":{\"a\":1},\"ops\":{\"partialFilterExpression\":{\"a\":{\"$where\":\"1\"}}}}")
                    .statusCode()).isEqualTo(400);
            assertThat(weft.put("/db/c/_indexes/x", "{\"keys\":{\"a\":1},\"ops\":{\"partialFilterExpression\":5}}").statusCode())
                    .isEqualTo(400);
            assertThat(weft.get("/db/c/_indexes").body()).doesNotContain("\"x\"");
            // building over existing duplicates fails only for documents the index holds
            weft.post("/db/c", "[{\"_id\":1,\"a\":1},{\"_id\":2,\"a\":1,\"dup\":true}]");
            assertThat(weft.put("/db/c/_indexes/x", "{\"keys\":{\"a\":1},\"ops\":{\"unique\":true,"
                    + "\"partialFilterExpression\":{\"dup\":true}}}").statusCode()).isEqualTo(201);
        }
    }
}
