package dev.weft.stream;

import static dev.weft.stream.StreamHubTest.JSON;
import static dev.weft.stream.StreamHubTest.LIMITS;
import static dev.weft.stream.StreamHubTest.NS;
import static dev.weft.stream.StreamHubTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Settings;
import dev.weft.security.DocumentPolicy;
import dev.weft.stream.StreamHubTest.MemoryLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The fan-out lanes: order per subscriber, one hand-over at a time, slow clients cut off. */
class FanoutTest {

    /** Completes some writes at once and some later on another thread, as a socket would. */
    static final class Jittery implements Outlet {
        final ScheduledExecutorService io;
        final List<Integer> ids = new CopyOnWriteArrayList<>();
        volatile boolean overlapped;
        private volatile boolean inFlight;

        Jittery(ScheduledExecutorService io) {
            this.io = io;
        }

        @Override
        public void send(EventFrame frame, Consumer<Throwable> done) {
            if (inFlight) {
                overlapped = true; // two writes in flight: the outlet contract broken
            }
            inFlight = true;
            if (!frame.isHeartbeat()) {
                ids.add(JSON.parse(frame.json(), "frame").get("documentKey").get("_id").asInt());
            }
            Runnable complete = () -> {
                inFlight = false;
                done.accept(null);
            };
            if (ThreadLocalRandom.current().nextInt(4) == 0) {
                io.schedule(complete, ThreadLocalRandom.current().nextInt(200), TimeUnit.MICROSECONDS);
            } else {
                complete.run();
            }
        }

        @Override
        public void close(int code, String reason) {}

        @Override
        public void abort() {}
    }

    @Test
    void everySubscriberGetsEveryEventOnceInCommitOrderWhateverLaneWritesIt() throws Exception {
        MemoryLog log = new MemoryLog();
        ScheduledExecutorService io = Executors.newScheduledThreadPool(2);
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE, 3)) {
            List<Jittery> outlets = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                Jittery o = new Jittery(io);
                outlets.add(o);
                hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), o);
            }
            for (int i = 1; i <= 300; i++) {
                log.insert("{\"_id\":" + i + "}");
            }
            for (Jittery o : outlets) {
                waitFor(() -> o.ids.size() >= 300);
            }
            Thread.sleep(50);
            for (Jittery o : outlets) {
                assertThat(o.ids).hasSize(300).isSorted().doesNotHaveDuplicates();
                assertThat(o.overlapped).isFalse();
            }
            assertThat(hub.sent()).isEqualTo(40 * 300);
        } finally {
            io.shutdownNow();
        }
    }

    /** Never completes a write, like a client that stopped reading. */
    static final class Stuck implements Outlet {
        final List<EventFrame> sent = new CopyOnWriteArrayList<>();
        volatile int closed;

        @Override
        public void send(EventFrame frame, Consumer<Throwable> done) {
            sent.add(frame);
        }

        @Override
        public void close(int code, String reason) {
            closed = code;
        }

        @Override
        public void abort() {}
    }

    @Test
    void aSubscriberIsHandedToItsLaneOnceUntilPumpedAndNotWhileAWriteIsInFlight() {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE, 1)) {
            Stuck outlet = new Stuck();
            Subscriber s = new Subscriber(StreamQuery.adhoc(NS, List.of(), LIMITS), Grant.UNCHANGING, outlet, hub, 10, null, 1);
            EventFrame a = new EventFrame("a", new byte[0]);
            assertThat(s.enqueue(a)).isEqualTo(Subscriber.Queued.PUMP);
            assertThat(s.enqueue(a)).isEqualTo(Subscriber.Queued.QUEUED);
            s.pump();
            assertThat(outlet.sent).hasSize(1);
            assertThat(s.queued()).isEqualTo(1);
            assertThat(s.enqueue(a)).isEqualTo(Subscriber.Queued.QUEUED); // the write in flight will drain it
        }
    }

    @Test
    void aHeartbeatGoesOnlyToAStreamThatWroteNothingSinceThePreviousTick() {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE, 1)) {
            StreamClassesTest.Frames outlet = new StreamClassesTest.Frames();
            Subscriber s = new Subscriber(StreamQuery.adhoc(NS, List.of(), LIMITS), Grant.UNCHANGING, outlet, hub, 10, null, 1);
            s.heartbeat(true); // a new stream: on the wire at once
            assertThat(outlet.frames).containsExactly(EventFrame.HEARTBEAT);
            s.heartbeat(false); // the heartbeat itself was a write since the last tick
            assertThat(outlet.frames).hasSize(1);
            s.heartbeat(false); // idle for a whole tick
            assertThat(outlet.frames).hasSize(2);
            EventFrame event = new EventFrame("a", new byte[0]);
            assertThat(s.enqueue(event)).isEqualTo(Subscriber.Queued.PUMP);
            s.pump();
            s.heartbeat(false); // an event went out since the last tick
            assertThat(outlet.frames).containsExactly(EventFrame.HEARTBEAT, EventFrame.HEARTBEAT, event);
            s.heartbeat(false);
            assertThat(outlet.frames).containsExactly(EventFrame.HEARTBEAT, EventFrame.HEARTBEAT, event, EventFrame.HEARTBEAT);
        }
    }

    @Test
    void aClientThatStopsReadingIsCutOffWith1013AndForgotten() throws Exception {
        MemoryLog log = new MemoryLog();
        Settings settings = Settings.parse(new String[] {"--stream-client-queue", "3"}, Map.of());
        try (StreamHub hub = new StreamHub(log, JSON, settings, DocumentPolicy.Lookup.NONE, 2)) {
            Stuck stuck = new Stuck();
            StreamHubTest.Recorder fine = new StreamHubTest.Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), stuck);
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), fine);
            for (int i = 1; i <= 10; i++) {
                log.insert("{\"_id\":" + i + "}");
            }
            waitFor(() -> hub.subscribers() == 1 && fine.events.size() == 10);
            assertThat(hub.cutOffs()).isEqualTo(1);
            // at most the first event went out (that write never completes), or the close, if the
            // queue filled before the lane got to the client
            assertThat(stuck.sent.size() + (stuck.closed == 1013 ? 1 : 0)).isEqualTo(1);
            assertThat(fine.events.stream().map(e -> e.get("documentKey").get("_id").asInt()))
                    .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        }
    }

    @Test
    void aBurstLongerThanTheQueueCutsOffNoClientThatReads() throws Exception {
        MemoryLog log = new MemoryLog();
        Settings settings = Settings.parse(new String[] {"--stream-client-queue", "3"}, Map.of());
        try (StreamHub hub = new StreamHub(log, JSON, settings, DocumentPolicy.Lookup.NONE, 2)) {
            List<StreamHubTest.Recorder> fast = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                StreamHubTest.Recorder r = new StreamHubTest.Recorder();
                fast.add(r);
                hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), r);
            }
            for (int i = 1; i <= 500; i++) {
                log.insert("{\"_id\":" + i + "}");
            }
            for (StreamHubTest.Recorder r : fast) {
                waitFor(() -> r.events.size() == 500);
            }
            assertThat(hub.cutOffs()).isZero();
        }
    }
}
