package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Input that each store would take differently, or that would leave a collection nobody can
 * query or a document nobody can address: refused at the door with a 400 naming the rule, on
 * every entry, and nothing stored changes. Runs on SQLite and on PostgreSQL (whose jsonb refuses
 * what SQLite keeps).
 */
class HostileInputTest {
    static TestServer weft;

    static final String REGEX_BOMB = "((((a{100}){100}){100}){100})";
    static final String HUGE_INTEGER = "1" + "0".repeat(399);

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.put("/db", null);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    /** A collection holding one document, {@code {"_id":"seed","n":1,"a":"aaa"}}. */
    static String seeded(String coll) throws Exception {
        String path = "/db/" + coll;
        assertThat(weft.put(path, null).statusCode()).isEqualTo(201);
        assertThat(weft.post(path, "{\"_id\":\"seed\",\"n\":1,\"a\":\"aaa\"}").statusCode()).isEqualTo(201);
        return path;
    }

    /** Every document of the collection, as the admin reads it. */
    static String contents(String path) throws Exception {
        HttpResponse<String> r = weft.get(path + "?pagesize=1000&sort=" + q("{\"_id\":1}"));
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    /** A 400 whose RESTHeart-shaped JSON body names the rule, and no database text. */
    static void assertRefused(HttpResponse<String> r, String... named) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(r.body()).startsWith("{\"http status code\":400,").contains(named)
                .doesNotContain("unavailable", "ERROR:", "SQLITE");
    }

