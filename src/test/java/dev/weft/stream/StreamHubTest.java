package dev.weft.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.ChangeEvent;
import dev.weft.store.CommitListener;
import dev.weft.store.EventLog;
import dev.weft.store.Namespace;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The engine alone, over an in-memory event log and recording outlets. */
class StreamHubTest {
    static final Json JSON = Json.standard();
    static final QueryLimits LIMITS = QueryLimits.defaults();
    static final Namespace NS = new Namespace("db", "c");

    /** An in-memory log that tells its listener synchronously. */
    static final class MemoryLog implements EventLog {
        final List<ChangeEvent> events = new CopyOnWriteArrayList<>();
        final List<CommitListener> listeners = new CopyOnWriteArrayList<>();

        void insert(String doc) {
            insert(NS, doc);
        }

        void insert(Namespace ns, String doc) {
            JsonNode d = JSON.parse(doc, "doc");
            append(new ChangeEvent(ns, ChangeEvent.Operation.INSERT, d.get("_id"), doc.getBytes(StandardCharsets.UTF_8), null, null));
        }

        void append(ChangeEvent unlogged) {
            ChangeEvent e = unlogged.at(events.size() + 1, System.currentTimeMillis());
            events.add(e);
            listeners.forEach(l -> l.committed(e.seq(), List.of(e)));
        }

        @Override
        public void addCommitListener(CommitListener listener) {
            listeners.add(listener);
        }

        @Override
        public List<ChangeEvent> after(long after, int limit) {
            return events.stream().filter(e -> e.seq() > after).limit(limit).toList();
        }

        @Override
        public OptionalLong droppedAfter(Namespace ns, long after) {
            return events.stream().filter(e -> e.seq() > after && e.operation() == ChangeEvent.Operation.DROP
                    && e.ns().equals(ns)).mapToLong(ChangeEvent::seq).findFirst();
        }

        @Override
        public long floor() {
            return 0;
        }

        @Override
        public long last() {
            return events.size();
        }
    }

    /** {@link MemoryLog} as it is; a test overrides what it delays or holds. */
    static class MemoryLogView implements EventLog {
        final MemoryLog memory;

        MemoryLogView(MemoryLog memory) {
            this.memory = memory;
        }

        @Override
        public List<ChangeEvent> after(long after, int limit) {
            return memory.after(after, limit);
        }

        @Override
        public void addCommitListener(CommitListener listener) {
            memory.addCommitListener(listener);
        }

        @Override
        public OptionalLong droppedAfter(Namespace ns, long after) {
            return memory.droppedAfter(ns, after);
        }

        @Override
        public long floor() {
            return memory.floor();
        }

        @Override
        public long last() {
            return memory.last();
        }
    }

    static final class Recorder implements Outlet {
        final List<JsonNode> events = new CopyOnWriteArrayList<>();
        volatile int closeCode;

        @Override
        public void send(EventFrame frame, Consumer<Throwable> done) {
            if (!frame.isHeartbeat()) {
                events.add(JSON.parse(frame.json(), "frame"));
            }
            done.accept(null);
        }

        @Override
        public void close(int code, String reason) {
            closeCode = code;
        }

        @Override
        public void abort() {}
    }

    static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 500 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    static ObjectNode props(String json) {
        return (ObjectNode) JSON.parse(json, "props");
    }

