package dev.weft.stream;

import static dev.weft.stream.StreamHubTest.JSON;
import static dev.weft.stream.StreamHubTest.LIMITS;
import static dev.weft.stream.StreamHubTest.NS;
import static dev.weft.stream.StreamHubTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Settings;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.ChangeEvent;
import dev.weft.stream.StreamHubTest.MemoryLog;
import dev.weft.stream.StreamHubTest.Recorder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The live feed matches an event once per class of equal queries ({@link Answers}): subscribers
 * of one compiled access rule share one match and one projected frame, each still sees only what
 * its own rule lets through, and the live answers are the per-subscriber replay's.
 */
class StreamClassesTest {

    /** Records the frames themselves, heartbeats included, to tell a shared frame from equal ones. */
    static final class Frames implements Outlet {
        final List<EventFrame> frames = new CopyOnWriteArrayList<>();

        @Override
        public void send(EventFrame frame, Consumer<Throwable> done) {
            frames.add(frame);
            done.accept(null);
        }

        @Override
        public void close(int code, String reason) {}

        @Override
        public void abort() {}

        List<EventFrame> eventFrames() {
            return frames.stream().filter(f -> !f.isHeartbeat()).toList();
        }

        List<JsonNode> events() {
            return eventFrames().stream().map(f -> JSON.parse(f.json(), "frame")).toList();
        }
    }

    private static StreamQuery restricted(Filter read, Projection projection) {
        return StreamQuery.adhoc(NS, List.of(), LIMITS).withAccess(Optional.of(read), Optional.of(projection));
    }

    private static Filter filter(String json) {
        return Filter.parse(JSON.parse(json, "filter"), LIMITS);
    }

    @Test
    void subscribersOfOneRuleShareOneMatchAndOneProjectedFrameAndSeeOnlyWhatItAllows() throws Exception {
        MemoryLog log = new MemoryLog();
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            Filter teamA = filter("{\"team\":\"a\"}");
            Projection hideSecret = Projection.parse(JSON.parse("{\"secret\":0}", "projection"));
            List<Frames> ruleA = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Frames f = new Frames();
                ruleA.add(f);
                hub.subscribe(restricted(teamA, hideSecret), f); // a query of its own, equal to the others
            }
            Frames sameTextOtherRule = new Frames(); // compiled apart: a class of its own, the same answers
            hub.subscribe(restricted(filter("{\"team\":\"a\"}"), hideSecret), sameTextOtherRule);
            Frames teamB = new Frames();
            hub.subscribe(restricted(filter("{\"team\":\"b\"}"), hideSecret), teamB);

            log.insert("{\"_id\":1,\"team\":\"a\",\"secret\":\"s1\",\"v\":1}");
            log.insert("{\"_id\":2,\"team\":\"b\",\"secret\":\"s2\",\"v\":2}");
            waitFor(() -> teamB.eventFrames().size() == 1 && sameTextOtherRule.eventFrames().size() == 1
                    && ruleA.stream().allMatch(f -> f.eventFrames().size() == 1));

