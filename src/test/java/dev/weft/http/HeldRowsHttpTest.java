package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.core.Json;
import dev.weft.store.Namespace;
import dev.weft.store.sqlite.SqliteStore;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Unindexed regex lists answered from a collection's rows held in memory (SQLite's
 * {@code held-rows-bytes}) obey the access rules as the table's reads do: a user's readFilter
 * narrows them and projectResponse hides its fields, and a write is seen by the next read.
 */
class HeldRowsHttpTest {
    private static final Namespace NOTES = new Namespace("db", "notes");
    /** The same documents with a trigram index on url: held rows stand for its lookup (a small collection). */
    private static final Namespace INDEXED = new Namespace("db", "tnotes");
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
        assumeTrue(server.store instanceof SqliteStore, "held rows are SQLite's");
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        for (Namespace ns : new Namespace[] {NOTES, INDEXED}) {
            String path = "/db/" + ns.coll();
            send(server, "admin", "PUT", path, null);
            assertThat(send(server, "admin", "POST", path, """
                    [{"_id":"a1","owner":"alice","url":"https://projects.apache.org/a1","secret":"alice-pach-secret"},
                     {"_id":"a2","owner":"alice","url":"https://example.org/a2"},
                     {"_id":"b1","owner":"bob","url":"https://apache.example/b1","secret":"bob-secret"},
                     {"_id":"b2","owner":"bob","url":"https://example.org/b2","secret":"pach"}]""").statusCode()).isEqualTo(200);
            // carol's documents, which alice and bob may not read: enough that the planner takes tnotes' trigram lookup
            StringBuilder fillers = new StringBuilder("[");
            for (int i = 0; i < 60; i++) {
                fillers.append(i == 0 ? "" : ",").append("{\"_id\":\"c").append(i)
                        .append("\",\"owner\":\"carol\",\"url\":\"https://filler.test/").append(i).append("\"}");
            }
            assertThat(send(server, "admin", "POST", path, fillers.append("]").toString()).statusCode()).isEqualTo(200);
        }
        assertThat(send(server, "admin", "PUT", "/db/tnotes/_indexes/url", "{\"keys\":{\"url\":\"trigram\"}}").statusCode())
                .isEqualTo(201);
        assertThat(send(server, "admin", "POST", "/weft/acl", """
                [{"_id":"notes","roles":["user"],"priority":10,"predicate":"path-prefix('/db/notes') or path-prefix('/db/tnotes')",
                  "readFilter":{"owner":"@user._id"},"writeFilter":{"owner":"@user._id"},
                  "projectResponse":{"secret":0}}]""").statusCode()).isEqualTo(200);
        awaitHeld();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** A regex list asks for the collection's rows; the writer reads them in soon after. */
    private static void awaitHeld() throws Exception {
        SqliteStore store = (SqliteStore) server.store;
        for (int i = 0; i < 500 && !store.heldCollections().containsAll(java.util.Set.of(NOTES, INDEXED)); i++) {
            send(server, "admin", "GET", "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}"), null);
            send(server, "admin", "GET", "/db/tnotes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}"), null);
            Thread.sleep(10);
        }
        assertThat(store.heldCollections()).contains(NOTES, INDEXED);
    }

    private static List<String> ids(Namespace ns, String who, String filter) throws Exception {
        HttpResponse<String> r = send(server, who, "GET", "/db/" + ns.coll() + "?filter=" + q(filter), null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        if (!who.equals("admin")) {
            assertThat(r.body()).doesNotContain("secret");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode d : Json.standard().parse(r.body(), "answer")) {
            out.add(d.get("_id").asString());
        }
        return out;
    }

    @Test
    void aRestrictedUserSeesOnlyWhatTheRulesAllowFromHeldRows() throws Exception {
        for (Namespace ns : new Namespace[] {NOTES, INDEXED}) {
            restrictedReads(ns);
        }
        assertThat(((SqliteStore) server.store).heldCollections()).contains(NOTES, INDEXED);
    }

    private static void restrictedReads(Namespace ns) throws Exception {
        String path = "/db/" + ns.coll();
        assertThat(ids(ns, "admin", "{\"url\":{\"$regex\":\"pach\"}}")).containsExactly("b1", "a1");
        assertThat(ids(ns, "alice", "{\"url\":{\"$regex\":\"pach\"}}")).containsExactly("a1");
        assertThat(ids(ns, "bob", "{\"url\":{\"$regex\":\"pach\"}}")).containsExactly("b1");
        if (ns.equals(INDEXED)) { // the trigram lookup was planned: held rows stood for it
            assertThat(((SqliteStore) server.store).lastPlan().description()).startsWith("TRIGRAMS");
        }
        // the literal sits in a hidden field: the filter may not name it, and the held text shows nothing of it
        assertThat(send(server, "alice", "GET", path + "?filter=" + q("{\"secret\":{\"$regex\":\"pach\"}}"), null)
                .statusCode()).isEqualTo(403);
        assertThat(ids(ns, "bob", "{\"url\":{\"$regex\":\"example\"}}")).containsExactly("b2", "b1");
    }

    @Test
    void aWriteIsSeenByTheNextReadOfHeldRows() throws Exception {
        for (Namespace ns : new Namespace[] {NOTES, INDEXED}) {
            writesThenReads(ns);
        }
        assertThat(((SqliteStore) server.store).heldCollections()).contains(NOTES, INDEXED);
    }

    private static void writesThenReads(Namespace ns) throws Exception {
        String path = "/db/" + ns.coll();
        String filter = "{\"url\":{\"$regex\":\"zebra\"}}";
        assertThat(ids(ns, "alice", filter)).isEmpty();
        assertThat(send(server, "alice", "PATCH", path + "/a2", "{\"$set\":{\"url\":\"https://zebra.example/a2\"}}")
                .statusCode()).isEqualTo(200);
        assertThat(ids(ns, "alice", filter)).containsExactly("a2");
        assertThat(ids(ns, "bob", filter)).isEmpty();
        assertThat(send(server, "admin", "POST", path, "[{\"_id\":\"a3\",\"owner\":\"alice\",\"url\":\"zebra\"}]")
                .statusCode()).isEqualTo(200);
        assertThat(ids(ns, "alice", filter)).containsExactly("a3", "a2");
        assertThat(send(server, "alice", "DELETE", path + "/a2", null).statusCode()).isIn(200, 204);
        assertThat(ids(ns, "alice", filter)).containsExactly("a3");
        assertThat(send(server, "admin", "DELETE", path + "/a3", null).statusCode()).isIn(200, 204);
        assertThat(ids(ns, "alice", filter)).isEmpty();
    }
}
