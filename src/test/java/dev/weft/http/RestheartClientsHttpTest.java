package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * What clients written against RESTHeart rely on: relaxed JSON in query parameters (bodies stay
 * strict), an absolute Location, and RESTHeart parameters Weft does not honour refused by name.
 */
class RestheartClientsHttpTest {

    private static void seed(TestServer weft) throws Exception {
        weft.put("/db", null);
        weft.put("/db/c", null);
        weft.post("/db/c", "[{\"_id\":\"a\",\"name\":\"x\",\"n\":1},{\"_id\":\"b\",\"name\":\"y\",\"n\":2}]");
    }

    @Test
    void queryParametersAreReadRelaxedAsRestheartReadsThem() throws Exception {
        try (TestServer weft = new TestServer()) {
            seed(weft);
            assertThat(weft.get("/db/c?filter=" + q("{'name':'x'}")).body()).contains("\"a\"").doesNotContain("\"b\"");
            assertThat(weft.get("/db/c?filter=" + q("{name:'x'}")).body()).contains("\"a\"").doesNotContain("\"b\"");
            assertThat(weft.get("/db/c?filter=" + q("{n:{$gt:1}}")).body()).contains("\"b\"").doesNotContain("\"a\"");
            assertThat(weft.get("/db/c?sort=" + q("{'n':1}") + "&keys=" + q("{n:1}")).body())
                    .isEqualTo("[{\"_id\":\"a\",\"n\":1},{\"_id\":\"b\",\"n\":2}]");
            assertThat(weft.get("/db/c/_size?filter=" + q("{'name':'y'}")).body()).isEqualTo("{\"_size\":1}");
            HttpResponse<String> broken = weft.get("/db/c?filter=" + q("{name:'x'"));
            assertThat(broken.statusCode()).isEqualTo(400);
            assertThat(broken.body()).contains("query parameter filter is not valid JSON");
            // Bodies stay strict JSON, as RESTHeart's.
            HttpResponse<String> body = weft.post("/db/c", "{'name':'z'}");
            assertThat(body.statusCode()).isEqualTo(400);
            assertThat(weft.get("/db/c/_size").body()).isEqualTo("{\"_size\":2}");
        }
    }

    @Test
    void locationIsAbsoluteFromTheRequestAndForwardedHeadersOnlyFromTrustedProxies() throws Exception {
        try (TestServer weft = new TestServer()) {
            seed(weft);
            HttpResponse<String> r = weft.post("/db/c", "{\"_id\":\"l1\"}", "X-Forwarded-Host", "evil.example",
                    "X-Forwarded-Proto", "https");
            assertThat(r.headers().firstValue("Location")).hasValue("http://127.0.0.1:" + weft.server.port() + "/db/c/l1");
        }
        try (TestServer weft = new TestServer("--trusted-proxies", "10.0.0.1, 127.0.0.1")) {
            seed(weft);
            HttpResponse<String> r = weft.post("/db/c", "{\"_id\":\"l2\"}", "X-Forwarded-Host", "api.example.com",
                    "X-Forwarded-Proto", "https");
            assertThat(r.headers().firstValue("Location")).hasValue("https://api.example.com/db/c/l2");
        }
        try (TestServer weft = new TestServer("--base-url", "https://data.example.com/weft/")) {
            seed(weft);
            HttpResponse<String> r = weft.post("/db/c", "{\"_id\":\"l 3\"}", "X-Forwarded-Host", "evil.example");
            assertThat(r.headers().firstValue("Location")).hasValue("https://data.example.com/weft/db/c/l%203");
        }
    }

    @Test
    void restheartParametersWeftDoesNotHonourAre400NamingThem() throws Exception {
        try (TestServer weft = new TestServer()) {
            seed(weft);
            weft.get("/db/c"); // cached: the memory path must not answer the refused ones either
            for (String query : new String[] {"rep=hal", "rep=SHAL", "np=false", "jsonMode=shell",
                    "checkEtag", "writeConcern=majority", "sort_by=n"}) {
                HttpResponse<String> r = weft.get("/db/c?" + query);
                String name = query.split("[=&]")[0];
                assertThat(r.statusCode()).as(query).isEqualTo(400);
                assertThat(r.body()).as(query).contains("query parameter " + name);
            }
            // a session id Weft never gave is refused, never taken as an immediate write
            HttpResponse<String> write = weft.post("/db/c?sid=5f1e&txn=1", "{\"_id\":\"t\"}");
            assertThat(write.statusCode()).isEqualTo(400);
            assertThat(write.body()).contains("Invalid session id");
            assertThat(weft.get("/db/c/t").statusCode()).isEqualTo(404);
            assertThat(weft.get("/db/c?rep=s").statusCode()).isEqualTo(200);
            // np asks for no properties, which Weft's answers never hold (RESTHeart's sessions.feature sends it)
            assertThat(weft.get("/db/c?np").body()).isEqualTo(weft.get("/db/c").body());
            assertThat(weft.get("/db/c/_size?np=true").body()).isEqualTo(weft.get("/db/c/_size").body());
            assertThat(weft.get("/db/c?rep=STANDARD").statusCode()).isEqualTo(200);
        }
    }
}
