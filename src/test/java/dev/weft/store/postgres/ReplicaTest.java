package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A primary and a streaming hot standby of its own (not the shared test cluster), and a Weft node
 * with the standby as {@code --read-replica}: where reads are served from in each read mode, and
 * what each durability does on the database.
 */
class ReplicaTest {
    private static PgCluster primary;
    private static PgCluster replica;
    private static WeftNode node;

    @BeforeAll
    static void start() throws Exception {
        primary = PgCluster.start();
        replica = primary.replica();
        node = new WeftNode(Duration.ofSeconds(30), "--store", primary.url(), "--read-replica", replica.url(),
                "--pg-timeout-ms", "1000", "--replica-retry-ms", "500");
        assertThat(node.put("/r", null).statusCode()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
        if (replica != null) {
            replica.close();
        }
        if (primary != null) {
            primary.close();
        }
    }

    @Test
    void outdatedReadsAreServedByTheReplicaAndDefaultReadsByThePrimary() throws Exception {
        assertThat(node.put("/r/out", null).statusCode()).isEqualTo(201);
        assertThat(node.post("/r/out", "{\"_id\":\"a\"}").statusCode()).isEqualTo(201);
        awaitReplay();
        replica.sql("SELECT pg_wal_replay_pause()");
        awaitPaused();
        try {
            assertThat(node.post("/r/out", "{\"_id\":\"b\"}").statusCode()).isEqualTo(201);

            // the default read mode reads the primary: the acknowledged write is there
            assertThat(node.get("/r/out/b").statusCode()).isEqualTo(200);
            assertThat(node.get("/r/out/_size").body()).contains("\"_size\":2");
            // outdated reads are served by the paused replica, which has not seen it
            assertThat(node.get("/r/out/b?readMode=outdated").statusCode()).isEqualTo(404);
            assertThat(node.get("/r/out?readMode=outdated").body()).contains("\"a\"").doesNotContain("\"b\"");
            assertThat(node.get("/r/out/_size?readMode=outdated").body()).contains("\"_size\":1");
            // ... and are not served from a result cached by a primary read, nor the other way round
            assertThat(node.get("/r/out").body()).contains("\"b\"");
            assertThat(node.get("/r/out?readMode=outdated").body()).doesNotContain("\"b\"");
            assertThat(node.get("/r/out").body()).contains("\"b\"");

            // a collection property makes outdated the collection's default; a parameter overrides it
            assertThat(node.put("/r/out", "{\"readMode\":\"outdated\"}").statusCode()).isEqualTo(200);
            assertThat(node.get("/r/out/b").statusCode()).isEqualTo(404);
            assertThat(node.get("/r/out/b?readMode=single").statusCode()).isEqualTo(200);

            // a collection created after the pause is not on the replica yet: outdated reads of it go to the primary
            assertThat(node.put("/r/late", null).statusCode()).isEqualTo(201);
            assertThat(node.post("/r/late", "{\"_id\":\"x\"}").statusCode()).isEqualTo(201);
            assertThat(node.get("/r/late/x?readMode=outdated").statusCode()).isEqualTo(200);
        } finally {
            replica.sql("SELECT pg_wal_replay_resume()");
        }
        awaitReplay();
        assertThat(node.get("/r/out/b?readMode=outdated").statusCode()).isEqualTo(200);

        // a replica that is down is left out: outdated reads fall back to the primary
        replica.stop();
        try {
            assertThat(node.post("/r/out", "{\"_id\":\"c\"}").statusCode()).isEqualTo(201);
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = node.get("/r/out/c?readMode=outdated");
                assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            }
        } finally {
            replica.startServer();
        }
        awaitReplay();
    }

    @Test
    void unknownModesAreRefused() throws Exception {
        assertThat(node.put("/r/bad", null).statusCode()).isEqualTo(201);
        assertThat(node.get("/r/bad?readMode=stale").statusCode()).isEqualTo(400);
        assertThat(node.get("/r/bad/1?readMode=stale").statusCode()).isEqualTo(400);
        HttpResponse<String> soft = node.post("/r/bad?durability=eventual", "{\"_id\":1}");
        assertThat(soft.statusCode()).isEqualTo(400);
        assertThat(soft.body()).contains("durability must be hard or soft");
        assertThat(node.put("/r/bad", "{\"readMode\":\"majority\"}").statusCode()).isEqualTo(400);
        assertThat(node.put("/r/bad", "{\"durability\":1}").statusCode()).isEqualTo(400);
        assertThat(node.get("/r/bad/_size").body()).contains("\"_size\":0");
    }

