package dev.weft.http;

import static dev.weft.http.StreamAccessTest.upgradeStatus;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Events;
import dev.weft.http.StreamClients.Sse;
import dev.weft.http.StreamClients.Ws;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What a change stream may show, through the HTTP API, over SSE and WebSocket: a resumed stream
 * shows exactly what the live feed would (its collection, its access rule, the collection's
 * document policy), whatever the token; no stream shows a password hash; a dropped collection
 * ends its streams with {@code drop} and {@code invalidate} and refuses older tokens; a stream
 * variable is bound as a value, never as an operator.
 *
 * <p>carol's one rule is {@code path-prefix('/hdb/own')}; dave's is the same with
 * {@code readFilter {"owner": "@user._id"}} and {@code projectResponse {"secret": 0}}. Only
 * {@link #start} writes to {@code /hdb/own}, so its events are known exactly.
 */
class StreamVisibilityTest {
    private static final String TOKEN_ZERO = "0000000000000000";
    private static final String CAROL = TestServer.basic("carol", "carol-Password-1");
    private static final String DAVE = TestServer.basic("dave", "dave-Password-1");
    /** Every event of /hdb/own, in order, as (operationType, _id). */
    private static final List<String> OWN_EVENTS = List.of("insert c1", "insert d1", "update d1", "insert x1");

    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        created(weft.post("/weft/users", "{\"_id\":\"carol\",\"password\":\"carol-Password-1\",\"roles\":[\"own\"]}"));
        created(weft.put("/hdb", null));
        created(weft.put("/hdb/own", null));
        created(weft.put("/hdb/other", null));
        created(weft.post("/hdb/other", "{\"_id\":\"o1\",\"text\":\"other-text\"}"));
        ok(weft.post("/hdb/own", "[{\"_id\":\"c1\",\"owner\":\"carol\",\"text\":\"c\"},"
                + "{\"_id\":\"d1\",\"owner\":\"dave\",\"text\":\"d\",\"secret\":\"dave-secret\"}]"));
        created(weft.post("/weft/users", "{\"_id\":\"dave\",\"password\":\"dave-Password-1\",\"roles\":[\"ownf\"]}"));
        ok(weft.patch("/hdb/own/d1", "{\"$set\":{\"secret\":\"dave-secret-2\",\"text\":\"d2\"}}"));
        ok(weft.post("/weft/acl", """
                [{"_id":"own-only","roles":["own"],"priority":10,"predicate":"path-prefix('/hdb/own')"},
                 {"_id":"own-filtered","roles":["ownf"],"priority":10,"predicate":"path-prefix('/hdb/own')",
                  "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0}}]"""));
        created(weft.post("/hdb/own", "{\"_id\":\"x1\",\"owner\":\"someone\",\"text\":\"x\",\"secret\":\"x-secret\"}"));
        created(weft.post("/hdb/other", "{\"_id\":\"o2\",\"text\":\"other-text-2\",\"owner\":\"dave\"}"));
        assertThat(weft.get("/hdb/other", "Authorization", CAROL).statusCode()).isEqualTo(403);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    private static void created(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private static void ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    /** Every event that arrives until none has for {@code quietMs}. */
    private static List<JsonNode> drain(Events events, long quietMs) throws InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode e; (e = events.poll(quietMs)) != null; ) {
            out.add(e);
        }
        return out;
    }

    private static List<String> summary(List<JsonNode> events) {
        return events.stream().map(e -> e.get("operationType").asString() + " " + e.get("documentKey").get("_id").asString())
                .toList();
    }

    private static void assertNothingForeign(List<JsonNode> events) {
        for (JsonNode e : events) {
            assertThat(e.get("ns").get("db").asString()).as(e.toString()).isEqualTo("hdb");
            assertThat(e.get("ns").get("coll").asString()).as(e.toString()).isEqualTo("own");
            assertThat(e.toString()).doesNotContain("password").doesNotContain("$2");
        }
    }

    /** Opening the stream over SSE and over WebSocket is refused with {@code status}; the SSE body contains {@code words}. */
    private static void refused(String pathAndQuery, int status, String... words) throws Exception {
        try (Sse sse = Sse.open(weft, pathAndQuery)) {
            assertThat(sse.status()).as(pathAndQuery).isEqualTo(status);
            assertThat(sse.body()).contains(words);
        }
        assertThat(upgradeStatus(weft, pathAndQuery, TestServer.ADMIN)).as(pathAndQuery).isEqualTo(status);
    }

    private static Sse sse(String pathAndQuery, String authorization, String... more) throws Exception {
        List<String> headers = new ArrayList<>(List.of("Authorization", authorization));
        headers.addAll(List.of(more));
        Sse sse = Sse.open(weft, pathAndQuery, headers.toArray(String[]::new));
        assertThat(sse.status()).isEqualTo(200);
        return sse;
    }

    // --- 1: a resumed stream replays only what the subscriber may read --------------------------

    @Test
    void aPathPrefixUserResumingFromTokenZeroGetsOnlyItsCollectionOverSseAndWebSocket() throws Exception {
        try (Sse byHeader = sse("/hdb/own/_streams", CAROL, "Last-Event-ID", TOKEN_ZERO);
             Sse byParam = sse("/hdb/own/_streams?resumeAfter=0000000000000001", CAROL);
             Ws ws = Ws.open(weft, "/hdb/own/_streams?resumeAfter=" + TOKEN_ZERO, true, CAROL)) {
            for (Events stream : List.of(byHeader, byParam, ws)) {
                List<JsonNode> events = drain(stream, 700);
                assertThat(summary(events)).isEqualTo(OWN_EVENTS);
                assertNothingForeign(events);
            }
        }
    }

    @Test
    void aUserWithReadFilterAndProjectionResumingFromTokenZeroGetsOnlyWhatItsRuleShows() throws Exception {
        try (Sse sse = sse("/hdb/own/_streams", DAVE, "Last-Event-ID", TOKEN_ZERO);
             Ws ws = Ws.open(weft, "/hdb/own/_streams?resumeAfter=" + TOKEN_ZERO, true, DAVE)) {
            for (Events stream : List.of(sse, ws)) {
                List<JsonNode> events = drain(stream, 700);
                assertThat(summary(events)).isEqualTo(List.of("insert d1", "update d1"));
                assertNothingForeign(events);
                assertThat(events.toString()).doesNotContain("secret");
                assertThat(events.get(1).get("updateDescription").get("updatedFields").get("text").asString()).isEqualTo("d2");
            }
        }
    }

    // --- 2: password hashes never leave through a stream -----------------------------------------

    @Test
    void theUsersCollectionsStreamCarriesNoPasswordLiveOrReplayed() throws Exception {
        try (Ws live = Ws.open(weft, "/weft/users/_streams");
             Sse liveSse = sse("/weft/users/_streams", TestServer.ADMIN)) {
            created(weft.post("/weft/users", "{\"_id\":\"erin\",\"password\":\"erin-Password-1\",\"roles\":[\"x\"]}"));
            ok(weft.patch("/weft/users/erin", "{\"password\":\"erin-Password-2\"}"));
            ok(weft.patch("/weft/users/erin", "{\"$set\":{\"password\":\"erin-Password-3\",\"roles\":[\"y\"]}}"));
            ok(weft.put("/weft/users/erin", "{\"password\":\"erin-Password-4\",\"roles\":[\"z\"]}"));
            for (Events stream : List.of(live, liveSse)) {
                List<JsonNode> events = StreamClients.take(stream, 4);
                assertThat(events.stream().map(e -> e.get("operationType").asString()).toList())
                        .containsExactly("insert", "update", "update", "replace");
                assertThat(events.get(0).get("fullDocument").get("roles").get(0).asString()).isEqualTo("x");
                assertThat(events.get(2).get("updateDescription").get("updatedFields").get("roles").get(0).asString())
                        .isEqualTo("y");
                assertThat(events.toString()).doesNotContain("password").doesNotContain("$2");
            }
        }
        try (Ws replay = Ws.open(weft, "/weft/users/_streams?resumeAfter=" + TOKEN_ZERO);
             Sse replaySse = sse("/weft/users/_streams", TestServer.ADMIN, "Last-Event-ID", TOKEN_ZERO)) {
            for (Events stream : List.of(replay, replaySse)) {
                List<JsonNode> events = drain(stream, 700);
                assertThat(events).as("admin, carol, dave, erin x4").hasSizeGreaterThanOrEqualTo(7);
                assertThat(events.toString()).doesNotContain("password").doesNotContain("$2");
            }
        }
    }

    @Test
    void aStreamFilterOnPasswordIs400AsOnGet() throws Exception {
        HttpResponse<String> put = weft.put("/weft/users", """
                {"streams":[{"uri":"hash","stages":[{"$match":{"fullDocument.password":{"$regex":"^x"}}}]},
                            {"uri":"changed","stages":[{"$match":{"updateDescription.updatedFields.password":{"$exists":true}}}]}]}""");
        ok(put);
        List<String> probes = List.of("/weft/users/_streams?filter=" + q("{\"password\":{\"$regex\":\"^x\"}}"),
                "/weft/users/_streams?filter=" + q("{\"$or\":[{\"_id\":\"a\"},{\"password.x\":1}]}"),
                "/weft/users/_streams/hash", "/weft/users/_streams/changed");
        for (String probe : probes) {
            refused(probe, 400, "password");
        }
        assertThat(weft.get("/weft/users?filter=" + q("{\"password\":{\"$regex\":\"^x\"}}")).statusCode()).isEqualTo(400);
    }

    // --- 11: a drop ends the collection's streams ------------------------------------------------

    @Test
    void droppingACollectionSendsDropThenInvalidateEndsItsStreamsAndRefusesOlderTokens() throws Exception {
        HttpResponse<String> put = weft.put("/hdb/dropme",
                "{\"streams\":[{\"uri\":\"inserts\",\"stages\":[{\"$match\":{\"operationType\":\"insert\"}}]}]}");
        created(put);
        String insertToken = null;
        String dropToken = null;
        try (Ws ws = Ws.open(weft, "/hdb/dropme/_streams");
             Ws inserts = Ws.open(weft, "/hdb/dropme/_streams/inserts");
             Sse sse = sse("/hdb/dropme/_streams", TestServer.ADMIN)) {
            created(weft.post("/hdb/dropme", "{\"_id\":1,\"v\":\"old\"}"));
            drop("/hdb/dropme", put.headers().firstValue("ETag").orElseThrow());
            for (Events stream : List.of(ws, sse)) {
                List<JsonNode> events = StreamClients.take(stream, 3);
                assertThat(events.get(0).get("operationType").asString()).isEqualTo("insert");
                assertDropThenInvalidate(events.get(1), events.get(2), "dropme");
                insertToken = events.get(0).get("_id").get("_data").asString();
                dropToken = events.get(1).get("_id").get("_data").asString();
            }
            assertThat(ws.closed.get(5, TimeUnit.SECONDS)).isEqualTo(1000);
            sse.reader.join(5000);
            assertThat(sse.reader.isAlive()).as("the SSE response ended").isFalse();
            assertThat(inserts.next(5).get("operationType").asString()).isEqualTo("insert");
            assertThat(inserts.next(5).get("operationType").asString()).as("its $match left the drop out").isEqualTo("invalidate");
            assertThat(inserts.closed.get(5, TimeUnit.SECONDS)).isEqualTo(1000);
        }

        created(weft.put("/hdb/dropme", null));
        created(weft.post("/hdb/dropme", "{\"_id\":2,\"v\":\"new\"}"));
        for (String old : List.of(TOKEN_ZERO, insertToken)) {
            refused("/hdb/dropme/_streams?resumeAfter=" + old, 410, "hdb/dropme was dropped", "invalidated");
        }
        try (Ws after = Ws.open(weft, "/hdb/dropme/_streams?resumeAfter=" + dropToken)) {
            JsonNode first = after.next(10);
            assertThat(first.get("documentKey").get("_id").asInt()).as("only the new collection's events").isEqualTo(2);
            assertThat(first.toString()).doesNotContain("old");
        }
    }

    @Test
    void droppingADatabaseSendsDropThenInvalidateToTheStreamsOfEachOfItsCollections() throws Exception {
        created(weft.put("/hdbgone", null));
        created(weft.put("/hdbgone/a", null));
        created(weft.put("/hdbgone/b", null));
        try (Ws a = Ws.open(weft, "/hdbgone/a/_streams");
             Sse b = sse("/hdbgone/b/_streams", TestServer.ADMIN)) {
            drop("/hdbgone", weft.get("/hdbgone").headers().firstValue("ETag").orElseThrow());
            assertDropThenInvalidate(a.next(10), a.next(10), "a");
            assertDropThenInvalidate(b.next(10), b.next(10), "b");
            assertThat(a.closed.get(5, TimeUnit.SECONDS)).isEqualTo(1000);
            b.reader.join(5000);
            assertThat(b.reader.isAlive()).isFalse();
        }
    }

    private static void drop(String path, String etag) throws Exception {
        HttpResponse<String> r = weft.delete(path, "If-Match", etag);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
    }

    private static void assertDropThenInvalidate(JsonNode drop, JsonNode invalidate, String coll) {
        assertThat(drop.get("operationType").asString()).as(drop.toString()).isEqualTo("drop");
        assertThat(drop.get("ns").get("coll").asString()).isEqualTo(coll);
        assertThat(drop.has("documentKey")).isFalse();
        assertThat(drop.get("wallTime").get("$date").isNumber()).isTrue();
        assertThat(invalidate.get("operationType").asString()).as(invalidate.toString()).isEqualTo("invalidate");
        assertThat(invalidate.get("_id")).isEqualTo(drop.get("_id"));
    }

    // --- 12: a stream variable is a value --------------------------------------------------------

    @Test
    void aStreamVariableHoldingAnOperatorIs400AndADollarStringMatchesOnlyItself() throws Exception {
        created(weft.put("/hdb/orders", "{\"streams\":[{\"uri\":\"mine\",\"stages\":"
                + "[{\"$match\":{\"fullDocument.owner\":{\"$var\":\"user\"}}}]}]}"));
        for (String avars : List.of("{\"user\":{\"$ne\":\"zz\"}}", "{\"user\":{\"$regex\":\".*\"}}",
                "{\"user\":{\"a\":[{\"b\":{\"$gt\":1}}]}}")) {
            refused("/hdb/orders/_streams/mine?avars=" + q(avars), 400, "avars.user may not hold an operator");
        }
        try (Ws dollar = Ws.open(weft, "/hdb/orders/_streams/mine?avars=" + q("{\"user\":\"$ne\"}"));
             Sse ann = sse("/hdb/orders/_streams/mine?avars=" + q("{\"user\":\"ann\"}"), TestServer.ADMIN)) {
            created(weft.post("/hdb/orders", "{\"_id\":\"o-ann\",\"owner\":\"ann\"}"));
            created(weft.post("/hdb/orders", "{\"_id\":\"o-ne\",\"owner\":\"$ne\"}"));
            created(weft.post("/hdb/orders", "{\"_id\":\"o-bob\",\"owner\":\"bob\"}"));
            assertThat(summary(drain(dollar, 700))).isEqualTo(List.of("insert o-ne"));
            assertThat(summary(drain(ann, 300))).isEqualTo(List.of("insert o-ann"));
        }
    }
}
