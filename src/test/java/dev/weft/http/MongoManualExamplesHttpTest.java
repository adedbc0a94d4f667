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

    static final String INVENTORY = "[{\"_id\":1,\"item\":\"journal\",\"status\":\"A\",\"size\":{\"h\":14,\"w\":21,\"uom\":\"cm\"},"
            + "\"instock\":[{\"warehouse\":\"A\",\"qty\":5}]},"
            + "{\"_id\":2,\"item\":\"postcard\",\"status\":\"A\",\"size\":{\"h\":10,\"w\":15.25,\"uom\":\"cm\"},"
            + "\"instock\":[{\"warehouse\":\"B\",\"qty\":15},{\"warehouse\":\"C\",\"qty\":35}]}]";

    // "Project Fields to Return from Query": embedded fields, nested form (4.4+), $slice.
    @Test
    void nestedProjectionFormEqualsTheDottedOne() throws Exception {
        String c = collection("inventory", INVENTORY);
        String byId = "&sort=" + q("{\"_id\":1}");
        String dotted = found(c + "?keys=" + q("{\"item\":1,\"status\":1,\"size.uom\":1}") + byId);
        assertThat(dotted).isEqualTo("[{\"_id\":1,\"item\":\"journal\",\"status\":\"A\",\"size\":{\"uom\":\"cm\"}},"
                + "{\"_id\":2,\"item\":\"postcard\",\"status\":\"A\",\"size\":{\"uom\":\"cm\"}}]");
        assertThat(found(c + "?keys=" + q("{\"item\":1,\"status\":1,\"size\":{\"uom\":1}}") + byId)).isEqualTo(dotted);
        assertThat(found(c + "/1?id_type=NUMBER&keys=" + q("{\"size\":{\"uom\":0},\"instock\":0}")))
                .isEqualTo("{\"_id\":1,\"item\":\"journal\",\"status\":\"A\",\"size\":{\"h\":14,\"w\":21}}");
        assertThat(found(c + "?keys=" + q("{\"item\":1,\"status\":1,\"instock\":{\"$slice\":-1}}") + byId))
                .isEqualTo("[{\"_id\":1,\"item\":\"journal\",\"status\":\"A\",\"instock\":[{\"warehouse\":\"A\",\"qty\":5}]},"
                        + "{\"_id\":2,\"item\":\"postcard\",\"status\":\"A\",\"instock\":[{\"warehouse\":\"C\",\"qty\":35}]}]");
    }

    // $slice (projection) manual: the posts collection.
    @Test
    void sliceProjection() throws Exception {
        String c = collection("posts", "[{\"_id\":2,\"title\":\"Coffee please.\",\"comments\":[{\"comment\":\"0. fooey\"},"
                + "{\"comment\":\"1. tea please\"},{\"comment\":\"2. iced coffee\"},{\"comment\":\"3. cappuccino\"},"
                + "{\"comment\":\"4. whatever\"}]}]");
        assertThat(found(c + "/2?id_type=NUMBER&keys=" + q("{\"comments\":{\"$slice\":3}}"))).isEqualTo("{\"_id\":2,"
                + "\"title\":\"Coffee please.\",\"comments\":[{\"comment\":\"0. fooey\"},{\"comment\":\"1. tea please\"},"
                + "{\"comment\":\"2. iced coffee\"}]}");
        assertThat(found(c + "/2?id_type=NUMBER&keys=" + q("{\"comments\":{\"$slice\":[-1,1]},\"title\":0}")))
                .isEqualTo("{\"_id\":2,\"comments\":[{\"comment\":\"4. whatever\"}]}");
        assertThat(found(c + "/2?id_type=NUMBER&keys=" + q("{\"comments\":{\"$slice\":[1,2]},\"_id\":0,\"title\":0}")))
                .isEqualTo("{\"comments\":[{\"comment\":\"1. tea please\"},{\"comment\":\"2. iced coffee\"}]}");
        HttpResponse<String> bad = weft.get(c + "?keys=" + q("{\"comments\":{\"$slice\":[1,0]}}"));
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(error(bad)).contains("positive limit");
    }

    // $elemMatch (projection) manual: the schools collection.
    @Test
    void elemMatchProjection() throws Exception {
        String c = collection("schools", "[{\"_id\":1,\"zipcode\":\"63109\",\"students\":[{\"name\":\"john\",\"school\":102,\"age\":10},"
                + "{\"name\":\"jess\",\"school\":102,\"age\":11},{\"name\":\"jeff\",\"school\":108,\"age\":15}]},"
                + "{\"_id\":2,\"zipcode\":\"63110\",\"students\":[{\"name\":\"ajax\",\"school\":100,\"age\":7},"
                + "{\"name\":\"achilles\",\"school\":100,\"age\":8}]},"
                + "{\"_id\":3,\"zipcode\":\"63109\",\"students\":[{\"name\":\"ajax\",\"school\":100,\"age\":7},"
                + "{\"name\":\"achilles\",\"school\":100,\"age\":8}]},"
                + "{\"_id\":4,\"zipcode\":\"63109\",\"students\":[{\"name\":\"barney\",\"school\":102,\"age\":7},"
                + "{\"name\":\"ruth\",\"school\":102,\"age\":16}]}]");
        String query = c + "?sort=" + q("{\"_id\":1}") + "&filter=" + q("{\"zipcode\":\"63109\"}");
        assertThat(found(query + "&keys=" + q("{\"students\":{\"$elemMatch\":{\"school\":102}}}"))).isEqualTo(
                "[{\"_id\":1,\"students\":[{\"name\":\"john\",\"school\":102,\"age\":10}]},{\"_id\":3},"
                        + "{\"_id\":4,\"students\":[{\"name\":\"barney\",\"school\":102,\"age\":7}]}]");
        assertThat(found(query + "&keys=" + q("{\"students\":{\"$elemMatch\":{\"school\":102,\"age\":{\"$gt\":10}}}}")))
                .isEqualTo("[{\"_id\":1,\"students\":[{\"name\":\"jess\",\"school\":102,\"age\":11}]},{\"_id\":3},"
                        + "{\"_id\":4,\"students\":[{\"name\":\"ruth\",\"school\":102,\"age\":16}]}]");
    }

    static final String STUDENTS = "[{\"_id\":1,\"semester\":1,\"grades\":[70,87,90]},{\"_id\":2,\"semester\":1,\"grades\":[90,88,92]},"
            + "{\"_id\":3,\"semester\":1,\"grades\":[85,100,90]},{\"_id\":4,\"semester\":2,\"grades\":[79,85,80]},"
            + "{\"_id\":5,\"semester\":2,\"grades\":[88,88,92]},{\"_id\":6,\"semester\":2,\"grades\":[95,90,96]}]";

    // Positional $ (projection) manual: the students collection.
    @Test
    void positionalProjection() throws Exception {
        String c = collection("students", STUDENTS);
        assertThat(found(c + "?sort=" + q("{\"_id\":1}") + "&filter=" + q("{\"semester\":1,\"grades\":{\"$gte\":85}}")
                + "&keys=" + q("{\"grades.$\":1}")))
                .isEqualTo("[{\"_id\":1,\"grades\":[87]},{\"_id\":2,\"grades\":[90]},{\"_id\":3,\"grades\":[85]}]");
        HttpResponse<String> noCondition = weft.get(c + "?keys=" + q("{\"grades.$\":1}"));
        assertThat(noCondition.statusCode()).isEqualTo(400);
        assertThat(error(noCondition)).contains("no condition on 'grades'");
    }

    static void patched(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    // Positional $ (update) manual: by-id PATCH with a filter, and the bulk route.
    @Test
    void positionalUpdateOfTheElementTheFilterFound() throws Exception {
        String c = collection("posupdate", "[{\"_id\":1,\"grades\":[85,80,80]},{\"_id\":2,\"grades\":[88,90,92]},"
                + "{\"_id\":4,\"grades\":[{\"grade\":80,\"mean\":75,\"std\":8},{\"grade\":85,\"mean\":90,\"std\":5},"
                + "{\"grade\":85,\"mean\":85,\"std\":8}]}]");
        patched(weft.patch(c + "/1?id_type=NUMBER&filter=" + q("{\"grades\":80}"), "{\"$set\":{\"grades.$\":82}}"));
        assertThat(found(c + "/1?id_type=NUMBER")).isEqualTo("{\"_id\":1,\"grades\":[85,82,80]}");
        patched(weft.patch(c + "/*?filter=" + q("{\"grades.grade\":85}"), "{\"$set\":{\"grades.$.std\":6}}"));
        assertThat(found(c + "/4?id_type=NUMBER")).isEqualTo("{\"_id\":4,\"grades\":[{\"grade\":80,\"mean\":75,\"std\":8},"
                + "{\"grade\":85,\"mean\":90,\"std\":6},{\"grade\":85,\"mean\":85,\"std\":8}]}");
        HttpResponse<String> noMatch = weft.patch(c + "/2?id_type=NUMBER&filter=" + q("{\"grades\":80}"), "{\"$set\":{\"grades.$\":1}}");
        assertThat(noMatch.statusCode()).isEqualTo(400);
        assertThat(error(noMatch)).contains("did not find the match needed from the query");
        HttpResponse<String> noFilter = weft.patch(c + "/2?id_type=NUMBER", "{\"$set\":{\"grades.$\":1}}");
        assertThat(noFilter.statusCode()).isEqualTo(400);
        assertThat(found(c + "/2?id_type=NUMBER")).isEqualTo("{\"_id\":2,\"grades\":[88,90,92]}");
    }

    // $[] and $[<identifier>] manuals: every element, and the elements arrayFilters match (nested too).
    @Test
    void allPositionalAndFilteredPositionalUpdates() throws Exception {
        String c = collection("allpos", "[{\"_id\":1,\"grades\":[85,82,80]},{\"_id\":2,\"grades\":[88,90,92]},"
                + "{\"_id\":3,\"grades\":[85,100,90]}]");
        String all = c + "/*?filter=" + q("{\"_id\":{\"$gte\":1}}");
        patched(weft.patch(all, "{\"$inc\":{\"grades.$[]\":10}}"));
        String byId = c + "?sort=" + q("{\"_id\":1}");
        assertThat(found(byId)).isEqualTo("[{\"_id\":1,\"grades\":[95,92,90]},{\"_id\":2,\"grades\":[98,100,102]},"
                + "{\"_id\":3,\"grades\":[95,110,100]}]");
        patched(weft.patch(all + "&arrayFilters=" + q("[{\"element\":{\"$gte\":100}}]"), "{\"$set\":{\"grades.$[element]\":100}}"));
        assertThat(found(byId)).isEqualTo("[{\"_id\":1,\"grades\":[95,92,90]},{\"_id\":2,\"grades\":[98,100,100]},"
                + "{\"_id\":3,\"grades\":[95,100,100]}]");
        HttpResponse<String> unknown = weft.patch(all, "{\"$set\":{\"grades.$[x]\":1}}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(error(unknown)).contains("no array filter found for identifier 'x'");

        String n = collection("nestedpos", "[{\"_id\":1,\"grades\":[{\"type\":\"quiz\",\"questions\":[10,8,5]},"
                + "{\"type\":\"quiz\",\"questions\":[8,9,6]},{\"type\":\"hw\",\"questions\":[5,4,3]},"
                + "{\"type\":\"exam\",\"questions\":[25,10,23,0]}]}]");
        patched(weft.patch(n + "/1?id_type=NUMBER&arrayFilters=" + q("[{\"t.type\":\"quiz\"},{\"score\":{\"$gte\":8}}]"),
                "{\"$inc\":{\"grades.$[t].questions.$[score]\":2}}"));
        assertThat(found(n + "/1?id_type=NUMBER")).isEqualTo("{\"_id\":1,\"grades\":[{\"type\":\"quiz\",\"questions\":[12,10,5]},"
                + "{\"type\":\"quiz\",\"questions\":[10,11,6]},{\"type\":\"hw\",\"questions\":[5,4,3]},"
                + "{\"type\":\"exam\",\"questions\":[25,10,23,0]}]}");
    }

    /** A positional update names its array's elements; protectedFields inside them stay out of reach. */
    @Test
    void positionalUpdatesCannotReachProtectedFields() throws Exception {
        AuthorizationMatrixTest.users(weft);
        assertThat(weft.put("/db/shop", null).statusCode()).isEqualTo(201);
        HttpResponse<String> rules = weft.post("/weft/acl", "[{\"_id\":\"shop\",\"roles\":[\"user\"],"
                + "\"predicate\":\"path-prefix('/db/shop')\",\"protectedFields\":[\"items.price\"],\"allowBulkPatch\":true,"
                + "\"projectResponse\":{\"items.secret\":0}}]");
        assertThat(rules.statusCode()).as(rules.body()).isEqualTo(200);
        assertThat(weft.post("/db/shop", "{\"_id\":\"s1\",\"items\":[{\"price\":5,\"qty\":1}]}").statusCode()).isEqualTo(201);
        String filter = "?filter=" + q("{\"items.qty\":1}");
        String byItem = "&arrayFilters=" + q("[{\"i.qty\":1}]");
        for (String[] request : new String[][] {
                {"/db/shop/s1" + filter, "{\"$set\":{\"items.$\":{\"qty\":1}}}"},
                {"/db/shop/*" + filter, "{\"$inc\":{\"items.$.price\":-5}}"},
                {"/db/shop/*" + filter + byItem, "{\"$mul\":{\"items.$[i].price\":0}}"},
                {"/db/shop/s1?x=1" + byItem, "{\"$unset\":{\"items.$[i].price\":1}}"}}) {
            HttpResponse<String> r = AuthorizationMatrixTest.send(weft, "alice", "PATCH", request[0], request[1]);
            assertThat(r.statusCode()).as(request[0] + " " + request[1] + ": " + r.body()).isEqualTo(403);
            assertThat(r.body()).contains("items.price");
        }
        HttpResponse<String> probe = AuthorizationMatrixTest.send(weft, "alice", "PATCH",
                "/db/shop/s1?arrayFilters=" + q("[{\"i.secret\":1}]"), "{\"$set\":{\"items.$[i].seen\":true}}");
        assertThat(probe.statusCode()).as(probe.body()).isEqualTo(403);
        assertThat(error(probe)).contains("items.secret");
        patched(AuthorizationMatrixTest.send(weft, "alice", "PATCH", "/db/shop/*" + filter + byItem, "{\"$inc\":{\"items.$[i].qty\":1}}"));
        assertThat(found("/db/shop/s1")).isEqualTo("{\"_id\":\"s1\",\"items\":[{\"price\":5,\"qty\":2}]}");
    }

    // $currentDate manual: a date and a timestamp in one update.
    @Test
    void currentDateAsDateAndTimestamp() throws Exception {
        String c = collection("customers", "[{\"_id\":1,\"status\":\"a\",\"lastModified\":{\"$date\":\"2013-10-02T01:11:18.965Z\"}}]");
        long before = System.currentTimeMillis();
        patched(weft.patch(c + "/1?id_type=NUMBER", "{\"$currentDate\":{\"lastModified\":true,\"cancellation.date\":{\"$type\":\"timestamp\"}},"
                + "\"$set\":{\"cancellation.reason\":\"user request\",\"status\":\"D\"}}"));
        JsonNode doc = json(weft.get(c + "/1?id_type=NUMBER"));
        assertThat(doc.get("status").asString()).isEqualTo("D");
        assertThat(doc.get("lastModified").get("$date").isNumber() ? doc.get("lastModified").get("$date").longValue()
                : java.time.Instant.parse(doc.get("lastModified").get("$date").asString()).toEpochMilli())
                .isBetween(before, System.currentTimeMillis());
        assertThat(doc.get("cancellation").get("reason").asString()).isEqualTo("user request");
        JsonNode timestamp = doc.get("cancellation").get("date").get("$timestamp");
        assertThat(timestamp.get("t").longValue()).isBetween(before / 1000, System.currentTimeMillis() / 1000);
        assertThat(timestamp.get("i").longValue()).isPositive();
    }
}
