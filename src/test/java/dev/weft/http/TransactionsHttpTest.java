package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.store.ChangeEvent;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * RESTHeart's sessions and transactions through the HTTP API (on both stores): own writes seen
 * inside, nothing outside before commit, commit and abort, use after the end, unknown and
 * malformed sessions, another user's session, write conflicts, the idle timeout, max-open-txns,
 * txn-max-bytes, change events at commit only, and the access rules inside a transaction.
 */
class TransactionsHttpTest {
    private static final Json JSON = Json.standard();
    private final List<TestServer> servers = new ArrayList<>();
    private TestServer server;

    private TestServer start(String... args) throws Exception {
        server = new TestServer(args);
        servers.add(server);
        server.createCollection("db", "c");
        return server;
    }

    @AfterEach
    void stop() throws Exception {
        for (TestServer s : servers) {
            s.close();
        }
    }

    private boolean postgres() {
        return server.pgSchema != null;
    }

    // --- helpers ---------------------------------------------------------------------------------

    private String session(String who) throws Exception {
        HttpResponse<String> r = send(server, who, "POST", "/_sessions", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        String location = r.headers().firstValue("Location").orElseThrow();
        assertThat(location).matches("http://[^/]+/_sessions/[0-9a-f-]{36}");
        return location.substring(location.length() - 36);
    }

    private long begin(String who, String sid) throws Exception {
        HttpResponse<String> r = send(server, who, "POST", "/_sessions/" + sid + "/_txns", null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        String location = r.headers().firstValue("Location").orElseThrow();
        assertThat(location).contains("/_sessions/" + sid + "/_txns/");
        return Long.parseLong(location.substring(location.lastIndexOf('/') + 1));
    }

    private static String in(String path, String sid, long txn) {
        return path + (path.contains("?") ? "&" : "?") + "sid=" + sid + "&txn=" + txn;
    }

    private String state(String sid) throws Exception {
        HttpResponse<String> r = server.get("/_sessions/" + sid + "/_txns");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r.body();
    }

    private static void assertStatus(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as(r.request().method() + " " + r.request().uri() + ": " + r.body()).isEqualTo(status);
    }

    private static void assertError(HttpResponse<String> r, int status, String message) {
        assertStatus(r, status);
        assertThat(JSON.parse(r.body(), "error").get("message").asString()).contains(message);
    }

    private List<String> ids(HttpResponse<String> list) {
        assertStatus(list, 200);
        List<String> ids = new ArrayList<>();
        JSON.parse(list.body(), "list").forEach(d -> ids.add(d.get("_id").asString()));
        return ids;
    }

    // --- tests -----------------------------------------------------------------------------------

    @Test
    void ownWritesAreSeenInsideAndNowhereElseUntilCommit() throws Exception {
        start();
        server.post("/db/c", "[{\"_id\":\"keep\",\"n\":1},{\"_id\":\"gone\",\"n\":2},{\"_id\":\"upd\",\"n\":3}]");
        String sid = session("admin");
        assertThat(state(sid)).isEqualTo("{\"currentTxn\":null}");
        long t = begin("admin", sid);
        assertThat(t).isEqualTo(1);
        assertThat(state(sid)).isEqualTo("{\"currentTxn\":{\"id\":1,\"status\":\"IN\"}}");

        HttpResponse<String> posted = server.post(in("/db/c", sid, t), "{\"_id\":\"new\",\"n\":4}");
        assertStatus(posted, 201);
        assertThat(posted.headers().firstValue("Location").orElseThrow()).endsWith("/db/c/new");
        assertStatus(server.put(in("/db/c/put?wm=upsert", sid, t), "{\"n\":5}"), 201);
        assertStatus(server.patch(in("/db/c/upd", sid, t), "{\"$set\":{\"n\":30}}"), 200);
        assertStatus(server.delete(in("/db/c/gone", sid, t)), 204);
        assertStatus(server.post(in("/db/c", sid, t), "[{\"_id\":\"b1\",\"n\":6},{\"_id\":\"b2\",\"n\":7}]"), 200);
        assertStatus(server.patch(in("/db/c/*?filter=" + q("{\"n\":{\"$gte\":6,\"$lt\":10}}"), sid, t), "{\"$inc\":{\"n\":100}}"), 200);
        assertStatus(server.delete(in("/db/c/*?filter=" + q("{\"_id\":\"b2\"}"), sid, t)), 200);

        // inside: every read path sees the transaction's writes
        assertThat(JSON.parse(server.get(in("/db/c/upd", sid, t)).body(), "doc").get("n").asInt()).isEqualTo(30);
        assertStatus(server.get(in("/db/c/gone", sid, t)), 404);
        assertThat(ids(server.get(in("/db/c?sort=" + q("{\"_id\":1}"), sid, t))))
                .containsExactly("b1", "keep", "new", "put", "upd");
        assertThat(ids(server.get(in("/db/c?sort=" + q("{\"n\":-1}") + "&pagesize=2&page=1", sid, t))))
                .containsExactly("b1", "upd");
        assertThat(ids(server.get(in("/db/c?filter=" + q("{\"n\":{\"$gt\":3,\"$lt\":50}}") + "&sort=" + q("{\"n\":1}"), sid, t))))
                .containsExactly("new", "put", "upd");
        assertThat(server.get(in("/db/c/_size", sid, t)).body()).isEqualTo("{\"_size\":5}");
        assertThat(server.get(in("/db/c/_size?filter=" + q("{\"n\":{\"$lt\":10}}"), sid, t)).body()).isEqualTo("{\"_size\":3}");
        HttpResponse<String> counted = server.get(in("/db/c?count&pagesize=1", sid, t));
        assertThat(counted.headers().firstValue("X-Total-Count")).hasValue("5");

        // outside: nothing yet (twice: the second read may be answered from the result cache)
        for (int i = 0; i < 2; i++) {
            assertThat(ids(server.get("/db/c?sort=" + q("{\"_id\":1}")))).containsExactly("gone", "keep", "upd");
            assertStatus(server.get("/db/c/new"), 404);
            assertThat(JSON.parse(server.get("/db/c/upd").body(), "doc").get("n").asInt()).isEqualTo(3);
            assertThat(server.get("/db/c/_size").body()).isEqualTo("{\"_size\":3}");
        }

        assertStatus(server.patch("/_sessions/" + sid + "/_txns/" + t, null), 200);
        assertThat(state(sid)).isEqualTo("{\"currentTxn\":{\"id\":1,\"status\":\"COMMITTED\"}}");
        assertThat(ids(server.get("/db/c?sort=" + q("{\"_id\":1}")))).containsExactly("b1", "keep", "new", "put", "upd");
        assertThat(JSON.parse(server.get("/db/c/b1").body(), "doc").get("n").asInt()).isEqualTo(106);
        assertThat(JSON.parse(server.get("/db/c/upd").body(), "doc").get("n").asInt()).isEqualTo(30);

        // used after commit: RESTHeart's 400, and nothing written
        assertError(server.post(in("/db/c", sid, t), "{\"_id\":\"late\"}"), 400, "The given transaction is not in-progress");
        assertError(server.get(in("/db/c", sid, t)), 400, "The given transaction is not in-progress");
        assertError(server.patch("/_sessions/" + sid + "/_txns/" + t, null), 400, "The given transaction is not in-progress");
        assertError(server.delete("/_sessions/" + sid + "/_txns/" + t), 400, "The given transaction is not in-progress");
        assertStatus(server.get("/db/c/late"), 404);

        // the next transaction of the session is number 2
        assertThat(begin("admin", sid)).isEqualTo(2);
        assertStatus(server.send("POST", "/_sessions/" + sid + "/_txns", null), 304);
    }

    @Test
    void ndjsonIngestsAndAggregationsRunInsideToo() throws Exception {
        start();
        server.post("/db/c", "{\"_id\":\"old\",\"n\":1}");
        String sid = session("admin");
        long t = begin("admin", sid);
        HttpResponse<String> ingested = server.send("POST", in("/db/c", sid, t), "{\"_id\":\"l1\",\"n\":2}\n{\"_id\":\"l2\",\"n\":3}\n",
                "Content-Type", "application/x-ndjson");
        assertStatus(ingested, 200);
        assertThat(ingested.body()).contains("\"inserted\":2");
        String count = "[{\"$match\":{\"n\":{\"$gte\":1}}},{\"$count\":\"n\"}]";
        assertThat(JSON.parse(server.post(in("/db/c/_aggrs", sid, t), count).body(), "r").get(0).get("n").asInt()).isEqualTo(3);
        assertThat(JSON.parse(server.post("/db/c/_aggrs", count).body(), "r").get(0).get("n").asInt()).isEqualTo(1);
        HttpResponse<String> export = server.send("GET", in("/db/c?sort=" + q("{\"_id\":1}"), sid, t), null,
                "Accept", "application/x-ndjson");
        assertThat(export.body().lines().toList()).hasSize(3);
        assertStatus(server.get("/db/c/l1"), 404);
        assertStatus(server.patch("/_sessions/" + sid + "/_txns/" + t, null), 200);
        assertStatus(server.get("/db/c/l1"), 200);
        assertStatus(server.get("/db/c/l2"), 200);
    }

    @Test
    void abortDiscardsEveryWrite() throws Exception {
        start();
        server.post("/db/c", "{\"_id\":\"x\",\"n\":1}");
        String sid = session("admin");
        long t = begin("admin", sid);
        assertStatus(server.post(in("/db/c", sid, t), "{\"_id\":\"y\"}"), 201);
        assertStatus(server.patch(in("/db/c/x", sid, t), "{\"$set\":{\"n\":2}}"), 200);
        assertStatus(server.delete("/_sessions/" + sid + "/_txns/" + t), 204);
        assertThat(state(sid)).isEqualTo("{\"currentTxn\":{\"id\":1,\"status\":\"ABORTED\"}}");
        assertStatus(server.get("/db/c/y"), 404);
        assertThat(JSON.parse(server.get("/db/c/x").body(), "doc").get("n").asInt()).isEqualTo(1);
        assertError(server.get(in("/db/c/x", sid, t)), 400, "The given transaction is not in-progress");
        assertError(server.delete("/_sessions/" + sid + "/_txns/" + t), 400, "The given transaction is not in-progress");
        // ending the session aborts its open transaction
        long t2 = begin("admin", sid);
        assertStatus(server.post(in("/db/c", sid, t2), "{\"_id\":\"z\"}"), 201);
        assertStatus(server.delete("/_sessions/" + sid), 204);
        assertStatus(server.get("/db/c/z"), 404);
        assertError(server.get("/_sessions/" + sid + "/_txns"), 404, "does not exist");
    }

    @Test
    void badSessionsAndTransactionNumbersAreClearErrors() throws Exception {
        start();
        String sid = session("admin");
        long t = begin("admin", sid);
        String unknown = "0f8fad5b-d9cb-469f-a165-70867728950e";
        assertError(server.get(in("/db/c", "invalid", t)), 400, "Invalid session id");
        assertError(server.get(in("/db/c", sid.toUpperCase() + "x", t)), 400, "Invalid session id");
        assertError(server.get("/db/c?sid=" + sid + "&txn=abc"), 400, "Invalid txn");
        assertError(server.get("/db/c?txn=1"), 400, "sid");
        assertError(server.get(in("/db/c", unknown, 1)), 404, "session " + unknown + " does not exist");
        assertError(server.get(in("/db/c", sid, 2)), 400, "The given transaction is not in-progress");
        assertError(server.post(in("/db/c", sid, 0), "{}"), 400, "The given transaction is not in-progress");
        assertError(server.get("/_sessions/" + unknown + "/_txns"), 404, "does not exist");
        assertError(server.get("/_sessions/nope/_txns"), 400, "Invalid session id");
        assertError(server.patch("/_sessions/" + sid + "/_txns/abc", null), 400, "Invalid txn");
        assertError(server.patch("/_sessions/" + sid + "/_txns/7", null), 400, "The given transaction is not in-progress");
        assertError(server.put(in("/db/other", sid, t), null), 400, "cannot be changed inside a transaction");
        assertStatus(server.get("/db/other"), 404);
        // a session without a transaction: its requests run as any other
        assertStatus(server.post("/db/c?sid=" + sid, "{\"_id\":\"plain\"}"), 201);
        assertStatus(server.get("/db/c/plain"), 200);
        assertThat(state(sid)).isEqualTo("{\"currentTxn\":{\"id\":1,\"status\":\"IN\"}}");
    }

    @Test
    void aSessionIsItsOwnersAndTheAccessRulesApplyInsideIt() throws Exception {
        start();
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db/notes", null);
        send(server, "admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","text":"alice-text","secret":"alice-secret"},
                 {"_id":"b1","owner":"bob","text":"bob-text","secret":"bob-secret"}]""");
        AuthorizationMatrixTest.rules(server, "admin");
        send(server, "admin", "POST", "/weft/acl", """
                {"_id":"sessions","roles":["user"],"priority":10,"predicate":"path-prefix('/_sessions')"}""");
        String sid = session("alice");
        long t = begin("alice", sid);
        assertStatus(send(server, "alice", "POST", in("/db/notes", sid, t), "{\"_id\":\"a2\",\"text\":\"draft\"}"), 201);
        HttpResponse<String> mine = send(server, "alice", "GET", in("/db/notes", sid, t), null);
        assertThat(ids(mine)).containsExactlyInAnyOrder("a1", "a2");
        assertThat(mine.body()).doesNotContain("secret").doesNotContain("bob");
        assertStatus(send(server, "alice", "GET", in("/db/notes/b1", sid, t), null), 404);
        assertError(send(server, "alice", "POST", in("/db/notes", sid, t), "{\"_id\":\"a3\",\"owner\":\"bob\"}"), 403, "owner");
        assertStatus(send(server, "alice", "PATCH", in("/db/notes/b1", sid, t), "{\"$set\":{\"text\":\"mine\"}}"), 404);

        // bob knows the session id: it names nothing to him, and alice's draft stays hers
        for (HttpResponse<String> r : List.of(
                send(server, "bob", "GET", in("/db/notes/a2", sid, t), null),
                send(server, "bob", "GET", in("/db/notes", sid, t), null),
                send(server, "bob", "POST", in("/db/notes", sid, t), "{\"_id\":\"b9\"}"),
                send(server, "bob", "GET", "/_sessions/" + sid + "/_txns", null),
                send(server, "bob", "PATCH", "/_sessions/" + sid + "/_txns/" + t, null),
                send(server, "bob", "DELETE", "/_sessions/" + sid + "/_txns/" + t, null),
                send(server, "bob", "DELETE", "/_sessions/" + sid, null),
                send(server, "admin", "GET", in("/db/notes/a2", sid, t), null))) {
            assertError(r, 404, "session " + sid + " does not exist");
            assertThat(r.body()).doesNotContain("draft");
        }
        assertStatus(send(server, "bob", "GET", "/db/notes/b9", null), 404);
        // anonymous clients may not open sessions; nor may a user with no rule for /_sessions
        assertStatus(send(server, "anon", "POST", "/_sessions", null), 401);

        assertStatus(send(server, "alice", "PATCH", "/_sessions/" + sid + "/_txns/" + t, null), 200);
        HttpResponse<String> committed = server.get("/db/notes/a2");
        assertStatus(committed, 200);
        assertThat(JSON.parse(committed.body(), "doc").get("owner").asString()).isEqualTo("alice");
    }

    @Test
    void twoTransactionsWritingOneDocumentTheSecondIsAWriteConflict() throws Exception {
        start();
        server.post("/db/c", "{\"_id\":\"x\",\"n\":0}");
        String s1 = session("admin");
        String s2 = session("admin");
        long t1 = begin("admin", s1);
        long t2 = begin("admin", s2);
        assertStatus(server.post(in("/db/c", s1, t1), "{\"_id\":1,\"a\":1}"), 201);
        assertError(server.post(in("/db/c", s2, t2), "{\"_id\":1,\"a\":2}"), 409, "Write conflict inside transaction");
        assertThat(state(s2)).isEqualTo("{\"currentTxn\":{\"id\":1,\"status\":\"ABORTED\"}}");
        assertThat(state(s1)).isEqualTo("{\"currentTxn\":{\"id\":1,\"status\":\"IN\"}}");

        long t3 = begin("admin", s2);
        assertStatus(server.patch(in("/db/c/x", s1, t1), "{\"$inc\":{\"n\":1}}"), 200);
        assertError(server.patch(in("/db/c/x", s2, t3), "{\"$inc\":{\"n\":10}}"), 409, "Write conflict inside transaction");
        assertStatus(server.patch("/_sessions/" + s1 + "/_txns/" + t1, null), 200);
        assertThat(JSON.parse(server.get("/db/c/1?id_type=number").body(), "doc").get("a").asInt()).isEqualTo(1);
        assertThat(JSON.parse(server.get("/db/c/x").body(), "doc").get("n").asInt()).isEqualTo(1);

        // after the first committed, a new transaction writes the document freely
        long t4 = begin("admin", s2);
        assertStatus(server.patch(in("/db/c/x", s2, t4), "{\"$inc\":{\"n\":10}}"), 200);
        assertStatus(server.patch("/_sessions/" + s2 + "/_txns/" + t4, null), 200);
        assertThat(JSON.parse(server.get("/db/c/x").body(), "doc").get("n").asInt()).isEqualTo(11);
    }

    @Test
    void aDocumentChangedOutsideBeforeTheCommitFailsTheCommitWhole() throws Exception {
        start();
        server.post("/db/c", "[{\"_id\":\"x\",\"n\":0},{\"_id\":\"y\",\"n\":0}]");
        String sid = session("admin");
        long t = begin("admin", sid);
        assertStatus(server.patch(in("/db/c/y", sid, t), "{\"$set\":{\"n\":1}}"), 200);
        if (postgres()) {
            // the row is held by the transaction: a write from outside waits for it; abort instead
            assertStatus(server.delete("/_sessions/" + sid + "/_txns/" + t), 204);
            return;
        }
        assertStatus(server.patch(in("/db/c/x", sid, t), "{\"$set\":{\"n\":1}}"), 200);
        assertStatus(server.patch("/db/c/x", "{\"$set\":{\"n\":5}}"), 200);
        assertError(server.patch("/_sessions/" + sid + "/_txns/" + t, null), 409, "Write conflict inside transaction");
        assertThat(state(sid)).contains("ABORTED");
        assertThat(JSON.parse(server.get("/db/c/x").body(), "doc").get("n").asInt()).isEqualTo(5);
        assertThat(JSON.parse(server.get("/db/c/y").body(), "doc").get("n").asInt()).isEqualTo(0);
    }

    @Test
    void anIdleTransactionIsAbortedAndReleased() throws Exception {
        start("--txn-idle-timeout-ms", "300", "--max-open-txns", "1");
        String sid = session("admin");
        long t = begin("admin", sid);
        assertStatus(server.post(in("/db/c", sid, t), "{\"_id\":\"idle\"}"), 201);
        long deadline = System.currentTimeMillis() + 10_000;
        while (!state(sid).contains("ABORTED") && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        assertThat(state(sid)).isEqualTo("{\"currentTxn\":{\"id\":1,\"status\":\"ABORTED\"}}");
        assertError(server.post(in("/db/c", sid, t), "{\"_id\":\"late\"}"), 400, "The given transaction is not in-progress");
        assertStatus(server.get("/db/c/idle"), 404);
        // its slot is free again
        String other = session("admin");
        assertThat(begin("admin", other)).isEqualTo(1);
    }

    @Test
    void maxOpenTxnsRefusesTheNextWithTheSettingsName() throws Exception {
        start("--max-open-txns", "1");
        String s1 = session("admin");
        String s2 = session("admin");
        long t1 = begin("admin", s1);
        assertError(server.post("/_sessions/" + s2 + "/_txns", null), 503, "max-open-txns");
        assertThat(state(s2)).isEqualTo("{\"currentTxn\":null}");
        assertStatus(server.patch("/_sessions/" + s1 + "/_txns/" + t1, null), 200);
        assertThat(begin("admin", s2)).isEqualTo(1);
    }

    @Test
    void maxSessionsRefusesTheNextWithTheSettingsName() throws Exception {
        start("--max-sessions", "1");
        String s1 = session("admin");
        assertError(server.post("/_sessions", null), 503, "max-sessions");
        assertStatus(server.delete("/_sessions/" + s1), 204);
        session("admin");
    }

    @Test
    void txnMaxBytesBoundsWhatATransactionHolds() throws Exception {
        start("--txn-max-bytes", "2048");
        String sid = session("admin");
        long t = begin("admin", sid);
        String big = "x".repeat(1500);
        assertStatus(server.post(in("/db/c", sid, t), "{\"_id\":\"a\",\"s\":\"" + big + "\"}"), 201);
        assertError(server.post(in("/db/c", sid, t), "{\"_id\":\"b\",\"s\":\"" + big + "\"}"), 413, "txn-max-bytes");
        assertThat(state(sid)).contains("IN");
        assertStatus(server.get(in("/db/c/b", sid, t)), 404);
        assertStatus(server.post(in("/db/c", sid, t), "{\"_id\":\"c\"}"), 201);
        assertStatus(server.patch("/_sessions/" + sid + "/_txns/" + t, null), 200);
        assertThat(ids(server.get("/db/c?sort=" + q("{\"_id\":1}")))).containsExactly("a", "c");
    }

    @Test
    void changeEventsAreEmittedAtCommitOnlyInOrder() throws Exception {
        start();
        List<List<ChangeEvent>> commits = new CopyOnWriteArrayList<>();
        server.store.eventLog().addCommitListener((commit, events) -> commits.add(events));
        long before = server.store.eventLog().last();
        String sid = session("admin");
        long t = begin("admin", sid);
        assertStatus(server.post(in("/db/c", sid, t), "{\"_id\":\"e1\",\"n\":1}"), 201);
        assertStatus(server.patch(in("/db/c/e1", sid, t), "{\"$set\":{\"n\":2}}"), 200);
        assertStatus(server.post(in("/db/c", sid, t), "{\"_id\":\"e2\"}"), 201);
        assertStatus(server.delete(in("/db/c/e2", sid, t)), 204);
        Thread.sleep(postgres() ? 1500 : 100);
        assertThat(server.store.eventLog().last()).isEqualTo(before);
        assertThat(commits).isEmpty();

        assertStatus(server.patch("/_sessions/" + sid + "/_txns/" + t, null), 200);
        long deadline = System.currentTimeMillis() + 10_000;
        while (server.store.eventLog().last() < before + 4 && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        List<ChangeEvent> logged = server.store.eventLog().after(before, 100);
        assertThat(logged).extracting(e -> e.operation() + " " + e.documentKey().asString())
                .containsExactly("INSERT e1", "UPDATE e1", "INSERT e2", "DELETE e2");
        JsonNode stored = JSON.parse(server.get("/db/c/e1").body(), "doc");
        JsonNode lastEvent = JSON.parse(logged.get(1).fullDocument(), "event");
        assertThat(lastEvent).isEqualTo(stored);
        if (!postgres()) {
            assertThat(commits).hasSize(1); // one commit, all four
        }
    }
}
