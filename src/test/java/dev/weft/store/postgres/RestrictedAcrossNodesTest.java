package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult.Outcome;
import dev.weft.store.postgres.StreamsAcrossNodesTest.Sse;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A restricted user working across two nodes of one database, where each node remembers things
 * the other may have changed since: the documents it wrote or read (decision 0005, written from
 * in one round trip) and the stream positions it handed out. Neither may let the user past its
 * rule. A restricted write reads the stored document, checks it against the rule and writes with
 * its etag as If-Match (WritePlan): so a change landing on the other node between that check and
 * the write must fail the If-Match even though the writing node's remembered copy still carries
 * the checked etag; end to end, documents moved out of the rule on the other node are refused
 * (404 or 403) and unchanged. A stream resumed on the other node, while writes go on, replays and
 * then delivers only the user's documents, each once and in order.
 */
class RestrictedAcrossNodesTest {
    private static final Json JSON = Json.standard();
    private static final String ALICE = "Basic " + Base64.getEncoder().encodeToString("alice:alice-Password-1".getBytes());
    private static final String RULE = "{\"_id\":\"posts\",\"roles\":[\"writer\"],\"priority\":10,"
            + "\"predicate\":\"path-prefix('/db/posts')\",\"readFilter\":{\"owner\":\"@user._id\"},"
            + "\"writeFilter\":{\"owner\":\"@user._id\",\"status\":\"draft\"}}";

    @Test
    void anIfMatchCheckedOnARememberedCopyFailsOnceTheOtherNodeChangedTheDocument() {
        Namespace ns = new Namespace("db", "posts");
        try (PgStores.Pair nodes = PgStores.pair(ns)) {
            Update inc = Update.parse(JSON.parse("{\"$inc\":{\"n\":1}}", "update"), QueryLimits.defaults());
            for (String id : List.of("u", "r", "d")) {
                String checked = nodes.a().write(new WriteOp.InsertMany(ns, List.of(doc("{\"_id\":\"" + id
                        + "\",\"owner\":\"alice\",\"status\":\"draft\",\"n\":0}")))).etag().orElseThrow();
                // the rule was checked on this etag; then node B publishes the document
                nodes.b().write(new WriteOp.UpdateOne(ns, JSON.parse("\"" + id + "\"", "id"),
                        Update.parse(JSON.parse("{\"$set\":{\"status\":\"published\"}}", "update"), QueryLimits.defaults()),
                        WriteMode.UPDATE, Optional.empty()));
                WriteOp write = switch (id) {
                    case "u" -> new WriteOp.UpdateOne(ns, JSON.parse("\"u\"", "id"), inc, WriteMode.UPDATE, Optional.of(checked));
                    case "r" -> new WriteOp.Replace(ns, doc("{\"_id\":\"r\",\"owner\":\"alice\",\"status\":\"draft\",\"n\":9}"),
                            WriteMode.UPDATE, Optional.of(checked));
                    default -> new WriteOp.DeleteOne(ns, JSON.parse("\"d\"", "id"), Optional.of(checked));
                };
                assertThat(nodes.a().write(write).outcome()).as(id).isEqualTo(Outcome.PRECONDITION_FAILED);
                JsonNode stored = JSON.parse(nodes.b().get(ns, JSON.parse("\"" + id + "\"", "id"), ReadMode.SINGLE)
                        .orElseThrow().json(), "doc");
                assertThat(stored.get("status").asString()).isEqualTo("published");
                assertThat(stored.get("n").asInt()).isZero();
            }
        }
    }

