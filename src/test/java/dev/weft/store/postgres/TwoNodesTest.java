package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult;
import dev.weft.store.WriteResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Two Weft nodes (two stores) on one PostgreSQL database: no lost update, one If-Match winner, unique keys, caches. */
class TwoNodesTest {
    private static final Json JSON = Json.standard();
    private static final Namespace NS = new Namespace("two", "docs");

    private String schema;
    private PostgresStore a;
    private PostgresStore b;

    @BeforeEach
    void open() {
        schema = PgTesting.freshSchema();
        a = PgStores.open(schema);
        b = PgStores.open(schema);
        a.putDatabase("two", obj("{}"), Optional.empty());
        a.putCollection(NS, obj("{}"), Optional.empty());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
        PgTesting.dropSchema(schema);
    }

    @Test
    void concurrentIncrementsFromBothNodesAreAllKept() throws Exception {
        assertThat(a.write(new WriteOp.Replace(NS, obj("{\"_id\":1,\"n\":0}"), WriteMode.INSERT, Optional.empty())).ok()).isTrue();
        Update inc = Update.parse(node("{\"$inc\":{\"n\":1}}"), QueryLimits.defaults());
        int perThread = 50;
        List<Callable<Void>> tasks = new ArrayList<>();
        for (Store node : List.of(a, b, a, b)) {
            tasks.add(() -> {
                for (int i = 0; i < perThread; i++) {
                    WriteResult r = node.write(new WriteOp.UpdateOne(NS, node("1"), inc, WriteMode.UPDATE, Optional.empty()));
                    assertThat(r.ok()).as(r.toString()).isTrue();
                }
                return null;
            });
        }
        runAll(tasks);
        JsonNode doc = JSON.parse(b.get(NS, node("1")).orElseThrow().json(), "doc");
        assertThat(doc.get("n").asInt()).isEqualTo(4 * perThread);
    }

    @Test
    void ifMatchRacesHaveExactlyOneWinner() throws Exception {
        for (int round = 0; round < 20; round++) {
            WriteResult created = a.write(new WriteOp.Replace(NS, obj("{\"_id\":\"r" + round + "\",\"v\":0}"),
                    WriteMode.INSERT, Optional.empty()));
            String etag = created.etag().orElseThrow();
            List<Callable<WriteResult>> racers = new ArrayList<>();
            for (Store node : List.of(a, b)) {
                String id = "r" + round;
                racers.add(() -> node.write(new WriteOp.Replace(NS, obj("{\"_id\":\"" + id + "\",\"v\":1}"),
                        WriteMode.UPDATE, Optional.of(etag))));
            }
            List<WriteResult> results = runAll(racers);
            assertThat(results.stream().filter(WriteResult::ok).count()).as(results.toString()).isEqualTo(1);
            assertThat(results.stream().filter(r -> r.outcome() == Outcome.PRECONDITION_FAILED).count()).isEqualTo(1);
        }
    }

