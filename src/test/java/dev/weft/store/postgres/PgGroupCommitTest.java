package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult;
import dev.weft.store.WriteResult.Outcome;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 17, item 4: group commit on PostgreSQL ({@link PgGroupWriter}). One writer, whose first
 * group waits in its transaction a moment so that the other writes queue up behind it: they then
 * commit in few transactions; a failing write leaves its group's others committed; a connection
 * lost before the group's COMMIT acknowledges none of that group.
 */
class PgGroupCommitTest {
    private static final Json JSON = Json.standard();
    private static final Namespace NS = new Namespace("gc", "docs");
    private static final int WRITES = 48;

    private String schema;
    private PostgresStore store;
    private final AtomicInteger groups = new AtomicInteger();

    @BeforeEach
    void open() {
        schema = PgTesting.freshSchema();
        store = PgStores.open(schema, "--pg-group-writers", "1");
        store.putDatabase(NS.db(), Json.NODES.objectNode(), Optional.empty());
        store.putCollection(NS, Json.NODES.objectNode(), Optional.empty());
        store.write(insert(-1));
    }

    @AfterEach
    void close() {
        store.close();
        PgTesting.dropSchema(schema);
    }

    /** The first group waits in its transaction, so that the writes after it queue up and form the next. */
    private void firstGroupWaits(PgGroupWriter.BeforeCommit then) {
        store.beforeGroupCommit((c, n) -> {
            if (groups.incrementAndGet() == 1) {
                sleep(400);
            } else {
                then.run(c, n);
            }
        });
    }

    @Test
    void manyConcurrentWritersCommitInFewerTransactionsThanWritesAndEveryAcknowledgedWriteIsStored() throws Exception {
        firstGroupWaits((c, n) -> {});
        List<Object> results = concurrently(WRITES, this::insert);
        assertThat(results).allSatisfy(r -> assertThat(((WriteResult) r).outcome()).isEqualTo(Outcome.CREATED));
        Update inc = Update.parse(JSON.parse("{\"$inc\":{\"n\":1}}", "update"), QueryLimits.defaults());
        List<Object> updates = concurrently(WRITES, i ->
                new WriteOp.UpdateOne(NS, JSON.parse(Integer.toString(i), "id"), inc, WriteMode.UPDATE, Optional.empty()));
        assertThat(updates).allSatisfy(r -> assertThat(((WriteResult) r).outcome()).isEqualTo(Outcome.UPDATED));
        for (int i = 0; i < WRITES; i++) {
            assertThat(n(i)).isEqualTo(i + 1);
        }
        assertThat(store.groupedWrites()).as("writes committed by groups").isGreaterThan(WRITES);
        assertThat(store.groupCommits()).as("their transactions").isLessThan(store.groupedWrites() / 4);
    }

    @Test
    void aDuplicateIdFailsAloneWith409AndTheRestOfItsGroupCommits() throws Exception {
        firstGroupWaits((c, n) -> {});
        List<Object> results = concurrently(WRITES, i -> insert(i == WRITES / 2 ? -1 : i));
        for (int i = 0; i < WRITES; i++) {
            WriteResult r = (WriteResult) results.get(i);
            if (i == WRITES / 2) {
                assertThat(r.outcome()).isEqualTo(Outcome.CONFLICT);
                assertThat(r.message().orElseThrow()).contains("_id");
            } else {
                assertThat(r.outcome()).isEqualTo(Outcome.CREATED);
                assertThat(n(i)).isEqualTo(i);
            }
        }
        assertThat(n(-1)).isEqualTo(-1);
        // how many writes found others waiting depends on the scheduler (23 of 48 in one full run)
        assertThat(store.groupedWrites()).isGreaterThanOrEqualTo(WRITES / 4);
        assertThat(store.groupCommits()).isLessThan(store.groupedWrites() / 2);
    }

    @Test
    void aConnectionKilledBeforeTheGroupCommitsAcknowledgesNothingOfThatGroup() throws Exception {
        AtomicInteger killedGroup = new AtomicInteger();
        store.beforeGroupCommit((c, n) -> {
            if (killedGroup.compareAndSet(0, n)) {
                int pid = c.unwrap(org.postgresql.PGConnection.class).getBackendPID();
                admin("SELECT pg_terminate_backend(" + pid + ")");
            }
        });
        store.gatherNextGroup(8, 10_000); // a write alone is a group of one: the killed group is to hold several
        List<Object> results = concurrently(WRITES, this::insert);
        int refused = 0;
        for (int i = 0; i < WRITES; i++) {
            if (results.get(i) instanceof WeftException e) {
                assertThat(e.status()).isEqualTo(503);
                assertThat(store.get(NS, JSON.parse(Integer.toString(i), "id"), ReadMode.SINGLE)).as("unacknowledged " + i).isEmpty();
                refused++;
            } else {
                assertThat(((WriteResult) results.get(i)).outcome()).isEqualTo(Outcome.CREATED);
                assertThat(n(i)).isEqualTo(i);
            }
        }
        assertThat(killedGroup.get()).isGreaterThan(1);
        assertThat(refused).isEqualTo(killedGroup.get());
        // and the store goes on: the next writes commit
        assertThat(store.write(insert(1000)).outcome()).isEqualTo(Outcome.CREATED);
    }

    /** Each write's result, or the exception it threw, in the order of {@code i}. */
    private List<Object> concurrently(int count, IntFunction<WriteOp> op) throws Exception {
        Map<Integer, Object> out = new ConcurrentHashMap<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int n = i;
                futures.add(pool.submit(() -> {
                    try {
                        out.put(n, store.write(op.apply(n)));
                    } catch (WeftException e) {
                        out.put(n, e);
                    }
                }));
                if (i == 1) {
                    Thread.sleep(50); // the first two form the first group, which waits
                }
            }
            for (Future<?> f : futures) {
                f.get();
            }
        }
        List<Object> list = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            list.add(out.get(i));
        }
        return list;
    }

    private WriteOp insert(int i) {
        return new WriteOp.InsertMany(NS, List.of((ObjectNode) JSON.parse("{\"_id\":" + i + ",\"n\":" + i + "}", "doc")));
    }

    private int n(int id) {
        byte[] doc = store.get(NS, JSON.parse(Integer.toString(id), "id"), ReadMode.SINGLE).orElseThrow().json();
        return JSON.parse(doc, "doc").get("n").asInt();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void admin(String sql) throws java.sql.SQLException {
        URI uri = URI.create(PgTesting.baseUrl());
        String jdbc = "jdbc:postgresql://" + uri.getHost() + ":" + uri.getPort() + uri.getPath();
        String user = uri.getUserInfo() == null ? "postgres" : uri.getUserInfo().split(":")[0];
        try (Connection c = DriverManager.getConnection(jdbc, user, null); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
