package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.Update;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult;
import dev.weft.stream.EventFrame;
import dev.weft.stream.Outlet;
import dev.weft.stream.StreamHub;
import dev.weft.stream.StreamQuery;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The shared PostgreSQL event log seen from two Weft nodes (two stores on one schema): one
 * commit order for both, the same seqs on both, a token from one node resumes on the other.
 */
class PgEventsTest {
    private static final Json JSON = Json.standard();
    private static final Namespace NS = new Namespace("ev", "docs");
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    private PgStores.Pair nodes;
    private PostgresStore a;
    private PostgresStore b;

    @BeforeEach
    void open() {
        nodes = PgStores.pair(NS);
        a = nodes.a();
        b = nodes.b();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void concurrentWritersOnTwoNodesGiveOneCommitOrderSeenAlikeOnBoth() throws Exception {
        List<ChangeEvent> onA = new CopyOnWriteArrayList<>();
        List<ChangeEvent> onB = new CopyOnWriteArrayList<>();
        log(a).addCommitListener((commit, events) -> onA.addAll(events));
        log(b).addCommitListener((commit, events) -> onB.addAll(events));
        long start = log(a).last();
        insert(a, "{\"_id\":\"c\",\"n\":0}");
        Update inc = Update.parse(JSON.parse("{\"$inc\":{\"n\":1}}", "u"), LIMITS);
        int perThread = 25;
        List<Store> nodes = List.of(a, b, a, b);
        try (ExecutorService pool = Executors.newFixedThreadPool(nodes.size())) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < nodes.size(); t++) {
                Store node = nodes.get(t);
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        assertThat(node.write(new WriteOp.UpdateOne(NS, JSON.parse("\"c\"", "id"), inc, WriteMode.UPDATE,
                                Optional.empty())).ok()).isTrue();
                        insert(node, "{\"_id\":\"t" + thread + "-" + i + "\"}");
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }
        int total = 1 + nodes.size() * perThread * 2;
        waitFor(() -> onA.size() >= total && onB.size() >= total);
        assertThat(onA).hasSize(total);
        assertThat(onB).hasSize(total);
        for (int i = 0; i < total; i++) {
            ChangeEvent x = onA.get(i);
            ChangeEvent y = onB.get(i);
            assertThat(x.seq()).isEqualTo(start + 1 + i); // no hole, no duplicate
            assertThat(y.seq()).isEqualTo(x.seq());
            assertThat(y.documentKey()).isEqualTo(x.documentKey());
            assertThat(y.fullDocument()).isEqualTo(x.fullDocument());
        }
        // the increments serialise on the document's row lock, so their commit order is n's order
        List<Integer> ns = onA.stream().filter(e -> e.operation() == ChangeEvent.Operation.UPDATE)
                .map(e -> JSON.parse(e.fullDocument(), "doc").get("n").asInt()).toList();
        assertThat(ns).hasSize(nodes.size() * perThread).isSorted();
        assertThat(ns.getFirst()).isEqualTo(1);
        assertThat(ns.getLast()).isEqualTo(nodes.size() * perThread);
    }

    @Test
    void aWriteThatCommitsLateTakesTheNextSeqThenAndHoldsNoOneBack() throws Exception {
        List<ChangeEvent> onB = new CopyOnWriteArrayList<>();
        log(b).addCommitListener((commit, events) -> onB.addAll(events));
        long start = log(b).last();
        Settings settings = Settings.parse(new String[] {"--store", PgTesting.url(nodes.schema())}, java.util.Map.of());
        try (java.sql.Connection slow = PgConnections.connect(PgUrl.parse(settings.store()), settings)) {
            slow.setAutoCommit(false);
            ((PgEventLog) log(a)).append(new dev.weft.store.sql.SqlConnection(slow), List.of(new ChangeEvent(NS, ChangeEvent.Operation.INSERT,
                    JSON.parse("\"late\"", "id"), JSON.bytes(obj("{\"_id\":\"late\"}")), null, null)));
            insert(a, "{\"_id\":\"early\"}"); // its event was appended after the open one's, and commits first
            waitFor(() -> onB.size() == 1);
            slow.commit();
        }
        waitFor(() -> onB.size() == 2);
        assertThat(onB).extracting(e -> e.documentKey().asString()).containsExactly("early", "late");
        assertThat(onB).extracting(ChangeEvent::seq).containsExactly(start + 1, start + 2);
    }