    @Test
    void aWriteFromARememberedCopyIsCheckedAgainstTheStoredDocument() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema));
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema))) {
            setUp(a);
            for (String id : List.of("given", "published", "deleted")) {
                status(a.send("POST", "/db/posts", "{\"_id\":\"" + id + "\",\"owner\":\"alice\",\"status\":\"draft\",\"n\":0}", ALICE), 201);
                // node A now remembers each document, as alice wrote and read it there
                status(a.send("GET", "/db/posts/" + id, null, ALICE), 200);
            }
            // node B moves two of them out of alice's rule; A's remembered copies still pass it
            status(b.send("PATCH", "/db/posts/given", "{\"$set\":{\"owner\":\"bob\"}}"), 200);
            status(b.send("PATCH", "/db/posts/published", "{\"$set\":{\"status\":\"published\"}}"), 200);

            // "given" left alice's readFilter: it is hidden (404); "published" is readable but outside her writeFilter (403)
            for (String id : List.of("given", "published")) {
                int expected = id.equals("given") ? 404 : 403;
                String message = id.equals("given") ? "document \"given\" does not exist" : "the document is outside this user's writeFilter";
                HttpResponse<String> patch = a.send("PATCH", "/db/posts/" + id, "{\"$inc\":{\"n\":1}}", ALICE);
                HttpResponse<String> replace = a.send("PUT", "/db/posts/" + id, "{\"owner\":\"alice\",\"status\":\"draft\",\"n\":9}", ALICE);
                HttpResponse<String> delete = a.send("DELETE", "/db/posts/" + id, null, ALICE);
                for (HttpResponse<String> refused : List.of(patch, replace, delete)) {
                    status(refused, expected);
                    assertThat(JSON.parse(refused.body(), "error").get("message").asString()).isEqualTo(message);
                }
                JsonNode stored = JSON.parse(status(b.get("/db/posts/" + id), 200).body(), "doc");
                assertThat(stored.get("n").asInt()).as(id + " unchanged").isZero();
            }
            assertThat(JSON.parse(status(a.get("/db/posts/given"), 200).body(), "doc").get("owner").asString()).isEqualTo("bob");

            // the control: a document still inside the rule is written from node A as before
            status(a.send("PATCH", "/db/posts/deleted", "{\"$inc\":{\"n\":1}}", ALICE), 200);
            status(b.send("DELETE", "/db/posts/deleted", null), 204);
            // deleted on B after A remembered it: alice's update through A finds nothing
            status(a.send("PATCH", "/db/posts/deleted", "{\"$inc\":{\"n\":1}}", ALICE), 404);
            status(a.get("/db/posts/deleted"), 404);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    /**
     * The group writer reads, in one locked statement before a group's writes, the documents its
     * node does not know (PgGroupWriter.lockUnknown); node A here remembers none
     * ({@code pg-known-documents-bytes 0}), so every document of alice's group, all written on
     * node B, comes through that read. Her drafts are written; her drafts she tries to give to bob
     * are refused inside the write (the written document leaves her writeFilter) and answered alone
     * while the rest of the group commits; her sent documents (outside the writeFilter) and bob's
     * (hidden by the readFilter) are refused as before, and none of them changes.
     */
    @Test
    void aRestrictedUsersGroupOfWritesOfDocumentsItsNodeDoesNotKnowIsCheckedOnTheRowsTheGroupLocked() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema), "--pg-known-documents-bytes", "0");
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema))) {
            setUp(a);
            List<String> prefixes = List.of("mine-", "give-", "sent-", "bobs-");
            StringBuilder docs = new StringBuilder("[");
            for (String prefix : prefixes) {
                for (int i = 0; i < 6; i++) {
                    docs.append(docs.length() == 1 ? "" : ",").append("{\"_id\":\"").append(prefix).append(i)
                            .append("\",\"owner\":\"").append(prefix.equals("bobs-") ? "bob" : "alice")
                            .append("\",\"status\":\"").append(prefix.equals("sent-") ? "sent" : "draft").append("\",\"n\":0}");
                }
            }
            status(b.post("/db/posts", docs.append("]").toString()), 200);

            long rolledBack = a.store().groupRolledBackWrites();
            long commits = a.store().groupCommits();
            long reruns = a.store().failedGroupBursts();
            a.store().gatherNextGroup(12, 20_000); // alice's writes of her drafts, together
            List<java.util.concurrent.Future<HttpResponse<String>>> answers = new ArrayList<>();
            try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
                for (String prefix : prefixes) {
                    for (int i = 0; i < 6; i++) {
                        String path = "/db/posts/" + prefix + i;
                        String update = prefix.equals("give-") ? "{\"$set\":{\"owner\":\"bob\"},\"$inc\":{\"n\":1}}" : "{\"$inc\":{\"n\":1}}";
                        answers.add(pool.submit(() -> a.send("PATCH", path, update, ALICE)));
                    }
                }
            }
            for (var answer : answers) {
                HttpResponse<String> r = answer.get();
                String path = r.request().uri().getPath();
                status(r, path.contains("mine-") ? 200 : path.contains("bobs-") ? 404 : 403);
            }
            assertThat(a.store().groupCommits() - commits).as("alice's writes were grouped").isPositive();
            assertThat(a.store().groupRolledBackWrites() - rolledBack).as("refused inside their group, answered alone").isEqualTo(6);
            // decided on the rows the group read first: a write reading its own row would need the savepoint rerun
            assertThat(a.store().failedGroupBursts()).as("groups run again with savepoints").isEqualTo(reruns);
            for (String prefix : prefixes) {
                for (int i = 0; i < 6; i++) {
                    JsonNode stored = JSON.parse(status(b.get("/db/posts/" + prefix + i), 200).body(), "doc");
                    assertThat(stored.get("n").asInt()).as(prefix + i).isEqualTo(prefix.equals("mine-") ? 1 : 0);
                    assertThat(stored.get("owner").asString()).as(prefix + i).isEqualTo(prefix.equals("bobs-") ? "bob" : "alice");
                }
            }
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    @Test
    void aStreamResumedOnTheOtherNodeWhileWritesGoOnShowsOnlyTheUsersDocumentsOnceInOrder() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema));
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema))) {
            setUp(a);
            status(a.post("/db/posts", "{\"_id\":\"first\",\"owner\":\"alice\",\"status\":\"draft\"}"), 201);
            // a write is acknowledged before its event is numbered and published (decision 0003):
            // the stream below must start after "first", so wait until node A has published it
            long first = 0;
            for (int i = 0; i < 1000 && (first == 0 || a.store().eventLog().last() < first); i++) {
                first = a.store().eventLog().after(0, 1000).stream().filter(e -> e.documentKey().asString().equals("first"))
                        .mapToLong(dev.weft.store.ChangeEvent::seq).findFirst().orElse(0);
                Thread.sleep(10);
            }
            assertThat(a.store().eventLog().last()).as("node A published the insert of first").isGreaterThanOrEqualTo(first).isPositive();
            String token;
            try (Sse sse = Sse.open(a, "/db/posts/_streams", null, ALICE)) {
                status(a.post("/db/posts", "{\"_id\":\"bob-0\",\"owner\":\"bob\",\"status\":\"draft\",\"secret\":\"bob-secret\"}"), 201);
                status(a.post("/db/posts", "{\"_id\":\"alice-0\",\"owner\":\"alice\",\"status\":\"draft\"}"), 201);
                JsonNode seen = sse.events.poll(10, TimeUnit.SECONDS);
                assertThat(seen).isNotNull();
                assertThat(seen.get("documentKey").get("_id").asString()).isEqualTo("alice-0");
                token = seen.get("_id").get("_data").asString();
            }
            // writes through both nodes go on while alice resumes on node B from A's token
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 1; i <= 40; i++) {
                        WeftNode via = i % 2 == 0 ? a : b;
                        String owner = i % 3 == 0 ? "alice" : "bob";
                        via.post("/db/posts", "{\"_id\":\"" + owner + "-" + i + "\",\"owner\":\"" + owner
                                + "\",\"status\":\"draft\",\"secret\":\"" + owner + "-secret\"}");
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(50);
            List<String> ids = new ArrayList<>();
            try (Sse sse = Sse.open(b, "/db/posts/_streams", token, ALICE)) {
                writer.join(60_000);
                for (JsonNode e; (e = sse.events.poll(3, TimeUnit.SECONDS)) != null; ) {
                    assertThat(e.toString()).doesNotContain("bob");
                    ids.add(e.get("documentKey").get("_id").asString());
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 3; i <= 40; i += 3) {
                expected.add("alice-" + i);
            }
            assertThat(ids).as("alice's documents after the token, each once, in commit order").containsExactlyElementsOf(expected);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }

    private static ObjectNode doc(String json) {
        return (ObjectNode) JSON.parse(json, "doc");
    }

    private static void setUp(WeftNode a) throws Exception {
        status(a.post("/weft/users", "{\"_id\":\"alice\",\"password\":\"alice-Password-1\",\"roles\":[\"writer\"]}"), 201);
        status(a.put("/db", null), 201);
        status(a.put("/db/posts", null), 201);
        status(a.post("/weft/acl", RULE), 201);
    }

    private static HttpResponse<String> status(HttpResponse<String> r, int expected) {
        assertThat(r.statusCode()).as(r.request().method() + " " + r.request().uri() + ": " + r.body()).isEqualTo(expected);
        return r;
    }
}