    @Test
    void namedStreamMatchesTheEventDocument() throws Exception {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            StreamQuery q = StreamQuery.named(NS, props("{\"streams\":[{\"uri\":\"t\",\"stages\":"
                    + "[{\"$match\":{\"fullDocument.tag\":{\"$var\":\"t\"},\"operationType\":\"insert\"}}]}]}"),
                    "t", Optional.of(JSON.parse("{\"t\":\"a\"}", "avars")), LIMITS);
            assertThat(q.index()).contains(new StreamQuery.Equality("tag", "sa"));
            Recorder r = new Recorder();
            hub.subscribe(q, r);
            log.insert("{\"_id\":1,\"tag\":\"b\"}");
            log.insert("{\"_id\":2,\"tag\":[\"x\",\"a\"]}");
            waitFor(() -> r.events.size() == 1);
            assertThat(r.events.getFirst().get("documentKey").get("_id").asInt()).isEqualTo(2);
        }
    }

    @Test
    void anEventMeetsOnlyTheSubscribersWhoseEqualityItCarries() throws Exception {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            List<Recorder> recorders = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                Recorder r = new Recorder();
                recorders.add(r);
                hub.subscribe(StreamQuery.adhoc(NS, List.of(JSON.parse("{\"user\":" + i + "}", "f")), LIMITS), r);
            }
            Recorder all = new Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), all);
            log.insert("{\"_id\":1,\"user\":7.0}");
            waitFor(() -> all.events.size() == 1);
            waitFor(() -> recorders.get(7).events.size() == 1);
            assertThat(hub.evaluations()).isEqualTo(2);
            assertThat(recorders.stream().mapToInt(r -> r.events.size()).sum()).isEqualTo(1);
        }
    }

    @Test
    void resumingReplaysTheLogThenJoinsLiveExactlyOnce() throws Exception {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            for (int i = 1; i <= 50; i++) {
                log.insert("{\"_id\":" + i + "}");
            }
            Recorder r = new Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS).resumingAfter(Tokens.encode(10), JSON), r);
            for (int i = 51; i <= 100; i++) {
                log.insert("{\"_id\":" + i + "}");
            }
            waitFor(() -> r.events.size() >= 90);
            Thread.sleep(100);
            assertThat(r.events).hasSize(90);
            List<Integer> ids = r.events.stream().map(e -> e.get("documentKey").get("_id").asInt()).toList();
            assertThat(ids).isSorted().doesNotHaveDuplicates().startsWith(11).endsWith(100);
        }
    }

    @Test
    void aResumingStreamsSlowReadOfTheLogNeverHoldsUpTheLiveFeed() throws Exception {
        MemoryLog memory = new MemoryLog();
        memory.insert("{\"_id\":1}");
        Recorder live = new Recorder();
        java.util.concurrent.CountDownLatch database = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean dispatchedMeanwhile = new java.util.concurrent.atomic.AtomicBoolean();
        EventLog slowLog = new MemoryLogView(memory) {
            @Override
            public List<ChangeEvent> after(long after, int limit) {
                List<ChangeEvent> out = super.after(after, limit);
                if (Thread.currentThread().getName().equals("weft-stream-replay")) {
                    try {
                        if (out.isEmpty() && dispatchedMeanwhile.compareAndSet(false, true)) {
                            memory.insert("{\"_id\":2}"); // committed and dispatched after the replay reached the end
                            waitFor(() -> live.events.size() == 1);
                        } else if (!out.isEmpty() && out.getFirst().seq() == 2) {
                            database.await(20, java.util.concurrent.TimeUnit.SECONDS); // the read of it is slow (released below)
                        }
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return out;
            }

        };
        try (StreamHub hub = new StreamHub(slowLog, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), live);
            Recorder resumed = new Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS).resumingAfter(Tokens.encode(0), JSON), resumed);
            waitFor(() -> live.events.size() == 1);
            Thread.sleep(100); // the replay is in its slow read now
            memory.insert("{\"_id\":3}");
            // up to 5 s on a loaded machine, well inside the replay's stalled read
            for (int i = 0; i < 500 && live.events.size() < 2; i++) {
                Thread.sleep(10);
            }
            assertThat(live.events).as("the live feed went on while a replay read slowly").hasSize(2);
            database.countDown();
            waitFor(() -> resumed.events.size() >= 3);
            Thread.sleep(100);
            assertThat(resumed.events.stream().map(e -> e.get("documentKey").get("_id").asInt()).toList())
                    .containsExactly(1, 2, 3);
        }
    }

    /**
     * The other side of the join: the replay read events the live feed has not dispatched yet
     * (their commits wait in the dispatcher's queue, held here), so it joins at its own
     * position, past the feed's; the feed then skips them for this subscriber and brings it only
     * what comes after. Joined at the feed's position instead, it would get them twice.
     */
    @Test
    void aReplayAheadOfTheLiveFeedJoinsAtItsOwnPositionAndGetsEachEventOnce() throws Exception {
        MemoryLog memory = new MemoryLog();
        List<Runnable> heldCommits = new ArrayList<>();
        java.util.concurrent.CountDownLatch replayReadToTheEnd = new java.util.concurrent.CountDownLatch(1);
        EventLog heldFeed = new MemoryLogView(memory) {
            @Override
            public List<ChangeEvent> after(long after, int limit) {
                List<ChangeEvent> out = super.after(after, limit);
                if (out.isEmpty() && after == 3 && Thread.currentThread().getName().equals("weft-stream-replay")) {
                    replayReadToTheEnd.countDown(); // it joins next, the live feed still at 0
                }
                return out;
            }

            @Override
            public void addCommitListener(CommitListener listener) {
                memory.addCommitListener((commit, events) -> {
                    synchronized (heldCommits) {
                        heldCommits.add(() -> listener.committed(commit, events));
                    }
                });
            }

        };
        try (StreamHub hub = new StreamHub(heldFeed, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            for (int i = 1; i <= 3; i++) {
                memory.insert("{\"_id\":" + i + "}");
            }
            Recorder resumed = new Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS).resumingAfter(Tokens.encode(0), JSON), resumed);
            assertThat(replayReadToTheEnd.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(hub.lastDispatched()).isZero();
            memory.insert("{\"_id\":4}");
            synchronized (heldCommits) {
                heldCommits.forEach(Runnable::run); // the feed now dispatches 1 to 4
            }
            waitFor(() -> hub.lastDispatched() == 4 && resumed.events.size() >= 4);
            Thread.sleep(100);
            assertThat(resumed.events.stream().map(e -> e.get("documentKey").get("_id").asInt()).toList())
                    .containsExactly(1, 2, 3, 4);
        }
    }

    /** Hides {@code secret}, as the users collection's policy hides {@code password}. */
    private static final DocumentPolicy HIDES_SECRET = new DocumentPolicy() {
        @Override
        public ObjectNode readable(ObjectNode document) {
            document.remove("secret");
            return document;
        }

        @Override
        public byte[] readable(byte[] stored) {
            return JSON.bytes(readable(JSON.parseObject(stored, "doc")));
        }
    };

    @Test
    void aReplayShowsExactlyWhatTheLiveFeedShows() throws Exception {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), ns -> HIDES_SECRET)) {
            log.insert(new Namespace("db", "other"), "{\"_id\":\"elsewhere\"}");
            log.insert("{\"_id\":1,\"secret\":\"s1\"}");
            StreamQuery q = StreamQuery.adhoc(NS, List.of(), LIMITS);
            Recorder replayed = new Recorder();
            hub.subscribe(q.resumingAfter(Tokens.encode(0), JSON), replayed);
            waitFor(() -> replayed.events.size() == 1);
            // a stream opened before the live feed dispatched an event committed earlier hears it
            // too; the live stream below must start after both first events to hear only the third
            waitFor(() -> hub.lastDispatched() == log.last());
            Recorder live = new Recorder();
            hub.subscribe(q, live);
            log.insert(new Namespace("db", "other"), "{\"_id\":\"elsewhere-2\"}");
            log.insert("{\"_id\":2,\"secret\":\"s2\"}");
            waitFor(() -> replayed.events.size() == 2 && live.events.size() == 1);
            Thread.sleep(100);
            assertThat(replayed.events.stream().map(e -> e.get("documentKey").get("_id").asInt()).toList()).containsExactly(1, 2);
            assertThat(replayed.events.get(1)).isEqualTo(live.events.getFirst());
            assertThat(replayed.events.toString()).doesNotContain("secret").doesNotContain("elsewhere");
        }
    }

    @Test
    void aDropSendsDropAndInvalidateLiveAndReplayedThenEndsTheStream() throws Exception {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            Recorder indexed = new Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(JSON.parse("{\"user\":1}", "f")), LIMITS), indexed);
            Recorder elsewhere = new Recorder();
            hub.subscribe(StreamQuery.adhoc(new Namespace("db", "other"), List.of(), LIMITS), elsewhere);
            log.insert("{\"_id\":1,\"user\":1}");
            log.append(ChangeEvent.dropped(NS));
            waitFor(() -> indexed.closeCode == 1000);
            assertThat(indexed.events.stream().map(e -> e.get("operationType").asString()).toList())
                    .containsExactly("insert", "drop", "invalidate");
            assertThat(elsewhere.events).isEmpty();
            assertThat(hub.subscribers()).isEqualTo(1);

            Recorder replayed = new Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS).resumingAfter(Tokens.encode(0), JSON), replayed);
            waitFor(() -> replayed.closeCode == 1000);
            assertThat(replayed.events.stream().map(e -> e.get("operationType").asString()).toList())
                    .containsExactly("insert", "drop", "invalidate");
            assertThatThrownBy(() -> hub.check(StreamQuery.adhoc(NS, List.of(), LIMITS).resumingAfter(Tokens.encode(1), JSON)))
                    .isInstanceOf(WeftException.class).hasMessageContaining("db/c was dropped")
                    .extracting(e -> ((WeftException) e).status()).isEqualTo(410);
            hub.check(StreamQuery.adhoc(NS, List.of(), LIMITS).resumingAfter(Tokens.encode(2), JSON));
        }
    }

    @Test
    void tokensAndKeys() {
        assertThat(Tokens.decode(Tokens.encode(255), JSON)).isEqualTo(255);
        assertThat(Tokens.decode("{\"_data\":\"00000000000000ff\"}", JSON)).isEqualTo(255);
        assertThat(Keys.of(JSON.parse("1.0", "n"))).isEqualTo(Keys.of(JSON.parse("1", "n")));
        assertThat(Keys.at(JSON.parse("{\"a\":[{\"b\":1},{\"b\":[2,3]}]}", "d"), "a.b"))
                .containsExactlyInAnyOrder("n1", "n2", "n3");
        assertThat(Keys.at(JSON.parse("{\"a\":[5,6]}", "d"), "a.1")).containsExactly("n6");
        assertThat(StreamQuery.adhoc(NS, List.of(JSON.parse("{\"a\":{\"$gt\":1}}", "f")), LIMITS).index()).isEmpty();
        assertThat(StreamQuery.adhoc(NS, List.of(JSON.parse("{\"$and\":[{\"a\":{\"$eq\":\"x\"}}]}", "f")), LIMITS).index())
                .contains(new StreamQuery.Equality("a", "sx"));
        assertThat(Map.of()).isEmpty();
    }
}