    /**
     * The reader reads the event rows by groups of ids (PgEventLog.SEQS_AFTER), a range scan for
     * each whole group instead of one join probe per seq: every window of the log read through it
     * equals the plain join of seq rows and event rows, on a log with late commits, rolled-back
     * ids, two nodes, and groups that are not whole (one id - seq on both sides of a late event).
     */
    @Test
    void readingByGroupsOfIdsGivesThePlainJoinsEventsForEveryWindow() throws Exception {
        long start = log(a).last();
        Settings settings = Settings.parse(new String[] {"--store", PgTesting.url(nodes.schema())}, java.util.Map.of());
        long written = 0;
        for (int round = 0; round < 3; round++) {
            try (java.sql.Connection late = PgConnections.connect(PgUrl.parse(settings.store()), settings);
                 java.sql.Connection undone = PgConnections.connect(PgUrl.parse(settings.store()), settings)) {
                late.setAutoCommit(false);
                undone.setAutoCommit(false);
                ((PgEventLog) log(a)).append(new dev.weft.store.sql.SqlConnection(late), List.of(event("late" + round)));
                for (int i = 0; i < 3; i++) {
                    insert(i % 2 == 0 ? a : b, "{\"_id\":\"r" + round + "-" + i + "\"}");
                }
                long before = start + (written += 3);
                waitFor(() -> log(a).last() == before);
                late.commit(); // a smaller id than the inserts', numbered after them
                long after = start + ++written;
                waitFor(() -> log(a).last() == after);
                ((PgEventLog) log(a)).append(new dev.weft.store.sql.SqlConnection(undone), List.of(event("undone" + round)));
                undone.rollback(); // its id is never used
                for (int i = 3; i < 6; i++) {
                    insert(i % 2 == 0 ? a : b, "{\"_id\":\"r" + round + "-" + i + "\"}");
                }
                written += 3;
            }
        }
        long top = start + written;
        waitFor(() -> log(a).last() == top && log(b).last() == top);
        assertThat(PgTesting.number("SELECT count(*) FROM (SELECT count(*) = max(id) - min(id) + 1 AS whole FROM "
                + nodes.schema() + ".weft_event_seqs WHERE seq > " + start + " GROUP BY id - seq) g WHERE NOT whole"))
                .as("groups that are not whole").isPositive();
        List<String> reference = new ArrayList<>(); // the plain join, in seq order
        try (java.sql.Connection c = PgConnections.connect(PgUrl.parse(settings.store()), settings);
             java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT s.seq, e.key FROM weft_event_seqs s"
                     + " JOIN weft_events e ON e.id = s.id WHERE s.seq > " + start + " ORDER BY s.seq")) {
            while (rs.next()) {
                reference.add(rs.getLong(1) + ":" + new String(rs.getBytes(2), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        assertThat(reference).hasSize((int) written);
        for (long after = start; after <= top; after++) {
            for (int limit : new int[] {1, 2, 5, 512}) {
                List<String> read = log(b).after(after, limit).stream()
                        .map(e -> e.seq() + ":" + new String(JSON.bytes(e.documentKey()), java.nio.charset.StandardCharsets.UTF_8)).toList();
                int from = (int) (after - start);
                assertThat(read).as("after %d, limit %d", after, limit)
                        .isEqualTo(reference.subList(from, Math.min(reference.size(), from + limit)));
            }
        }
    }

    private static ChangeEvent event(String id) {
        return new ChangeEvent(NS, ChangeEvent.Operation.INSERT, JSON.parse("\"" + id + "\"", "id"),
                JSON.bytes(obj("{\"_id\":\"" + id + "\"}")), null, null);
    }

    @Test
    void aNodeSkipsItsOwnWriteNotificationsAndHearsTheOtherNodes() throws Exception {
        long skippedA = a.pgCatalog().ownWriteNotificationsSkipped();
        long heardA = a.pgCatalog().otherWriteNotificationsHeard();
        long heardB = b.pgCatalog().otherWriteNotificationsHeard();
        long skippedB = b.pgCatalog().ownWriteNotificationsSkipped();
        insert(a, "{\"_id\":1,\"k\":1}");
        waitFor(() -> b.pgCatalog().otherWriteNotificationsHeard() > heardB);
        waitFor(() -> a.pgCatalog().ownWriteNotificationsSkipped() > skippedA);
        assertThat(a.pgCatalog().otherWriteNotificationsHeard()).isEqualTo(heardA);
        assertThat(b.pgCatalog().ownWriteNotificationsSkipped()).isEqualTo(skippedB);
    }

    @Test
    void aSubscriberOnNodeBSeesWritesMadeOnNodeA() throws Exception {
        try (StreamHub hubB = new StreamHub(log(b), JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            Recorder r = new Recorder();
            hubB.subscribe(StreamQuery.adhoc(NS, List.of(JSON.parse("{\"k\":1}", "f")), LIMITS), r);
            insert(a, "{\"_id\":1,\"k\":1}");
            insert(a, "{\"_id\":2,\"k\":2}");
            insert(a, "{\"_id\":3,\"k\":1}");
            waitFor(() -> r.events.size() == 2);
            assertThat(r.events.stream().map(e -> e.get("documentKey").get("_id").asInt()).toList()).containsExactly(1, 3);
            assertThat(r.events.getFirst().get("operationType").asString()).isEqualTo("insert");
        }
    }

    @Test
    void aTokenFromNodeAResumesOnNodeBWithNoGapAndNoDuplicateWhileWritesContinue() throws Exception {
        int count = 150;
        try (StreamHub hubA = new StreamHub(log(a), JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE);
             StreamHub hubB = new StreamHub(log(b), JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            Recorder onA = new Recorder();
            StreamHub.Subscription sub = hubA.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), onA);
            Thread writer = Thread.ofVirtual().start(() -> {
                for (int i = 1; i <= count; i++) {
                    insert(i % 2 == 0 ? a : b, "{\"_id\":" + i + "}");
                }
            });
            waitFor(() -> onA.events.size() >= 40);
            sub.cancel();
            int seen = onA.events.size();
            String token = onA.tokens.get(seen - 1);
            Recorder onB = new Recorder();
            hubB.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS).resumingAfter(token, JSON), onB);
            writer.join();
            waitFor(() -> onB.events.size() >= count - seen);
            Thread.sleep(200); // nothing more may come
            List<Integer> all = new ArrayList<>();
            onA.events.subList(0, seen).forEach(e -> all.add(e.get("documentKey").get("_id").asInt()));
            onB.events.forEach(e -> all.add(e.get("documentKey").get("_id").asInt()));
            Integer[] expected = new Integer[count];
            Arrays.setAll(expected, i -> i + 1);
            assertThat(all).containsExactly(expected);
        }
    }

    @Test
    void aTokenOlderThanTheRetentionWindowIsRefusedOnEveryNode() throws Exception {
        PostgresStore small = PgStores.open(nodes.schema(), "--stream-retention-events", "5");
        try {
            long last = log(a).last() + 20;
            for (int i = 0; i < 20; i++) {
                insert(a, "{\"_id\":" + i + "}");
            }
            waitFor(() -> log(small).floor() >= last - 5);
            for (EventLog log : List.of(log(a), log(b), log(small))) {
                assertThatThrownBy(() -> log.after(1, 10)).isInstanceOfSatisfying(WeftException.class,
                        e -> assertThat(e.status()).isEqualTo(410));
                assertThatThrownBy(() -> log.after(last + 1000, 10)).isInstanceOfSatisfying(WeftException.class,
                        e -> assertThat(e.status()).isEqualTo(400));
                assertThat(log.after(last - 3, 10)).extracting(ChangeEvent::seq).containsExactly(last - 2, last - 1, last);
            }
        } finally {
            small.close();
        }
    }

    @Test
    void theSequencerTakesPendingIdsByTheirKeyWhateverThePendingTableHolds() throws Exception {
        // a pending table of many rows (as its dead rows make it under writes): the sequencer's
        // statement must still find the oldest ids by the primary key, not hash a scan of it all
        List<String> large = sequencerPlan(false, "INSERT INTO weft_event_pending(id) SELECT i FROM generate_series(1000000000, 1000050000) i",
                "ANALYZE weft_event_pending");
        assertThat(large).as(String.join("\n", large)).noneMatch(line -> line.contains("Seq Scan on weft_event_pending"));
        assertThat(large).anyMatch(line -> line.contains("weft_event_pending_pkey"));
        // a pending table of one page, as at startup, where the statement is planned once and the
        // plan kept: a plain session scans it, the reader's session goes by the key all the same
        String[] empty = {"TRUNCATE weft_event_pending", "ANALYZE weft_event_pending"};
        assertThat(sequencerPlan(false, empty)).anyMatch(line -> line.contains("Seq Scan on weft_event_pending"));
        List<String> small = sequencerPlan(true, empty);
        assertThat(small).as(String.join("\n", small)).noneMatch(line -> line.contains("Seq Scan on weft_event_pending"));
    }

    @Test
    void theReaderVacuumsThePendingIdsOnceItHasNumberedEnoughOfThem() throws Exception {
        // pending ids are inserted by writers and deleted by the sequencer: the table and its key
        // fill with dead rows that the sequencer's scan of the oldest ids would step over
        String stats = "SELECT coalesce(sum(vacuum_count), 0) FROM pg_stat_user_tables WHERE schemaname = '" + nodes.schema()
                + "' AND relname = 'weft_event_pending'";
        long vacuums = PgTesting.number(stats);
        long start = log(a).last();
        int events = 2 * PgEventLog.VACUUM_PENDING_AFTER + 100; // two nodes sequence: one of them takes at least half
        for (int i = 0; i < events; i += 300) {
            List<ObjectNode> docs = new ArrayList<>();
            for (int j = i; j < Math.min(events, i + 300); j++) {
                docs.add(obj("{\"_id\":\"v" + j + "\"}"));
            }
            assertThat(a.write(new WriteOp.InsertMany(NS, List.copyOf(docs))).ok()).isTrue();
        }
        waitFor(() -> log(a).last() >= start + events && log(b).last() >= start + events);
        waitFor(() -> PgTesting.number(stats) > vacuums); // a manual vacuum (autovacuum counts apart)
        assertThat(PgTesting.number("SELECT count(*) FROM " + nodes.schema() + ".weft_event_pending")).isZero();
        assertThat(log(b).after(start, events)).hasSize(events);
    }

    @Test
    void theReadersEventReadKeepsAGenericPlanThatGoesByKeys() throws Exception {
        // a log of 200,000 events with a gap in every other group (ids not numbered in order), as the
        // reader's session would run the read once prepared: a generic plan (parameters left as $1,
        // $2, not planned again per run) whose every index scan has a key condition
        List<String> plan = new ArrayList<>();
        try (java.sql.Connection c = PgEventLog.byKeys(readerSession())) {
            c.setAutoCommit(false);
            try (java.sql.Statement s = c.createStatement()) {
                s.execute("INSERT INTO weft_events(at, " + PgSchema.EVENT_ROW_COLUMN + ", db, coll, op, key, doc)"
                        + " SELECT i, " + PgSchema.VERSION + ", 'ev', 'docs', 1, '\\x01', NULL FROM generate_series(1, 200000) i");
                s.execute("INSERT INTO weft_event_seqs(seq, id) SELECT 1000000 + row_number() OVER (ORDER BY id % 2, id), id"
                        + " FROM weft_events");
                s.execute("ANALYZE weft_events");
                s.execute("ANALYZE weft_event_seqs");
                s.execute("PREPARE events_after(bigint, int) AS " + PgEventLog.EVENTS_AFTER.replaceFirst("\\?", "\\$1").replaceFirst("\\?", "\\$2"));
                try (java.sql.ResultSet rs = s.executeQuery("EXPLAIN EXECUTE events_after(1000000, 512)")) {
                    while (rs.next()) {
                        plan.add(rs.getString(1).trim());
                    }
                }
            } finally {
                c.rollback();
            }
        }
        String shown = String.join("\n", plan);
        assertThat(plan).as(shown).anyMatch(line -> line.startsWith("Index Cond: (seq > $1)"));
        assertThat(plan).as(shown).noneMatch(line -> line.contains("Seq Scan") || line.contains("Merge Join"));
        for (int i = 0; i < plan.size(); i++) {
            if (plan.get(i).contains("Index Scan") || plan.get(i).contains("Index Only Scan")) {
                assertThat(plan.get(i + 1)).as(shown).startsWith("Index Cond:");
            }
        }
    }

    private java.sql.Connection readerSession() throws Exception {
        Settings settings = Settings.parse(new String[] {"--store", PgTesting.url(nodes.schema())}, java.util.Map.of());
        return PgConnections.connect(PgUrl.parse(settings.store()), settings);
    }

    /** The sequencer's plan after {@code setup}, in a transaction rolled back; on the reader's session when {@code byKeys}. */
    private List<String> sequencerPlan(boolean byKeys, String... setup) throws Exception {
        Settings settings = Settings.parse(new String[] {"--store", PgTesting.url(nodes.schema())}, java.util.Map.of());
        List<String> plan = new ArrayList<>();
        try (java.sql.Connection plain = PgConnections.connect(PgUrl.parse(settings.store()), settings)) {
            java.sql.Connection c = byKeys ? PgEventLog.byKeys(plain) : plain;
            c.setAutoCommit(false);
            try (java.sql.Statement s = c.createStatement()) {
                for (String sql : setup) {
                    s.execute(sql);
                }
                try (java.sql.ResultSet rs = s.executeQuery("EXPLAIN " + PgEventLog.SEQUENCE)) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            } finally {
                c.rollback();
            }
        }
        return plan;
    }

    @Test
    void anEventRowIsWrittenOnceByItsWriterTheSequencerAddsOnlyANarrowRow() throws Exception {
        long start = log(a).last();
        insert(a, "{\"_id\":\"w\",\"f\":\"" + "x".repeat(1000) + "\"}");
        Update set = Update.parse(JSON.parse("{\"$set\":{\"f\":\"" + "y".repeat(1000) + "\"}}", "u"), LIMITS);
        assertThat(a.write(new WriteOp.UpdateOne(NS, JSON.parse("\"w\"", "id"), set, WriteMode.UPDATE, Optional.empty())).ok())
                .isTrue();
        waitFor(() -> log(a).last() == start + 2);
        String schema = nodes.schema();
        String table = schema + ".d" + PgTesting.number("SELECT substr(c.relname, 2)::bigint FROM pg_class c JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE n.nspname = '" + schema + "' AND c.relname ~ '^d[0-9]+$'");
        // the update's event row is still the tuple its writing transaction made: the document's
        // row has the same xmin (the sequencer, an other transaction, wrote only weft_event_seqs)
        assertThat(PgTesting.number("SELECT count(*) FROM " + schema + ".weft_events e, " + table + " d"
                + " WHERE e.op = " + ChangeEvent.Operation.UPDATE.ordinal() + " AND e.xmin::text = d.xmin::text")).isEqualTo(1);
        assertThat(PgTesting.number("SELECT count(*) FROM " + schema + ".weft_event_seqs s, " + table + " d"
                + " WHERE s.xmin::text = d.xmin::text")).isZero();
        assertThat(PgTesting.number("SELECT count(*) FROM " + schema + ".weft_event_pending")).isZero();
        assertThat(log(b).after(start, 10)).extracting(ChangeEvent::seq).containsExactly(start + 1, start + 2);
    }

    @Test
    void aLogOfTheEarlierSchemaWithTheSeqInTheEventRowIsConvertedWhenANodeOpens() throws Exception {
        String old = PgTesting.freshSchema();
        try {
            // the schema of weft_events before 2026-11-27: the sequencer set seq in the event row
            PgTesting.admin("CREATE TABLE " + old + ".weft_events(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                    + " seq bigint UNIQUE, at bigint NOT NULL, db text NOT NULL, coll text NOT NULL, op smallint NOT NULL,"
                    + " key bytea NOT NULL, doc bytea, pre bytea, upd bytea)");
            PgTesting.admin("CREATE INDEX weft_events_unsequenced ON " + old + ".weft_events(id) WHERE seq IS NULL");
            PgTesting.admin("CREATE INDEX weft_events_drops ON " + old + ".weft_events(db, coll, seq) WHERE op = 4");
            PgTesting.admin("CREATE TABLE " + old + ".weft_event_log(name text PRIMARY KEY, value bigint NOT NULL)");
            PgTesting.admin("INSERT INTO " + old + ".weft_event_log VALUES ('seq', 12), ('floor', 9)");
            for (String row : List.of("10, 'a'", "11, 'b'", "12, 'c'", "NULL, 'd'")) { // d committed, not yet numbered
                PgTesting.admin("INSERT INTO " + old + ".weft_events(seq, at, db, coll, op, key, doc) SELECT " + row.split(", ")[0]
                        + ", (extract(epoch from clock_timestamp()) * 1000)::bigint, 'ev', 'docs', 0, convert_to('\"' || k || '\"', 'UTF8'), convert_to('{\"_id\":\"' || k || '\"}', 'UTF8')"
                        + " FROM (SELECT " + row.split(", ")[1] + "::text AS k) x");
            }
            PostgresStore upgraded = PgStores.open(old);
            try {
                upgraded.putDatabase(NS.db(), dev.weft.core.Json.NODES.objectNode(), Optional.empty());
                upgraded.putCollection(NS, dev.weft.core.Json.NODES.objectNode(), Optional.empty());
                insert(upgraded, "{\"_id\":\"e\"}");
                waitFor(() -> log(upgraded).last() == 14);
                assertThat(log(upgraded).after(9, 10)).extracting(e -> e.documentKey().asString() + e.seq())
                        .containsExactly("a10", "b11", "c12", "d13", "e14");
                assertThatThrownBy(() -> log(upgraded).after(8, 10)).isInstanceOfSatisfying(WeftException.class,
                        e -> assertThat(e.status()).isEqualTo(410));
                assertThat(PgTesting.number("SELECT count(*) FROM information_schema.columns WHERE table_schema = '" + old
                        + "' AND table_name = 'weft_events' AND column_name = 'seq'")).isZero();
                assertThat(PgTesting.number("SELECT version FROM " + old + ".weft_schema")).isEqualTo(PgSchema.VERSION);
            } finally {
                upgraded.close();
            }
            PostgresStore again = PgStores.open(old); // a second opening finds the new schema as it is
            try {
                assertThat(log(again).after(12, 10)).extracting(ChangeEvent::seq).containsExactly(13L, 14L);
            } finally {
                again.close();
            }
        } finally {
            PgTesting.dropSchema(old);
        }
    }

    // --- helpers -------------------------------------------------------------------------------

    /** Collects the event frames a stream sends, with their tokens. */
    static final class Recorder implements Outlet {
        final List<JsonNode> events = new CopyOnWriteArrayList<>();
        final List<String> tokens = new CopyOnWriteArrayList<>();

        @Override
        public void send(EventFrame frame, Consumer<Throwable> done) {
            if (!frame.isHeartbeat()) {
                events.add(JSON.parse(frame.json(), "frame"));
                tokens.add(frame.token());
            }
            done.accept(null);
        }

        @Override
        public void close(int code, String reason) {}

        @Override
        public void abort() {}
    }

    private static EventLog log(Store store) {
        return store.eventLog();
    }

    private static void insert(Store store, String doc) {
        WriteResult r = store.write(new WriteOp.InsertMany(NS, List.of(obj(doc))));
        assertThat(r.ok()).as(r.toString()).isTrue();
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 1000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    private static ObjectNode obj(String json) {
        return (ObjectNode) JSON.parse(json, "doc");
    }
}