    @Test
    void uniqueIndexHoldsAcrossNodes() throws Exception {
        a.createIndex(NS, new IndexSpec("u_1", List.of(new IndexField("u", 1)), true));
        waitFor(() -> b.indexes(NS).size() == 2);
        for (int round = 0; round < 20; round++) {
            int u = round;
            List<Callable<WriteResult>> racers = List.of(
                    () -> a.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":\"a" + u + "\",\"u\":" + u + "}")))),
                    () -> b.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":\"b" + u + "\",\"u\":" + u + "}")))));
            List<WriteResult> results = runAll(racers);
            assertThat(results.stream().filter(WriteResult::ok).count()).as(results.toString()).isEqualTo(1);
            assertThat(results.stream().filter(r -> r.outcome() == Outcome.CONFLICT).count()).isEqualTo(1);
        }
        assertThat(b.count(NS, null)).isEqualTo(20);
    }

    @Test
    void catalogAndCachesFollowTheOtherNodeWithinASecond() throws Exception {
        long before = b.version(NS);
        a.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":1}"))));
        waitFor(() -> b.version(NS) != before);

        a.createIndex(NS, new IndexSpec("x_1", List.of(new IndexField("x", 1)), false));
        waitFor(() -> b.indexes(NS).stream().anyMatch(i -> i.name().equals("x_1")));
        // b writes with the index it now knows: a finds the document through it
        b.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":2,\"x\":7}"))));
        assertThat(a.count(NS, dev.weft.query.Filter.parse(node("{\"x\":7}"), QueryLimits.defaults()))).isEqualTo(1);

        Namespace other = new Namespace("two", "other");
        b.putCollection(other, obj("{}"), Optional.empty());
        waitFor(() -> a.collections("two").contains("other"));
        a.dropCollection(other, Optional.empty());
        waitFor(() -> !b.collections("two").contains("other"));
    }

    @Test
    void aWriteOnANodeWithAStaleCatalogMaintainsTheNewIndex() throws Exception {
        b.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":0,\"k\":1}"))));
        a.createIndex(NS, new IndexSpec("k_1", List.of(new IndexField("k", 1)), true));
        // b may not have heard of k_1 yet: its write must still be checked against it
        WriteResult r = b.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":1,\"k\":1}"))));
        assertThat(r.outcome()).isEqualTo(Outcome.CONFLICT);
    }

    /**
     * Writes take no lock on the catalog: an index built on one node while the other writes must
     * still hold every document, those written during the build included (each write either
     * commits before the build reads the table, or sees the new gen and retries with the index).
     */
    @Test
    void anIndexBuiltWhileTheOtherNodeWritesHoldsEveryDocument() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Callable<Integer>> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int writer = w;
            writers.add(() -> {
                int n = 0;
                while (!stop.get()) {
                    WriteResult r = b.write(new WriteOp.InsertMany(NS, List.of(obj("{\"_id\":\"w" + writer + "_" + n + "\",\"k\":" + n + "}"))));
                    assertThat(r.ok()).as(r.toString()).isTrue();
                    n++;
                }
                return n;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(writers.size());
        try {
            List<Future<Integer>> running = writers.stream().map(pool::submit).toList();
            Thread.sleep(300);
            a.createIndex(NS, new IndexSpec("k_1", List.of(new IndexField("k", 1)), false));
            Thread.sleep(300);
            stop.set(true);
            int written = 0;
            for (Future<Integer> f : running) {
                written += f.get();
            }
            try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbc(), "postgres", null);
                 java.sql.Statement s = c.createStatement()) {
                s.execute("SET search_path = " + schema);
                long docs = single(s, "SELECT count(*) FROM d" + single(s, "SELECT id FROM weft_colls WHERE name = 'docs'"));
                long keys = single(s, "SELECT count(*) FROM i" + single(s, "SELECT id FROM weft_indexes WHERE name = 'k_1'"));
                assertThat(docs).isEqualTo(written);
                assertThat(keys).isEqualTo(docs);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static long single(java.sql.Statement s, String sql) throws java.sql.SQLException {
        try (java.sql.ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String jdbc() {
        java.net.URI uri = java.net.URI.create(PgTesting.baseUrl().replaceFirst("^postgresql:", "http:"));
        return "jdbc:postgresql://" + uri.getHost() + ":" + uri.getPort() + uri.getPath();
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("not seen within a second").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static <T> List<T> runAll(List<Callable<T>> tasks) throws Exception {
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<T>> futures = new ArrayList<>();
            tasks.forEach(t -> futures.add(pool.submit(t)));
            List<T> out = new ArrayList<>();
            for (Future<T> f : futures) {
                out.add(f.get());
            }
            return out;
        }
    }

    private static ObjectNode obj(String json) {
        return (ObjectNode) JSON.parse(json, "test");
    }

    private static JsonNode node(String json) {
        return JSON.parse(json, "test");
    }
}
