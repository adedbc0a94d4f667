package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Events;
import dev.weft.http.StreamClients.Sse;
import dev.weft.http.StreamClients.Ws;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * An open stream follows its user's rights as they change (hostile-input issue 2, item 3): after
 * the rule is deleted or narrowed, the user deleted, the password changed, the role removed, or
 * the token expired, the stream ends (WebSocket close 1008, SSE {@code close} event) or takes the
 * new rule within about a second ({@code stream-access-check-ms} 250), over both transports. Each
 * test prints the time from the change to its effect and asserts a generous 3 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamAccessChangeTest {
    private static final long BOUND_MS = 3_000;
    private static final AtomicInteger USERS = new AtomicInteger();

    TestServer weft;

    @BeforeAll
    void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "live");
    }

    @AfterAll
    void stop() throws Exception {
        weft.close();
    }

    /** A user of its own (role of its own), whose rule lets it read /db/live: its name. */
    private String userWithRule(String extraRuleFields) throws Exception {
        String name = "u" + USERS.incrementAndGet();
        created(weft.post("/weft/users", "{\"_id\":\"" + name + "\",\"password\":\"" + password(name) + "\",\"roles\":[\"r-" + name + "\"]}"));
        created(weft.post("/weft/acl", rule(name, extraRuleFields)));
        return name;
    }

    private static String rule(String name, String extraRuleFields) {
        return "{\"_id\":\"rule-" + name + "\",\"roles\":[\"r-" + name + "\"],\"priority\":1,"
                + "\"predicate\":\"path-prefix('/db/live') and method(GET)\"" + extraRuleFields + "}";
    }

    private static String password(String name) {
        return name + "-Password-1";
    }

    private static void created(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private static void ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private Events open(String transport, String pathAndQuery, String authorization) throws Exception {
        return transport.equals("ws")
                ? Ws.open(weft, pathAndQuery, true, authorization)
                : Sse.open(weft, pathAndQuery, "Authorization", authorization);
    }

    private Events openAs(String transport, String name) throws Exception {
        Events stream = open(transport, "/db/live/_streams", TestServer.basic(name, password(name)));
        insert("{\"owner\":\"" + name + "\",\"kind\":\"public\",\"probe\":\"open\"}");
        assertThat(stream.next(10).get("fullDocument").get("probe").asString()).as("the stream is live").isEqualTo("open");
        return stream;
    }

    private void insert(String doc) throws Exception {
        created(weft.post("/db/live", doc));
    }

    /** Waits for the stream to end after a change made at {@code changedAt}; asserts 1008 with a reason and the bound. */
    private static void endsWithin(Events stream, long changedAt, String what) throws Exception {
        String how = stream.ended.get(10, TimeUnit.SECONDS);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - changedAt);
        System.out.printf("stream ended %d ms after %s: %s%n", ms, what, how);
        assertThat(how).startsWith("1008 ").contains("access revoked");
        assertThat(ms).isLessThan(BOUND_MS);
    }

    /** One test per kind of change that takes the stream away from its user, over each transport. */
    @ParameterizedTest(name = "{1} over {0}")
    @CsvSource({"ws, rule deleted", "sse, rule deleted", "ws, user deleted", "sse, user deleted",
                "ws, password changed", "sse, password changed", "ws, role removed", "sse, role removed"})
    void aChangeThatRevokesTheStreamEndsIt(String transport, String change) throws Exception {
        String name = userWithRule("");
        try (Events stream = openAs(transport, name)) {
            long changedAt = System.nanoTime();
            HttpResponse<String> changed = switch (change) {
                case "rule deleted" -> weft.delete("/weft/acl/rule-" + name);
                case "user deleted" -> weft.delete("/weft/users/" + name);
                case "password changed" -> weft.patch("/weft/users/" + name, "{\"$set\":{\"password\":\"Another-Password-2\"}}");
                case "role removed" -> weft.patch("/weft/users/" + name, "{\"$set\":{\"roles\":[]}}");
                default -> throw new IllegalArgumentException(change);
            };
            assertThat(changed.statusCode()).as(changed.body()).isEqualTo(change.endsWith("deleted") ? 204 : 200);
            endsWithin(stream, changedAt, change);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ws", "sse"})
    void aNarrowedReadFilterAppliesToLaterEvents(String transport) throws Exception {
        String name = userWithRule("");
        try (Events stream = openAs(transport, name)) {
            long changedAt = System.nanoTime();
            ok(weft.put("/weft/acl/rule-" + name, rule(name, ",\"readFilter\":{\"kind\":\"public\"}")));
            long appliedAt = firstProbeWhere(stream, "{\"kind\":\"private\"", e -> e == null);
            report(changedAt, appliedAt, "readFilter narrowed");
            insert("{\"kind\":\"private\",\"probe\":\"after\"}");
            insert("{\"kind\":\"public\",\"probe\":\"after\"}");
            JsonNode e = stream.next(10);
            assertThat(e.get("fullDocument").get("kind").asString()).isEqualTo("public");
            assertThat(stream.ended).isNotDone();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ws", "sse"})
    void aProjectionHidingMoreAppliesToLaterEvents(String transport) throws Exception {
        String name = userWithRule("");
        try (Events stream = openAs(transport, name)) {
            long changedAt = System.nanoTime();
            ok(weft.put("/weft/acl/rule-" + name, rule(name, ",\"projectResponse\":{\"secret\":0}")));
            long appliedAt = firstProbeWhere(stream, "{\"kind\":\"public\",\"secret\":\"s\"",
                    e -> e != null && !e.get("fullDocument").has("secret"));
            report(changedAt, appliedAt, "projectResponse hid more");
            insert("{\"kind\":\"public\",\"secret\":\"later\",\"probe\":\"after\"}");
            JsonNode e = stream.next(10);
            assertThat(e.get("fullDocument").has("secret")).isFalse();
            assertThat(e.toString()).doesNotContain("later");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ws", "sse"})
    void aProjectionHidingAFieldTheFilterNamesEndsTheStream(String transport) throws Exception {
        String name = userWithRule("");
        String filter = URLEncoder.encode("{\"secret\":{\"$exists\":false}}", StandardCharsets.UTF_8);
        try (Events stream = open(transport, "/db/live/_streams?filter=" + filter, TestServer.basic(name, password(name)))) {
            long changedAt = System.nanoTime();
            ok(weft.put("/weft/acl/rule-" + name, rule(name, ",\"projectResponse\":{\"secret\":0}")));
            endsWithin(stream, changedAt, "projectResponse hid the filtered field");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ws", "sse"})
    void aStreamOpenedWithAnAccessTokenEndsWhenTheTokenExpires(String transport) throws Exception {
        try (TestServer shortLived = new TestServer("--auth-token-ttl-ms", "2000")) {
            created(shortLived.post("/weft/users", "{\"_id\":\"carol\",\"password\":\"carol-Password-1\",\"roles\":[\"admin\"]}"));
            shortLived.createCollection("db", "c");
            HttpResponse<String> login = shortLived.get("/ping", "Authorization", TestServer.basic("carol", "carol-Password-1"));
            String token = login.headers().firstValue("Auth-Token").orElseThrow();
            Instant validUntil = Instant.parse(login.headers().firstValue("Auth-Token-Valid-Until").orElseThrow());
            String path = "/db/c/_streams?access_token=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
            try (Events stream = transport.equals("ws")
                    ? Ws.open(shortLived, path, true, TestServer.ANONYMOUS)
                    : Sse.open(shortLived, path, "Authorization", TestServer.ANONYMOUS)) {
                created(shortLived.post("/db/c", "{\"probe\":1}"));
                assertThat(stream.next(10).get("fullDocument").get("probe").asInt()).isEqualTo(1);
                String how = stream.ended.get(10, TimeUnit.SECONDS);
                long ms = System.currentTimeMillis() - validUntil.toEpochMilli();
                System.out.printf("stream ended %d ms after the token expired: %s%n", ms, how);
                assertThat(how).startsWith("1008 ").contains("expired");
                assertThat(ms).isBetween(0L, BOUND_MS);
            }
        }
    }

    /**
     * Inserts, every 50 ms, a probe (the JSON object {@code probeStart} plus a counter) and a
     * marker the old and new rules both show, until the event of the probe (null when none came
     * before the marker) passes {@code applied}: the time that probe was written.
     */
    private long firstProbeWhere(Events stream, String probeStart, java.util.function.Predicate<JsonNode> applied)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (int i = 0; System.nanoTime() < deadline; i++) {
            long at = System.nanoTime();
            insert(probeStart + ",\"probe\":\"p" + i + "\"}");
            insert("{\"kind\":\"public\",\"probe\":\"m" + i + "\"}");
            JsonNode first = stream.next(10);
            JsonNode probe = first.get("fullDocument").get("probe").asString().equals("p" + i) ? first : null;
            if (probe != null) {
                assertThat(stream.next(10).get("fullDocument").get("probe").asString()).isEqualTo("m" + i);
            }
            if (applied.test(probe)) {
                return at;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the new rule did not apply within 10 s");
    }

    private static void report(long changedAt, long appliedAt, String what) {
        long ms = TimeUnit.NANOSECONDS.toMillis(appliedAt - changedAt);
        System.out.printf("new rule applied %d ms after %s%n", ms, what);
        assertThat(ms).isLessThan(BOUND_MS);
    }
}