            assertThat(hub.evaluations()).isEqualTo(2 * 3); // two events, three classes (not five subscribers)
            EventFrame shared = ruleA.getFirst().eventFrames().getFirst();
            assertThat(ruleA).allSatisfy(f -> assertThat(f.eventFrames().getFirst()).isSameAs(shared));
            for (Frames f : List.of(ruleA.get(0), ruleA.get(1), ruleA.get(2), sameTextOtherRule)) {
                JsonNode e = f.events().getFirst();
                assertThat(e.get("documentKey").get("_id").asInt()).isEqualTo(1);
                assertThat(e.get("fullDocument").has("secret")).isFalse();
                assertThat(e.get("fullDocument").get("v").asInt()).isEqualTo(1);
            }
            JsonNode b = teamB.events().getFirst();
            assertThat(b.get("documentKey").get("_id").asInt()).isEqualTo(2);
            assertThat(b.get("fullDocument").has("secret")).isFalse();
        }
    }

    /**
     * Differential: many subscribers over a few shared rules and some of their own, with leaves;
     * what each received live (matched per class) equals what the same query replays from the
     * log (matched per subscriber, the reference).
     */
    @Test
    void liveAnswersPerClassAreTheReplaysPerSubscriber() throws Exception {
        MemoryLog log = new MemoryLog();
        Random random = new Random(17);
        try (StreamHub hub = new StreamHub(log, JSON, Settings.defaults(), DocumentPolicy.Lookup.NONE)) {
            List<Filter> rules = List.of(filter("{\"team\":\"a\"}"), filter("{\"v\":{\"$gt\":4}}"),
                    filter("{\"$or\":[{\"team\":\"b\"},{\"v\":{\"$lt\":2}}]}"));
            List<Projection> projections = List.of(Projection.parse(JSON.parse("{\"secret\":0}", "p")),
                    Projection.parse(JSON.parse("{\"v\":1}", "p")));
            List<StreamQuery> queries = new ArrayList<>();
            List<Recorder> live = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                Filter read = i % 5 == 4 ? filter("{\"team\":\"a\"}") : rules.get(random.nextInt(rules.size()));
                Projection p = projections.get(random.nextInt(projections.size()));
                StreamQuery q = StreamQuery.adhoc(NS, i % 3 == 0 ? List.of() : List.of(JSON.parse("{\"w\":{\"$ne\":0}}", "f")),
                        LIMITS).withAccess(Optional.of(read), Optional.of(p)).withLeaves(i % 2 == 0);
                queries.add(q);
                Recorder r = new Recorder();
                live.add(r);
                hub.subscribe(q, r);
            }
            Recorder everything = new Recorder();
            hub.subscribe(StreamQuery.adhoc(NS, List.of(), LIMITS), everything);
            java.util.Map<Integer, String> stored = new java.util.HashMap<>();
            for (int i = 1; i <= 60; i++) {
                int id = 1 + random.nextInt(12);
                String before = stored.get(id);
                String after = random.nextInt(6) == 0 ? null : "{\"_id\":" + id + ",\"team\":\"" + (random.nextBoolean() ? "a" : "b")
                        + "\",\"v\":" + random.nextInt(8) + ",\"w\":" + random.nextInt(3) + ",\"secret\":" + i + "}";
                if (before == null && after == null) {
                    continue;
                }
                ChangeEvent.Operation op = before == null ? ChangeEvent.Operation.INSERT
                        : after == null ? ChangeEvent.Operation.DELETE : ChangeEvent.Operation.REPLACE;
                log.append(new ChangeEvent(NS, op, JSON.parse(String.valueOf(id), "id"), bytes(after), null, bytes(before)));
                if (after == null) {
                    stored.remove(id);
                } else {
                    stored.put(id, after);
                }
            }
            waitFor(() -> everything.events.size() == log.events.size()); // every live frame is queued by now
            List<Recorder> replayed = new ArrayList<>();
            for (StreamQuery q : queries) {
                Recorder r = new Recorder();
                replayed.add(r);
                hub.subscribe(q.resumingAfter(Tokens.encode(0), JSON), r);
            }
            int leaves = 0;
            for (int i = 0; i < queries.size(); i++) {
                Recorder l = live.get(i);
                Recorder r = replayed.get(i);
                for (int tries = 0; tries < 500 && r.events.size() != l.events.size(); tries++) {
                    Thread.sleep(10);
                }
                assertThat(r.events).as("subscriber %d", i).isEqualTo(l.events);
                leaves += (int) l.events.stream().filter(e -> e.get("operationType").asString().equals("leave")).count();
            }
            assertThat(leaves).isPositive(); // the mix did exercise leave events
        }
    }

    private static byte[] bytes(String json) {
        return json == null ? null : json.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
