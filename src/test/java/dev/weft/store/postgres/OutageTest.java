package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL stopped ({@code pg_ctl stop -m fast}) in the middle of a write load and started
 * again, on a cluster of this test's own: while it is down Weft answers 503 with a JSON error; no
 * request takes longer than its bounds ({@code pg-timeout-ms} to get a connection,
 * {@code pg-statement-timeout-ms} per statement); writes succeed again within 10 s of
 * PostgreSQL being back, with nothing done by hand; every acknowledged write is there.
 */
class OutageTest {
    private static final int WRITERS = 8;
    /** Readers of single documents by id (each id asked once, so none is answered from the result cache). */
    private static final int READERS = 4;
    private static final long PG_TIMEOUT_MS = 1000;
    private static final long STATEMENT_TIMEOUT_MS = 2000;

    @Test
    void stoppedPostgresMeans503sThenRecoveryWithNoAcknowledgedWriteLost() throws Exception {
        try (PgCluster pg = PgCluster.start();
             WeftNode node = new WeftNode(Duration.ofSeconds(60), "--store", pg.url(),
                     "--pg-timeout-ms", Long.toString(PG_TIMEOUT_MS),
                     "--pg-statement-timeout-ms", Long.toString(STATEMENT_TIMEOUT_MS));
             var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            node.put("/o", null);
            assertThat(node.put("/o/w", null).statusCode()).isEqualTo(201);

            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
            List<String> errorBodies = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicLong slowest = new AtomicLong();
            AtomicLong lastAck = new AtomicLong();
            AtomicBoolean running = new AtomicBoolean(true);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    for (int i = 0; running.get(); i++) {
                        String id = "w" + writer + "-" + i;
                        long start = System.nanoTime();
                        HttpResponse<String> r = node.post("/o/w", "{\"_id\":\"" + id + "\",\"n\":" + i + "}");
                        long took = System.nanoTime() - start;
                        slowest.accumulateAndGet(took, Math::max);
                        statuses.computeIfAbsent(r.statusCode(), k -> new AtomicLong()).incrementAndGet();
                        if (r.statusCode() == 201) {
                            acknowledged.add(id);
                            lastAck.set(System.nanoTime());
                        } else if (errorBodies.size() < 5) {
                            errorBodies.add(r.statusCode() + " " + r.body());
                        }
                    }
                    return null;
                }));
            }
            Map<Integer, AtomicLong> readStatuses = new ConcurrentHashMap<>();
            List<String> readErrors = java.util.Collections.synchronizedList(new ArrayList<>());
            AtomicLong slowestRead = new AtomicLong();
            AtomicLong lastRead = new AtomicLong();
            for (int r = 0; r < READERS; r++) {
                int reader = r;
                writers.add(pool.submit(() -> {
                    for (int i = 0; running.get(); i++) {
                        long start = System.nanoTime();
                        HttpResponse<String> got = node.get("/o/w/missing-" + reader + "-" + i);
                        slowestRead.accumulateAndGet(System.nanoTime() - start, Math::max);
                        readStatuses.computeIfAbsent(got.statusCode(), k -> new AtomicLong()).incrementAndGet();
                        if (got.statusCode() == 404) {
                            lastRead.set(System.nanoTime());
                        } else if (readErrors.size() < 5) {
                            readErrors.add(got.statusCode() + " " + got.body());
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(1500);
            long ackedBeforeStop = acknowledged.size();
            pg.stop();
            long stopped = System.nanoTime();
            Thread.sleep(3000);
            // (a write committed just before the shutdown may be answered a moment after it)
            boolean ackedWhileDown = lastAck.get() - (stopped + 500_000_000L) > 0;
            pg.startServer();
            long restarted = System.nanoTime();
            while (lastAck.get() - restarted < 0 && System.nanoTime() - restarted < 20_000_000_000L) {
                Thread.sleep(20);
            }
            long recoveryMs = (lastAck.get() - restarted) / 1_000_000;
            while (lastRead.get() - restarted < 0 && System.nanoTime() - restarted < 20_000_000_000L) {
                Thread.sleep(20);
            }
            long readRecoveryMs = (lastRead.get() - restarted) / 1_000_000;
            Thread.sleep(1000);
            running.set(false);
            for (Future<?> f : writers) {
                f.get();
            }

            System.out.printf("outage: %d writes acknowledged, statuses %s, first write %d ms after the restart,"
                    + " slowest request %d ms%n", acknowledged.size(), statuses, recoveryMs, slowest.get() / 1_000_000);
            assertThat(ackedBeforeStop).as("writes before the stop").isPositive();
            assertThat(ackedWhileDown).as("a write acknowledged while PostgreSQL is down").isFalse();
            assertThat(statuses.get(503)).as("503s while down: " + statuses).isNotNull();
            assertThat(statuses.keySet()).as("statuses").containsOnly(201, 503);
            assertThat(errorBodies.getFirst()).contains("\"http status code\":503").contains("PostgreSQL is unavailable");
            assertThat(recoveryMs).as("first acknowledged write after PostgreSQL is back (ms)").isBetween(0L, 10_000L);
            // connection wait, then at worst one statement and its socket bound, and HTTP overhead
            assertThat(slowest.get() / 1_000_000).as("slowest request (ms)")
                    .isLessThan(PG_TIMEOUT_MS + 2 * STATEMENT_TIMEOUT_MS + 3000);

            // nothing acknowledged is lost: every acknowledged _id is there after the restart
            List<String> missing = new ArrayList<>();
            for (String id : acknowledged) {
                if (node.get("/o/w/" + id).statusCode() != 200) {
                    missing.add(id);
                }
            }
            assertThat(missing).as("acknowledged writes missing of " + acknowledged.size()).isEmpty();
            String size = node.get("/o/w/_size").body();
            long stored = Long.parseLong(size.replaceAll("\\D", ""));
            assertThat(stored).isGreaterThanOrEqualTo(acknowledged.size());

            System.out.printf("outage: reads %s, first read answered %d ms after the restart, slowest read %d ms%n",
                    readStatuses, readRecoveryMs, slowestRead.get() / 1_000_000);
            assertThat(readStatuses.get(503)).as("reads answered 503 while down: " + readStatuses).isNotNull();
            assertThat(readStatuses.keySet()).as("read statuses").containsOnly(404, 503);
            assertThat(readErrors.getFirst()).contains("\"http status code\":503").contains("PostgreSQL is unavailable");
            assertThat(readRecoveryMs).as("first read answered after PostgreSQL is back (ms)").isBetween(0L, 10_000L);
            assertThat(slowestRead.get() / 1_000_000).as("slowest read (ms)")
                    .isLessThan(PG_TIMEOUT_MS + 2 * STATEMENT_TIMEOUT_MS + 3000);
        }
    }

    @Test
    void aStartingNodeWaitsForAPrimaryThatIsStillStarting() throws Exception {
        try (PgCluster pg = PgCluster.start()) {
            pg.stop();
            Thread late = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(2000);
                    pg.startServer();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (WeftNode node = new WeftNode(Duration.ofSeconds(30), "--store", pg.url(),
                    "--pg-timeout-ms", Long.toString(PG_TIMEOUT_MS), "--pg-startup-wait-ms", "60000")) {
                late.join();
                assertThat(node.put("/late", null).statusCode()).isEqualTo(201);
            }
        }
    }
}