    static HttpResponse<String> ndjson(String path, String body) throws Exception {
        return weft.client.send(weft.request(path).header("Content-Type", "application/x-ndjson")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    // --- 5: a short regex whose compiled program is enormous -------------------------------

    @Test
    void aRegexWhoseProgramExplodesIs400WhereverARegexIsCompiled() throws Exception {
        String path = seeded("regex");
        String before = contents(path);
        String filter = q("{\"a\":{\"$regex\":\"" + REGEX_BOMB + "\"}}");
        long start = System.nanoTime();
        assertRefused(weft.get(path + "?filter=" + filter), "limit max-regex-program");
        assertRefused(weft.get(path + "?filter=" + filter, "Accept", "application/x-ndjson"), "limit max-regex-program");
        assertRefused(weft.get(path + "/_size?filter=" + filter), "limit max-regex-program");
        assertRefused(weft.patch(path + "/*?filter=" + filter, "{\"$set\":{\"b\":1}}"), "limit max-regex-program");
        assertRefused(weft.delete(path + "/*?filter=" + filter), "limit max-regex-program");
        assertRefused(weft.get(path + "?filter=" + q("{\"a\":{\"$in\":[{\"$regex\":\"" + REGEX_BOMB + "\"}]}}")),
                "limit max-regex-program");
        assertRefused(weft.get(path + "/_streams?filter=" + filter, "Accept", "text/event-stream"), "limit max-regex-program");
        assertRefused(weft.put("/db/regex-streams", "{\"streams\":[{\"uri\":\"s\",\"stages\":[{\"$match\":"
                + "{\"a\":{\"$regex\":\"" + REGEX_BOMB + "\"}}}]}]}"), "limit max-regex-program");
        assertRefused(weft.post("/weft/acl", "{\"_id\":\"bomb\",\"roles\":[\"user\"],\"predicate\":\"path-prefix('/db')\","
                + "\"readFilter\":{\"a\":{\"$regex\":\"" + REGEX_BOMB + "\"}}}"), "limit max-regex-program");
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(millis).as("ten refusals, none compiling the program").isLessThan(5_000);
        assertThat(weft.get("/db/regex-streams").statusCode()).isEqualTo(404);
        assertThat(weft.get("/weft/acl/bomb").statusCode()).isEqualTo(404);
        assertThat(contents(path)).isEqualTo(before);
        assertThat(weft.get(path + "?filter=" + q("{\"a\":{\"$regex\":\"^(a{3}){1,50}$\"}}")).body()).contains("\"seed\"");
    }

    // --- 6: numbers no store can compare ----------------------------------------------------

    @Test
    void aNumberBeyondADoubleIsRefusedOnEveryEntry() throws Exception {
        String path = seeded("numbers");
        String before = contents(path);
        for (String number : new String[] {HUGE_INTEGER, "-" + HUGE_INTEGER, "1e999", "-1e999", "1.5e400"}) {
            assertRefused(weft.post(path, "{\"n\":" + number + "}"), "request body holds a number beyond the range of a double");
            assertRefused(weft.post(path, "[{\"_id\":\"ok\"},{\"n\":[" + number + "]}]"), "beyond the range of a double");
            assertRefused(weft.put(path + "/seed", "{\"n\":" + number + "}"), "beyond the range of a double");
            assertRefused(weft.put(path + "/new?wm=upsert", "{\"n\":" + number + "}"), "beyond the range of a double");
            assertRefused(weft.patch(path + "/seed", "{\"$set\":{\"n\":" + number + "}}"), "beyond the range of a double");
            assertRefused(weft.patch(path + "/new?wm=upsert", "{\"$inc\":{\"n\":" + number + "}}"), "beyond the range of a double");
            assertRefused(weft.patch(path + "/*?filter=" + q("{}"), "{\"$set\":{\"n\":" + number + "}}"), "beyond the range of a double");
            assertRefused(weft.get(path + "?filter=" + q("{\"n\":{\"$gt\":" + number + "}}")),
                    "query parameter filter holds a number beyond the range of a double");
            assertRefused(weft.post("/weft/acl", "{\"_id\":\"big\",\"roles\":[\"user\"],\"predicate\":\"path-prefix('/db')\","
                    + "\"readFilter\":{\"n\":" + number + "}}"), "beyond the range of a double");
        }
        HttpResponse<String> lines = ndjson(path, "{\"_id\":\"l1\"}\n{\"n\":" + HUGE_INTEGER + "}\n{\"n\":1e999}\n");
        assertThat(lines.statusCode()).isEqualTo(200);
        assertThat(lines.body()).contains("\"inserted\":1,\"failed\":2", "\"line\":2", "\"line\":3",
                "line 2 holds a number beyond the range of a double");
        assertThat(weft.delete(path + "/l1").statusCode()).isEqualTo(204);
        assertThat(contents(path)).isEqualTo(before);
        assertThat(weft.get("/weft/acl/big").statusCode()).isEqualTo(404);
    }

    @Test
    void anIntegerBeyond64BitsIsStoredAsADoubleAndStaysComparableSortableIndexable() throws Exception {
        String path = seeded("wide");
        assertThat(weft.post(path, "{\"_id\":\"w\",\"n\":123456789012345678901234567890}").statusCode()).isEqualTo(201);
        assertThat(weft.post(path, "{\"_id\":\"d\",\"n\":1e300}").statusCode()).isEqualTo(201);
        assertThat(weft.get(path + "/w").body()).contains("\"n\":1.2345678901234568E29");
        String d = weft.get(path + "/d").body();
        assertRefused(weft.patch(path + "/d", "{\"$mul\":{\"n\":1e10}}"), "$mul", "the result is beyond the range of a double");
        assertRefused(weft.patch(path + "/d", "{\"$mul\":{\"n\":-1e10}}"), "$mul", "the result is beyond the range of a double");
        assertThat(weft.get(path + "/d").body()).isEqualTo(d);
        assertThat(weft.get(path + "?filter=" + q("{\"n\":{\"$gt\":1}}") + "&sort=" + q("{\"n\":-1}")
                + "&keys=" + q("{\"_id\":1}")).body()).isEqualTo("[{\"_id\":\"d\"},{\"_id\":\"w\"}]");
        assertThat(weft.put(path + "/_indexes/byN", "{\"keys\":{\"n\":1}}").statusCode()).isEqualTo(201);
        assertThat(weft.get(path + "?filter=" + q("{\"n\":{\"$gte\":1.2345678901234568E29}}") + "&keys=" + q("{\"_id\":1}")
                + "&hint=" + q("{\"n\":1}")).body()).as("in index order").isEqualTo("[{\"_id\":\"w\"},{\"_id\":\"d\"}]");
    }

    // --- 21.6: strings PostgreSQL refuses ----------------------------------------------------

    @Test
    void nulAndLoneSurrogatesAre400OnBothStoresInValuesKeysIdsAndQueries() throws Exception {
        String path = seeded("strings");
        String before = contents(path);
        for (String bad : new String[] {"\\u0000", "a\\u0000b", "\\ud800", "x\\udc00", "\\ud800x"}) {
            assertRefused(weft.post(path, "{\"a\":\"" + bad + "\"}"), "request body holds", "which cannot be stored");
            assertRefused(weft.post(path, "{\"" + bad + "\":1}"), "request body"); // Jackson refuses some itself
            assertRefused(weft.post(path, "{\"_id\":\"" + bad + "\"}"), "which cannot be stored");
            assertRefused(weft.post(path, "{\"a\":{\"b\":[\"" + bad + "\"]}}"), "which cannot be stored");
            assertRefused(weft.put(path + "/seed", "{\"a\":\"" + bad + "\"}"), "which cannot be stored");
            assertRefused(weft.patch(path + "/seed", "{\"$set\":{\"a\":\"" + bad + "\"}}"), "which cannot be stored");
            assertRefused(weft.patch(path + "/*?filter=" + q("{}"), "{\"$set\":{\"a\":\"" + bad + "\"}}"),
                    "which cannot be stored");
            assertRefused(weft.get(path + "?filter=" + q("{\"a\":\"" + bad + "\"}")), "query parameter filter holds");
            assertRefused(weft.get(path + "?filter=" + q("{\"" + bad + "\":1}")), "which cannot be stored");
            assertRefused(weft.get(path + "?keys=" + q("{\"" + bad + "\":1}")), "which cannot be stored");
            assertRefused(weft.get(path + "?sort=" + q("{\"" + bad + "\":1}")), "which cannot be stored");
        }
        // Jetty refuses an encoded NUL in a path before any route (its own HTML 400, closing the
        // connection: a client of its own, so that the shared one does not reuse it).
        try (HttpClient once = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            HttpResponse<String> r = once.send(weft.request(path + "/a%00b?wm=upsert").PUT(HttpRequest.BodyPublishers.ofString("{}"))
                    .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(400);
        }
        assertThat(weft.post(path, "{\"_id\":\"pair\",\"a\":\"\\ud83d\\ude00\"}").statusCode()).as("a surrogate pair is fine").isEqualTo(201);
        assertThat(weft.get(path + "/pair").body()).contains("\"a\":\"\uD83D\uDE00\"");
        assertThat(weft.delete(path + "/pair").statusCode()).isEqualTo(204);
        assertThat(contents(path)).isEqualTo(before);
    }

    @Test
    void anOverlongUtf8NulIsRefusedToo() throws Exception {
        String path = seeded("overlong");
        byte[] body = {'{', '"', 'a', '"', ':', '"', (byte) 0xC0, (byte) 0x80, '"', '}'};
        HttpResponse<String> r = weft.client.send(weft.request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertRefused(r, "U+0000");
    }

    @Test
    void ndjsonReportsAnUnstorableLineAndKeepsEveryOtherLine() throws Exception {
        String path = seeded("ndjson-strings");
        String body = IntStream.rangeClosed(1, 1500)
                .mapToObj(i -> i == 1200 ? "{\"_id\":1200,\"a\":\"nul\\u0000\"}" : "{\"_id\":" + i + "}")
                .collect(Collectors.joining("\n"));
        HttpResponse<String> r = ndjson(path, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("{\"inserted\":1499,\"failed\":1,\"errors\":[{\"line\":1200,\"message\":"
                + "\"line 1200 holds U+0000 in a string or field name, which cannot be stored\"}]}");
        assertThat(weft.get(path + "/_size").body()).isEqualTo("{\"_size\":1500}"); // 1499 and the seed
        assertThat(weft.get(path + "/1200?id_type=NUMBER").statusCode()).isEqualTo(404);
        assertThat(weft.get(path + "/1201?id_type=NUMBER").statusCode()).isEqualTo(200);
    }

    @Test
    void aDatabaseRefusalIsNeverItsTextNorAnOutage() throws Exception {
        String path = seeded("bigkeys");
        assertThat(weft.put(path + "/_indexes/byBig", "{\"keys\":{\"big\":1}}").statusCode()).isEqualTo(201);
        // Random text: PostgreSQL compresses an index entry, and 32 KB of one letter would fit.
        String random = IntStream.range(0, 400).mapToObj(i -> java.util.UUID.randomUUID().toString()).collect(Collectors.joining());
        String big = "{\"_id\":\"big\",\"big\":\"" + random + "\"}";
        HttpResponse<String> r = weft.post(path, big);
        if (weft.pgSchema == null) {
            assertThat(r.statusCode()).as("SQLite indexes any key").isEqualTo(201);
        } else {
            // A btree entry is at most ~2.7 KB in PostgreSQL (SQLSTATE 54000): the request's fault, not an outage.
            assertRefused(r, "PostgreSQL cannot store or compare a value of this request (SQLSTATE 54000)");
            assertThat(r.body()).doesNotContain("index row", "btree");
            assertThat(weft.get(path + "/big").statusCode()).isEqualTo(404);
        }
    }

    // --- 9: ids and names nobody could address ---------------------------------------------

    @Test
    void idsThatCannotBeStoredOrAddressedAre400OnEveryWritePath() throws Exception {
        String path = seeded("ids");
        String before = contents(path);
        String longId = "\"" + "x".repeat(20_000) + "\"";
        String[][] cases = {
            {"{\"$gt\":1}", "may not contain a field starting with '$' ($gt)"},
            {"{\"a\":{\"$in\":[1]}}", "may not contain a field starting with '$' ($in)"},
            {"[1,2]", "_id may not be an array"},
            {"null", "_id may not be an array or null"},
            {"\"a/b\"", "_id may not contain '/'"},
            {longId, "limit max-id-bytes"},
        };
        for (String[] c : cases) {
            String id = c[0];
            assertRefused(weft.post(path, "{\"_id\":" + id + "}"), c[1]);
            assertRefused(weft.post(path, "[{\"_id\":\"fine\"},{\"_id\":" + id + "}]"), c[1]);
            assertRefused(weft.post(path + "?wm=upsert", "{\"_id\":" + id + "}"), c[1]);
            HttpResponse<String> lines = ndjson(path, "{\"_id\":\"l1\"}\n{\"_id\":" + id + "}\n");
            assertThat(lines.body()).contains("\"inserted\":1,\"failed\":1", "\"line\":2", c[1]);
            assertThat(weft.delete(path + "/l1").statusCode()).isEqualTo(204);
        }
        String tooLongForPath = "y".repeat(1100);
        assertRefused(weft.put(path + "/" + tooLongForPath + "?wm=upsert", "{}"), "limit max-id-bytes");
        assertRefused(weft.patch(path + "/" + tooLongForPath + "?wm=upsert", "{\"$set\":{\"a\":1}}"), "limit max-id-bytes");
        assertThat(contents(path)).isEqualTo(before);

        HttpResponse<String> dated = weft.post(path, "{\"_id\":{\"$date\":1700000000000}}");
        assertThat(dated.statusCode()).as("a date is a value, not an operator").isEqualTo(201);
        assertThat(weft.get(pathOf(dated.headers().firstValue("Location").orElseThrow())).statusCode()).isEqualTo(200);
        String justFits = "z".repeat(1022);
        HttpResponse<String> fits = weft.post(path, "{\"_id\":\"" + justFits + "\"}");
        assertThat(fits.statusCode()).as("1022 characters and two quotes: 1024 bytes").isEqualTo(201);
        assertThat(weft.get(pathOf(fits.headers().firstValue("Location").orElseThrow())).statusCode()).isEqualTo(200);
    }

    @Test
    void aUserNameWithAColonIsRefusedOnEveryWritePath() throws Exception {
        String user = "{\"_id\":\"eve:x\",\"password\":\"eve-Password-1\",\"roles\":[\"user\"]}";
        String named = "a user's name may not contain ':'";
        assertRefused(weft.post("/weft/users", user), named);
        assertRefused(weft.post("/weft/users", "[" + user + "]"), named);
        assertRefused(weft.put("/weft/users/eve:x?wm=upsert", "{\"password\":\"eve-Password-1\"}"), named);
        assertRefused(weft.patch("/weft/users/eve:x?wm=upsert", "{\"$set\":{\"password\":\"eve-Password-1\"}}"), named);
        assertThat(ndjson("/weft/users", user + "\n").body()).contains("\"inserted\":0,\"failed\":1", named);
        assertThat(weft.get("/weft/users/eve:x").statusCode()).isEqualTo(404);
    }

    /** The path and query of an absolute {@code Location}, to request it from the test server. */
    private static String pathOf(String location) {
        java.net.URI uri = java.net.URI.create(location);
        return uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    }
}
