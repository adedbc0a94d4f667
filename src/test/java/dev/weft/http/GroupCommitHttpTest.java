package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static org.assertj.core.api.Assertions.assertThat;

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

/**
 * Issue 17, item 4: concurrent writes of different requests, which PostgreSQL commits in groups
 * (one transaction, a savepoint per write): a write the access rules refuse (alice's PATCH giving
 * her document to bob, past her writeFilter) and an insert of an _id that exists are answered alone
 * (404, 409) and change nothing, while every other write of their groups commits. On SQLite the
 * same requests go through its single writer's groups.
 */
class GroupCommitHttpTest {
    private static final int OWN = 30;
    private static final int REFUSED = 3;

    TestServer server;

    @BeforeEach
    void start() throws Exception {
        StringBuilder docs = new StringBuilder();
        for (int i = 0; i < OWN; i++) {
            docs.append(",{\"_id\":\"n").append(i).append("\",\"owner\":\"alice\",\"text\":\"t\"}");
        }
        for (int i = 0; i < REFUSED; i++) {
            docs.append(",{\"_id\":\"x").append(i).append("\",\"owner\":\"alice\",\"text\":\"t\"}");
        }
        server = OwnedSharedCollection.start(docs);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    @Test
    void aRefusedWriteAndADuplicateInAGroupAreAnsweredAloneAndTheOthersCommit() throws Exception {
        List<Callable<HttpResponse<String>>> writes = new ArrayList<>();
        for (int i = 0; i < OWN; i++) {
            String path = "/db/shared/n" + i;
            writes.add(() -> send(server, "alice", "PATCH", path, "{\"$set\":{\"text\":\"mine\"}}"));
            if (i % 10 == 5) {
                String refused = "/db/shared/x" + i / 10;
                writes.add(() -> send(server, "alice", "PATCH", refused, "{\"$set\":{\"owner\":\"bob\"}}"));
                writes.add(() -> send(server, "admin", "PUT", "/db/shared/b1?wm=insert", "{\"owner\":\"eve\"}"));
            }
        }
        if (server.store instanceof PostgresStore) {
            PgGroupHooks.gatherNextGroup(server.store, writes.size(), 20_000); // all of them in one group
        }
        List<HttpResponse<String>> answers = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (Callable<HttpResponse<String>> w : writes) {
                futures.add(pool.submit(w));
            }
            for (Future<HttpResponse<String>> f : futures) {
                answers.add(f.get());
            }
        }
        int refused = 0;
        int duplicates = 0;
        for (HttpResponse<String> r : answers) {
            String path = r.request().uri().getPath();
            if (path.startsWith("/db/shared/n")) {
                assertThat(r.statusCode()).as(path + " " + r.body()).isEqualTo(200);
            } else if (r.request().method().equals("PATCH")) {
                assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
                assertThat(r.body()).contains("\"http status code\":403");
                refused++;
            } else {
                assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
                assertThat(r.body()).contains("\"http status code\":409");
                duplicates++;
            }
        }
        assertThat(refused).isEqualTo(REFUSED);
        assertThat(duplicates).isEqualTo(REFUSED);
        for (int i = 0; i < OWN; i++) {
            assertThat(send(server, "admin", "GET", "/db/shared/n" + i, null).body()).contains("\"text\":\"mine\"");
        }
        for (int i = 0; i < REFUSED; i++) {
            assertThat(send(server, "admin", "GET", "/db/shared/x" + i, null).body()).contains("\"owner\":\"alice\"");
        }
        String b1 = send(server, "admin", "GET", "/db/shared/b1", null).body();
        assertThat(b1).contains("\"owner\":\"bob\"").contains("\"text\":\"bob-text\"");
        if (server.store instanceof PostgresStore pg) {
            assertThat(pg.groupCommits()).as("group transactions").isPositive();
            assertThat(pg.groupedWrites()).as("writes they committed").isGreaterThan(pg.groupCommits());
            assertThat(pg.groupRolledBackWrites()).as("writes undone in a group, answered alone").isGreaterThanOrEqualTo(2L * REFUSED);
        }
    }
}
