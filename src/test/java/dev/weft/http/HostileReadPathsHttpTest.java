package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Ws;
import dev.weft.core.Json;
import dev.weft.store.Namespace;
import dev.weft.store.postgres.PostgresStore;
import dev.weft.store.sqlite.SqliteStore;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import tools.jackson.databind.JsonNode;

/**
 * A restricted reader attacking the read paths the other suites do not already cover: alice and
 * bob (readFilter {@code owner = @user._id}, {@code secret} hidden) try to learn about each
 * other's documents through what a request answers besides its documents: a stream ended by
 * the cost of her filter, a cursor token minted for someone or something else, a cached page.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileReadPathsHttpTest {
    /** Low enough that a filter of 60 clauses runs out on one document, high enough for the rule. */
    private static final int BUDGET = 40;

    TestServer weft;

    @BeforeAll
    void start() throws Exception {
        weft = new TestServer("--stream-match-budget", Integer.toString(BUDGET),
                "--parallel-scans", "1", "--scan-parts", "2", "--scan-split-min-rows", "100");
        AuthorizationMatrixTest.users(weft);
        send(weft, "admin", "PUT", "/db", null);
        send(weft, "admin", "PUT", "/db/notes", null);
        AuthorizationMatrixTest.rules(weft, "admin");
    }

    @AfterAll
    void stop() throws Exception {
        weft.close();
    }

    /**
     * {@code {"$or": [probe, 60 clauses that never match]}}: cheap on a document the probe
     * matches, past the budget on one it does not.
     */
    private static String costlyUnless(String probe) {
        StringBuilder f = new StringBuilder("{\"$or\":[").append(probe);
        for (int i = 0; i < 60; i++) {
            f.append(",{\"missing").append(i).append("\":1}");
        }
        return f.append("]}").toString();
    }

    /**
     * The stream's budget counts her filter's value tests: were her filter evaluated on bob's
     * documents, whether her stream ends on one of his events would tell whether his document
     * matched her probe (here: does his text start with "s"), a document her rule hides.
     */
    @Test
    void aStreamsCostNeverDependsOnDocumentsOutsideTheReadFilter() throws Exception {
        String filter = costlyUnless("{\"text\":{\"$regex\":\"^s\"}}");
        try (Ws alice = Ws.open(weft, "/db/notes/_streams?filter=" + q(filter), true,
                AuthorizationMatrixTest.authorization("alice"))) {
            assertThat(send(weft, "bob", "POST", "/db/notes", "{\"_id\":\"b-s\",\"text\":\"secret-ish\"}").statusCode())
                    .isEqualTo(201);
            assertThat(send(weft, "bob", "POST", "/db/notes", "{\"_id\":\"b-o\",\"text\":\"other\"}").statusCode())
                    .isEqualTo(201);
            assertThat(send(weft, "alice", "POST", "/db/notes", "{\"_id\":\"a-s\",\"text\":\"sure\"}").statusCode())
                    .isEqualTo(201);
            JsonNode first = alice.poll(10_000);
            assertThat(first).as("her stream: " + alice.ended.getNow("open")).isNotNull();
            assertThat(first.get("documentKey").get("_id").asString()).as("her stream is still open").isEqualTo("a-s");
            assertThat(alice.ended).isNotDone();
            // her own document is hers to probe: a costly match on it ends her stream, as documented
            assertThat(send(weft, "alice", "POST", "/db/notes", "{\"_id\":\"a-o\",\"text\":\"other\"}").statusCode())
                    .isEqualTo(201);
            assertThat(alice.ended.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .startsWith("1008 ").contains("stream-match-budget");
        }
    }

    /**
     * Bob shares notes by listing readers; alice may read a note she owns or one whose
     * {@code readers} names her. Bob writes notes whose reader lists hold 20,000 names, past the
     * stream's budget (40) and the dispatcher's quick pass (10,000 tests): the rule's own cost is
     * the server's, never charged to her, so hidden ones neither end her stream (were they charged,
     * bob could end it at will, and whether it ended would say what his notes hold) nor keep the
     * shared one from her. Live and replayed, she gets exactly her events.
     */
    @Test
    void theRulesOwnCostOnAHiddenDocumentNeverEndsHerStream() throws Exception {
        send(weft, "admin", "PUT", "/db/shares", null);
        assertThat(send(weft, "admin", "POST", "/weft/acl", """
                [{"_id":"shares-read","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/shares') and method(GET)",
                  "readFilter":{"$or":[{"owner":"@user._id"},{"readers":"@user._id"}]}},
                 {"_id":"shares-write","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/shares') and not method(GET)",
                  "writeFilter":{"owner":"@user._id"},"protectedFields":["owner"],
                  "mergeRequest":{"owner":"@user._id"}}]""").statusCode()).isEqualTo(200);
        // carol, a second user under the same rule, makes each event's readers array meet two rule
        // classes: the dispatcher looks her up in the array it remembered for the event (ArrayKeys)
        assertThat(weft.post("/weft/users", "{\"_id\":\"carol\",\"password\":\"carol-Password-1\",\"roles\":[\"user\"]}")
                .statusCode()).isEqualTo(201);
        String filter = "/db/shares/_streams?filter=" + q("{\"kind\":\"note\"}");
        List<String> expected = List.of("b-shared", "a-1", "a-end");
        try (Ws alice = Ws.open(weft, filter, true, AuthorizationMatrixTest.authorization("alice"));
             Ws carol = Ws.open(weft, filter, true, TestServer.basic("carol", "carol-Password-1"));
             Ws admin = Ws.open(weft, filter, true, AuthorizationMatrixTest.authorization("admin"))) {
            for (String[] note : new String[][] {{"b-hidden-1", "dave"}, {"b-shared", "alice"}, {"b-hidden-2", "carol"}}) {
                HttpResponse<String> r = send(weft, "bob", "POST", "/db/shares",
                        "{\"_id\":\"" + note[0] + "\",\"kind\":\"note\",\"readers\":" + readers(20_000, note[1]) + "}");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            }
            for (String id : List.of("a-1", "a-end")) {
                assertThat(send(weft, "alice", "POST", "/db/shares", "{\"_id\":\"" + id + "\",\"kind\":\"note\"}")
                        .statusCode()).isEqualTo(201);
            }
            assertThat(idsUntil(admin, "a-end")).as("bob's notes were written")
                    .containsExactly("b-hidden-1", "b-shared", "b-hidden-2", "a-1", "a-end");
            assertThat(idsUntil(alice, "a-end")).containsExactlyElementsOf(expected);
            assertThat(alice.ended).isNotDone();
            assertThat(idsUntil(carol, "b-hidden-2")).as("only the note that names her").containsExactly("b-hidden-2");
        }
        try (Ws replay = Ws.open(weft, filter + "&resumeAfter=0000000000000000", true,
                AuthorizationMatrixTest.authorization("alice"))) {
            assertThat(idsUntil(replay, "a-end")).as("replayed").containsExactlyElementsOf(expected);
            assertThat(replay.ended).isNotDone();
        }
    }

    /**
     * The same rule through an array of documents: {@code {"readers.name": "@user._id"}} over
     * 20,000 reader entries (a name, a role; some names arrays, some entries without one). With
     * alice and erin both subscribed, each event's array meets two rule classes, so one of them
     * is answered from the walk the dispatcher remembered (ArrayKeys): each sees only the notes
     * whose entries name her, an entry's name array included, never a note that names someone
     * else or names her in another field; and no stream ends. A replay from the start and a list
     * answer the same.
     */
    @Test
    void aRuleThroughAnArrayOfReaderDocumentsShowsEachOnlyWhatNamesHer() throws Exception {
        send(weft, "admin", "PUT", "/db/groups", null);
        assertThat(send(weft, "admin", "POST", "/weft/acl", """
                [{"_id":"groups-read","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/groups') and method(GET)",
                  "readFilter":{"$or":[{"owner":"@user._id"},{"readers.name":"@user._id"}]}},
                 {"_id":"groups-write","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/groups') and not method(GET)",
                  "writeFilter":{"owner":"@user._id"},"protectedFields":["owner"],
                  "mergeRequest":{"owner":"@user._id"}}]""").statusCode()).isEqualTo(200);
        assertThat(weft.post("/weft/users", "{\"_id\":\"erin\",\"password\":\"erin-Password-1\",\"roles\":[\"user\"]}")
                .statusCode()).isEqualTo(201);
        String filter = "/db/groups/_streams?filter=" + q("{\"kind\":\"note\"}");
        String[][] notes = {
            {"g-dave", "{\"name\":\"dave\"}"},
            {"g-alice", "{\"name\":\"alice\",\"role\":\"reader\"}"},
            {"g-alice-role", "{\"name\":\"dave\",\"role\":\"alice\"}"},
            {"g-erin-in-array", "{\"name\":[\"frank\",\"erin\"]}"},
            {"g-alice-nested", "{\"name\":{\"first\":\"alice\"}}"},
        };
        try (Ws alice = Ws.open(weft, filter, true, AuthorizationMatrixTest.authorization("alice"));
             Ws erin = Ws.open(weft, filter, true, AuthorizationMatrixTest.authorization("erin"));
             Ws admin = Ws.open(weft, filter, true, AuthorizationMatrixTest.authorization("admin"))) {
            for (String[] note : notes) {
                HttpResponse<String> r = send(weft, "bob", "POST", "/db/groups",
                        "{\"_id\":\"" + note[0] + "\",\"kind\":\"note\",\"readers\":" + readerEntries(20_000, note[1]) + "}");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            }
            for (String who : List.of("alice", "erin")) {
                assertThat(send(weft, who, "POST", "/db/groups", "{\"_id\":\"" + who + "-end\",\"kind\":\"note\"}")
                        .statusCode()).isEqualTo(201);
            }
            assertThat(idsUntil(admin, "erin-end")).as("bob's notes were written")
                    .containsExactly("g-dave", "g-alice", "g-alice-role", "g-erin-in-array", "g-alice-nested", "alice-end", "erin-end");
            assertThat(idsUntil(alice, "alice-end")).containsExactly("g-alice", "alice-end");
            assertThat(idsUntil(erin, "erin-end")).containsExactly("g-erin-in-array", "erin-end");
            assertThat(alice.ended).isNotDone();
            assertThat(erin.ended).isNotDone();
        }
        for (String[] who : new String[][] {{"alice", "g-alice"}, {"erin", "g-erin-in-array"}}) {
            try (Ws replay = Ws.open(weft, filter + "&resumeAfter=0000000000000000", true,
                    AuthorizationMatrixTest.authorization(who[0]))) {
                assertThat(idsUntil(replay, who[0] + "-end")).as("replayed to " + who[0]).containsExactly(who[1], who[0] + "-end");
                assertThat(replay.ended).isNotDone();
            }
        }
        assertThat(ids("alice", "/db/groups")).containsExactlyInAnyOrder("g-alice", "alice-end");
        assertThat(ids("erin", "/db/groups")).containsExactlyInAnyOrder("g-erin-in-array", "erin-end");
    }

    /** A JSON array of {@code n} reader entries, the last of them {@code last}, some named by arrays or unnamed. */
    private static String readerEntries(int n, String last) {
        StringBuilder a = new StringBuilder("[");
        for (int i = 0; i < n - 1; i++) {
            a.append(switch (i % 4) {
                case 0 -> "{\"name\":\"reader" + i + "\",\"role\":\"reader\"}";
                case 1 -> "{\"name\":[\"reader" + i + "\",\"editor" + i + "\"]}";
                case 2 -> "{\"role\":\"reader\"}";
                default -> "\"reader" + i + "\"";
            }).append(',');
        }
        return a.append(last).append(']').toString();
    }

    /** A JSON array of {@code n} reader names, the last of them {@code last}. */
    private static String readers(int n, String last) {
        StringBuilder a = new StringBuilder("[");
        for (int i = 0; i < n - 1; i++) {
            a.append("\"reader").append(i).append("\",");
        }
        return a.append('"').append(last).append("\"]").toString();
    }

    /** The {@code _id}s of the events {@code stream} receives up to and including {@code last}'s. */
    private static List<String> idsUntil(Ws stream, String last) throws InterruptedException {
        List<String> out = new ArrayList<>();
        while (out.isEmpty() || !out.getLast().equals(last)) {
            JsonNode e = stream.poll(10_000);
            assertThat(e).as("events so far " + out + ", stream: " + stream.ended.getNow("open")).isNotNull();
            out.add(e.get("documentKey").get("_id").asString());
        }
        return out;
    }

    private List<String> ids(String who, String path) throws Exception {
        HttpResponse<String> r = send(weft, who, "GET", path, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> out = new ArrayList<>();
        for (JsonNode d : Json.standard().parse(r.body(), "answer")) {
            out.add(d.get("_id").asString());
        }
        return out;
    }

    /**
     * A committed transaction moves alice's note to bob. On SQLite the collection is held in
     * memory first, so the regex list after the commit is answered from held rows: were they
     * not kept current by a transaction's commit, alice would still match the note (her rule
     * tested on the old bytes) and see bob's text.
     */
    @Test
    void heldRowsFollowACommittedTransactionBeforeTheRuleIsTestedOnThem() throws Exception {
        Namespace held = new Namespace("db", "held");
        send(weft, "admin", "PUT", "/db/held", null);
        assertThat(send(weft, "admin", "POST", "/db/held", """
                [{"_id":"h1","owner":"alice","url":"https://zebra.example/h1"},
                 {"_id":"h2","owner":"alice","url":"https://zebra.example/h2"}]""").statusCode()).isEqualTo(200);
        send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"held","roles":["user"],"priority":10,"predicate":"path-prefix('/db/held') and method(GET)",
                 "readFilter":{"owner":"@user._id"}}""");
        String zebra = "/db/held?filter=" + q("{\"url\":{\"$regex\":\"zebra\"}}");
        for (int i = 0; i < 500 && weft.store instanceof SqliteStore s && !s.heldCollections().contains(held); i++) {
            ids("alice", zebra);
            Thread.sleep(10);
        }
        if (weft.store instanceof SqliteStore s) {
            assertThat(s.heldCollections()).contains(held);
        }
        assertThat(ids("alice", zebra)).containsExactly("h2", "h1");

        HttpResponse<String> session = send(weft, "admin", "POST", "/_sessions", null);
        String location = session.headers().firstValue("Location").orElseThrow();
        String sid = location.substring(location.length() - 36);
        String txns = "/_sessions/" + sid + "/_txns";
        String txnLocation = send(weft, "admin", "POST", txns, null).headers().firstValue("Location").orElseThrow();
        String txn = txnLocation.substring(txnLocation.lastIndexOf('/') + 1);
        assertThat(send(weft, "admin", "PATCH", "/db/held/h1?sid=" + sid + "&txn=" + txn,
                "{\"$set\":{\"owner\":\"bob\",\"url\":\"https://zebra.example/bob-only\"}}").statusCode()).isEqualTo(200);
        assertThat(ids("alice", zebra)).as("not committed yet").containsExactly("h2", "h1");
        assertThat(send(weft, "admin", "PATCH", txns + "/" + txn, null).statusCode()).isEqualTo(200);

        HttpResponse<String> after = send(weft, "alice", "GET", zebra, null);
        assertThat(after.body()).doesNotContain("bob-only", "h1");
        assertThat(ids("alice", zebra)).containsExactly("h2");
        assertThat(ids("bob", zebra)).containsExactly("h1");
        if (weft.store instanceof SqliteStore s) {
            assertThat(s.heldCollections()).as("answered from held rows").contains(held);
        }
    }

    /**
     * Keyset tokens minted for someone else or under another rule: the admin's token for the very
     * same query (its position may sit on a document she cannot read) and her own token once her
     * rule changed are both 400, never a page.
     */
    @Test
    void aCursorTokenOfTheAdminOrOfAnEarlierRuleOpensNothing() throws Exception {
        send(weft, "admin", "PUT", "/db/posts", null);
        StringBuilder docs = new StringBuilder("[");
        for (int i = 0; i < 10; i++) {
            docs.append(i == 0 ? "" : ",").append("{\"_id\":\"p").append(i).append("\",\"owner\":\"")
                    .append(i % 2 == 0 ? "alice" : "bob").append("\",\"team\":\"").append(i < 6 ? "red" : "blue").append("\"}");
        }
        assertThat(send(weft, "admin", "POST", "/db/posts", docs.append("]").toString()).statusCode()).isEqualTo(200);
        assertThat(send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"posts","roles":["user"],"priority":10,"predicate":"path-prefix('/db/posts') and method(GET)",
                 "readFilter":{"owner":"@user._id"}}""").statusCode()).isEqualTo(201);
        String query = "/db/posts?pagesize=2&sort=" + q("{\"_id\":1}");
        String admins = send(weft, "admin", "GET", query, null).headers().firstValue("Weft-Next").orElseThrow();
        HttpResponse<String> replayed = send(weft, "alice", "GET", query + "&after=" + admins, null);
        assertThat(replayed.statusCode()).as(replayed.body()).isEqualTo(400);
        assertThat(replayed.body()).contains("after is not a cursor token of this query").doesNotContain("p1", "p3");

        String hers = send(weft, "alice", "GET", query, null).headers().firstValue("Weft-Next").orElseThrow();
        assertThat(ids("alice", query + "&after=" + hers)).containsExactly("p4", "p6");
        assertThat(send(weft, "admin", "PUT", "/weft/acl/posts", """
                {"roles":["user"],"priority":10,"predicate":"path-prefix('/db/posts') and method(GET)",
                 "readFilter":{"owner":"@user._id","team":"red"}}""").statusCode()).isIn(200, 201);
        HttpResponse<String> stale = send(weft, "alice", "GET", query + "&after=" + hers, null);
        assertThat(stale.statusCode()).as(stale.body()).isEqualTo(400);
        assertThat(ids("alice", query)).containsExactly("p0", "p2");
    }

    /**
     * A {@code $group} read in parts, whose sums and counts are taken from the stored bytes:
     * the rule narrows each part's scan and the bytes are her view of each document, so totals
     * count her documents only and a group key never names a document outside her filter.
     */
    @Test
    void aGroupOverStoredBytesInPartsCountsOnlyHerDocuments() throws Exception {
        send(weft, "admin", "PUT", "/db/tally", null);
        StringBuilder docs = new StringBuilder("[");
        for (int i = 0; i < 1_000; i++) {
            String owner = i % 10 == 0 ? "alice" : "bob";
            docs.append(i == 0 ? "" : ",").append("{\"_id\":").append(i).append(",\"owner\":\"").append(owner)
                    .append("\",\"kind\":\"").append(owner.equals("bob") && i % 7 == 0 ? "bob-only-kind" : "k" + i % 3)
                    .append("\",\"n\":").append(i % 5).append("}");
        }
        assertThat(send(weft, "admin", "POST", "/db/tally", docs.append("]").toString()).statusCode()).isEqualTo(200);
        send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"tally","roles":["user"],"priority":10,"predicate":"path-prefix('/db/tally')",
                 "readFilter":{"owner":"@user._id"},"allowAdhocAggregations":true}""");
        long before = splitScans();
        HttpResponse<String> total = send(weft, "alice", "POST", "/db/tally/_aggrs",
                "[{\"$group\":{\"_id\":null,\"n\":{\"$sum\":\"$n\"},\"c\":{\"$sum\":1}}}]");
        assertThat(total.statusCode()).as(total.body()).isEqualTo(200);
        // alice holds i = 0, 10, ..., 990: i % 5 is 0 for every one of them
        assertThat(total.body()).isEqualTo("[{\"_id\":null,\"n\":0,\"c\":100}]");
        HttpResponse<String> kinds = send(weft, "alice", "POST", "/db/tally/_aggrs",
                "[{\"$group\":{\"_id\":\"$kind\",\"c\":{\"$sum\":1}}},{\"$sort\":{\"_id\":1}}]");
        assertThat(kinds.body()).isEqualTo("[{\"_id\":\"k0\",\"c\":34},{\"_id\":\"k1\",\"c\":33},{\"_id\":\"k2\",\"c\":33}]");
        HttpResponse<String> counted = send(weft, "alice", "POST", "/db/tally/_aggrs",
                "[{\"$match\":{\"kind\":\"bob-only-kind\"}},{\"$count\":\"n\"}]");
        assertThat(counted.body()).isEqualTo("[]");
        assertThat(splitScans() - before).as("the groups were read in parts").isGreaterThanOrEqualTo(2);
    }

    private long splitScans() {
        return weft.store instanceof SqliteStore s ? s.splitScans() : ((PostgresStore) weft.store).splitScans();
    }

    /**
     * Operators that could fail on a value of an unexpected type ({@code $size} of a string,
     * {@code $mod} of an object, {@code $regex} of a number, bit tests of a double, ...), run by
     * alice over bob's documents of every shape: were the store to fail on one of his values
     * (a PostgreSQL cast, say) her answer would tell that such a document exists. Every one is
     * 200 with her own documents only, and {@code _size} agrees.
     */
    @Test
    void noFilterFailsOnTheShapeOfADocumentOutsideHerRule() throws Exception {
        send(weft, "admin", "PUT", "/db/shapes", null);
        assertThat(send(weft, "admin", "POST", "/db/shapes", """
                [{"_id":"a1","owner":"alice","v":[1,2,3]},
                 {"_id":"b1","owner":"bob","v":"text"},{"_id":"b2","owner":"bob","v":{"x":[1,{"y":2}]}},
                 {"_id":"b3","owner":"bob","v":12.5},{"_id":"b4","owner":"bob","v":null},
                 {"_id":"b5","owner":"bob","v":[[1],"s",{"z":1},true]},{"_id":"b6","owner":"bob","v":true},
                 {"_id":"b7","owner":"bob","v":-9223372036854775808},{"_id":"b8","owner":"bob","v":1e308},
                 {"_id":"b9","owner":"bob","v":{"$date":{"$numberLong":"0"}}},{"_id":"b10","owner":"bob"}]""")
                .statusCode()).isEqualTo(200);
        send(weft, "admin", "POST", "/weft/acl", """
                {"_id":"shapes","roles":["user"],"priority":10,"predicate":"path-prefix('/db/shapes') and method(GET)",
                 "readFilter":{"owner":"@user._id"}}""");
        List<String> filters = List.of(
                "{\"v\":{\"$size\":3}}", "{\"v\":{\"$mod\":[2,1]}}", "{\"v\":{\"$regex\":\"^1\"}}",
                "{\"v\":{\"$bitsAllSet\":1}}", "{\"v\":{\"$bitsAnyClear\":[0,63]}}", "{\"v\":{\"$all\":[1,2]}}",
                "{\"v\":{\"$elemMatch\":{\"$gt\":0}}}", "{\"v.x.y\":{\"$exists\":false}}", "{\"v\":{\"$gt\":0}}",
                "{\"v.1\":{\"$lte\":2}}", "{\"v\":{\"$type\":\"array\"}}", "{\"v\":{\"$in\":[1,null,{\"$regex\":\"x\"}]}}",
                "{\"v\":{\"$not\":{\"$size\":0}}}", "{\"v\":{\"$nin\":[\"text\",12.5]}}");
        for (String filter : filters) {
            HttpResponse<String> r = send(weft, "alice", "GET", "/db/shapes?filter=" + q(filter), null);
            assertThat(r.statusCode()).as(filter + ": " + r.body()).isIn(200, 400);
            if (r.statusCode() == 400) {
                // a refusal must be the filter's own, the same for the admin, never one of bob's values
                assertThat(send(weft, "admin", "GET", "/db/shapes?filter=" + q(filter), null).statusCode()).as(filter).isEqualTo(400);
                continue;
            }
            assertThat(r.body()).as(filter).doesNotContain("bob");
            HttpResponse<String> size = send(weft, "alice", "GET", "/db/shapes/_size?filter=" + q(filter), null);
            assertThat(size.statusCode()).as(filter + ": " + size.body()).isEqualTo(200);
            assertThat(size.body()).as(filter).isEqualTo("{\"_size\":" + (r.body().contains("a1") ? 1 : 0) + "}");
        }
    }
}