    /**
     * What the test observes is the statement Weft runs in the write's transaction
     * (pg_stat_statements counts it), not the WAL flush itself; the next test observes the wait.
     */
    @Test
    void softWritesCommitWithSynchronousCommitOff() throws Exception {
        primary.sql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        assertThat(node.put("/r/soft", null).statusCode()).isEqualTo(201);
        assertThat(node.put("/r/softcoll", "{\"durability\":\"soft\"}").statusCode()).isEqualTo(201);
        primary.sql("SELECT pg_stat_statements_reset()");
        for (int i = 0; i < 3; i++) {
            assertThat(node.post("/r/soft?durability=soft", "{\"_id\":\"s" + i + "\"}").statusCode()).isEqualTo(201);
        }
        assertThat(node.post("/r/soft", "{\"_id\":\"h1\"}").statusCode()).isEqualTo(201);
        assertThat(node.post("/r/soft?durability=hard", "{\"_id\":\"h2\"}").statusCode()).isEqualTo(201);
        assertThat(node.post("/r/softcoll", "{\"_id\":\"c1\"}").statusCode()).isEqualTo(201);
        assertThat(node.send("PATCH", "/r/softcoll/c1", "{\"$set\":{\"v\":1}}").statusCode()).isEqualTo(200);
        assertThat(node.post("/r/softcoll?durability=hard", "{\"_id\":\"c2\"}").statusCode()).isEqualTo(201);
        assertThat(primary.sql("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
                + " WHERE query ILIKE 'SET LOCAL synchronous_commit%off%'")).isEqualTo("5");
        assertThat(node.get("/r/soft/_size").body()).contains("\"_size\":5");
    }

    /**
     * With the replica made a synchronous standby and then stopped, a hard write waits for it
     * (its commit is not durable as the cluster defines durable until the standby has it) while a
     * soft write is acknowledged at once; the hard write completes when the standby is back.
     */
    @Test
    void hardWritesWaitForASynchronousStandbySoftWritesDoNot() throws Exception {
        assertThat(node.put("/r/sync", null).statusCode()).isEqualTo(201);
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
        primary.sql("SELECT pg_reload_conf()");
        var pool = Executors.newVirtualThreadPerTaskExecutor();
        boolean down = false;
        try {
            await(() -> primary.sql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").equals("1"));
            replica.stop();
            down = true;
            assertThat(node.post("/r/sync?durability=soft", "{\"_id\":\"soft\"}").statusCode()).isEqualTo(201);
            CompletableFuture<HttpResponse<String>> hard = CompletableFuture.supplyAsync(() -> {
                try {
                    return node.post("/r/sync", "{\"_id\":\"hard\"}");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, pool);
            Thread.sleep(2000);
            assertThat(hard).as("a hard write is not acknowledged while the synchronous standby is down").isNotDone();
            replica.startServer();
            down = false;
            assertThat(hard.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        } finally {
            primary.sql("ALTER SYSTEM RESET synchronous_standby_names");
            primary.sql("SELECT pg_reload_conf()");
            if (down) {
                replica.startServer();
            }
            pool.close();
        }
        assertThat(node.get("/r/sync/_size").body()).contains("\"_size\":2");
    }

    private static void awaitReplay() throws Exception {
        String lsn = primary.sql("SELECT pg_current_wal_lsn()");
        await(() -> replica.sql("SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn").equals("t"));
    }

    private static void awaitPaused() throws Exception {
        await(() -> replica.sql("SELECT pg_get_wal_replay_pause_state()").equals("paused"));
    }

    interface Check {
        boolean ok() throws Exception;
    }

    private static void await(Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!check.ok()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out; primary log:\n" + primary.log() + "\nreplica log:\n" + replica.log());
            }
            Thread.sleep(50);
        }
    }
}
