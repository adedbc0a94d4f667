package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.store.postgres.PgGroupHooks;
import dev.weft.store.postgres.PostgresStore;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 17, item 4: concurrent {@code GET /db/coll/{id}}, which PostgreSQL reads in groups (one
 * statement for many requests' documents): each request gets its own document as its caller may
 * see it (alice's readFilter hides bob's document: 404), a missing one is 404, and a GET sent
 * right after its request's PATCH was answered sees the PATCH. On SQLite the same requests read
 * alone.
 */
class GroupedReadsHttpTest {
    private static final int OWN = 24;

    TestServer server;

    @BeforeEach
    void start() throws Exception {
        StringBuilder docs = new StringBuilder();
        for (int i = 0; i < OWN; i++) {
            docs.append(",{\"_id\":\"a").append(i).append("\",\"owner\":\"alice\",\"text\":\"t").append(i).append("\"}");
        }
        server = OwnedSharedCollection.start(docs);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void concurrentReadsEachGetTheirOwnDocumentAsTheirCallerMaySeeIt() throws Exception {
        List<Callable<HttpResponse<String>>> reads = new ArrayList<>();
        for (int i = 0; i < OWN; i++) {
            String path = "/db/shared/a" + i;
            reads.add(() -> send(server, "alice", "GET", path, null));
        }
        reads.add(() -> send(server, "alice", "GET", "/db/shared/b1", null));
        reads.add(() -> send(server, "admin", "GET", "/db/shared/b1", null));
        reads.add(() -> send(server, "admin", "GET", "/db/shared/nothing", null));
        // the callers' credentials are read (through the same readers) and remembered first: a group
        // gathering the documents' reads would otherwise hold back the logins those reads wait behind
        for (String who : List.of("alice", "admin")) {
            assertThat(send(server, who, "GET", "/db/shared/warm", null).statusCode()).isEqualTo(404);
        }
        if (server.store instanceof PostgresStore) {
            PgGroupHooks.gatherNextReads(server.store, reads.size(), 20_000); // all of them in one group
        }
        List<HttpResponse<String>> answers = all(reads);
        for (int i = 0; i < OWN; i++) {
            HttpResponse<String> r = answers.get(i);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            JsonNode doc = Json.standard().parse(r.body(), "answer");
            assertThat(doc.get("_id").asString()).isEqualTo("a" + i);
            assertThat(doc.get("text").asString()).isEqualTo("t" + i);
            assertThat(doc.get("owner").asString()).isEqualTo("alice");
        }
        assertThat(answers.get(OWN).statusCode()).as("bob's document, for alice").isEqualTo(404);
        assertThat(answers.get(OWN).body()).contains("\"http status code\":404");
        assertThat(answers.get(OWN + 1).statusCode()).isEqualTo(200);
        assertThat(Json.standard().parse(answers.get(OWN + 1).body(), "answer").get("text").asString()).isEqualTo("bob-text");
        assertThat(answers.get(OWN + 2).statusCode()).isEqualTo(404);
        assertThat(answers.get(OWN + 2).body()).contains("document nothing does not exist");
        if (server.store instanceof PostgresStore pg) {
            assertThat(pg.groupedReads()).as("reads answered by groups").isGreaterThanOrEqualTo(reads.size());
            assertThat(pg.groupReadStatements()).as("statements they took").isLessThan(pg.groupedReads() / 2);
        }
    }

    @Test
    void aReadAfterItsRequestsWriteSeesTheWrite() throws Exception {
        for (int round = 0; round < 3; round++) {
            String text = "round" + round;
            List<Callable<HttpResponse<String>>> sequences = new ArrayList<>();
            for (int i = 0; i < OWN; i++) {
                String path = "/db/shared/a" + i;
                sequences.add(() -> {
                    HttpResponse<String> w = send(server, "alice", "PATCH", path, "{\"$set\":{\"text\":\"" + text + "\"}}");
                    assertThat(w.statusCode()).as(w.body()).isEqualTo(200);
                    return send(server, "alice", "GET", path, null);
                });
            }
            for (HttpResponse<String> r : all(sequences)) {
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                assertThat(Json.standard().parse(r.body(), "answer").get("text").asString()).isEqualTo(text);
            }
        }
    }

    private static List<HttpResponse<String>> all(List<Callable<HttpResponse<String>>> calls) throws Exception {
        List<HttpResponse<String>> answers = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (Callable<HttpResponse<String>> c : calls) {
                futures.add(pool.submit(c));
            }
            for (Future<HttpResponse<String>> f : futures) {
                answers.add(f.get());
            }
        }
        return answers;
    }
}
