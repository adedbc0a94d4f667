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
    private static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
        assumeTrue(server.store instanceof SqliteStore, "held rows are SQLite's");
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", null);
        assertThat(send(server, "admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","url":"https://projects.apache.org/a1","secret":"alice-pach-secret"},
                 {"_id":"a2","owner":"alice","url":"https://example.org/a2"},
                 {"_id":"b1","owner":"bob","url":"https://apache.example/b1","secret":"bob-secret"},
                 {"_id":"b2","owner":"bob","url":"https://example.org/b2","secret":"pach"}]""").statusCode()).isEqualTo(200);
        assertThat(send(server, "admin", "POST", "/weft/acl", """
                [{"_id":"notes","roles":["user"],"priority":10,"predicate":"path-prefix('/db/notes')",
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
        for (int i = 0; i < 500 && !store.heldCollections().contains(NOTES); i++) {
            send(server, "admin", "GET", "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}"), null);
            Thread.sleep(10);
        }
        assertThat(store.heldCollections()).contains(NOTES);
    }

    private static List<String> ids(String who, String filter) throws Exception {
        HttpResponse<String> r = send(server, who, "GET", "/db/notes?filter=" + q(filter), null);
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
        assertThat(ids("admin", "{\"url\":{\"$regex\":\"pach\"}}")).containsExactly("b1", "a1");
        assertThat(ids("alice", "{\"url\":{\"$regex\":\"pach\"}}")).containsExactly("a1");
        assertThat(ids("bob", "{\"url\":{\"$regex\":\"pach\"}}")).containsExactly("b1");
        // the literal sits in a hidden field: the filter may not name it, and the held text shows nothing of it
        assertThat(send(server, "alice", "GET", "/db/notes?filter=" + q("{\"secret\":{\"$regex\":\"pach\"}}"), null)
                .statusCode()).isEqualTo(403);
        assertThat(ids("bob", "{\"url\":{\"$regex\":\"example\"}}")).containsExactly("b2", "b1");
        assertThat(((SqliteStore) server.store).heldCollections()).contains(NOTES);
    }

    @Test
    void aWriteIsSeenByTheNextReadOfHeldRows() throws Exception {
        String filter = "{\"url\":{\"$regex\":\"zebra\"}}";
        assertThat(ids("alice", filter)).isEmpty();
        assertThat(send(server, "alice", "PATCH", "/db/notes/a2", "{\"$set\":{\"url\":\"https://zebra.example/a2\"}}")
                .statusCode()).isEqualTo(200);
        assertThat(ids("alice", filter)).containsExactly("a2");
        assertThat(ids("bob", filter)).isEmpty();
        assertThat(send(server, "admin", "POST", "/db/notes", "[{\"_id\":\"a3\",\"owner\":\"alice\",\"url\":\"zebra\"}]")
                .statusCode()).isEqualTo(200);
        assertThat(ids("alice", filter)).containsExactly("a3", "a2");
        assertThat(send(server, "alice", "DELETE", "/db/notes/a2", null).statusCode()).isIn(200, 204);
        assertThat(ids("alice", filter)).containsExactly("a3");
        assertThat(send(server, "admin", "DELETE", "/db/notes/a3", null).statusCode()).isIn(200, 204);
        assertThat(ids("alice", filter)).isEmpty();
        assertThat(((SqliteStore) server.store).heldCollections()).contains(NOTES);
    }
}
