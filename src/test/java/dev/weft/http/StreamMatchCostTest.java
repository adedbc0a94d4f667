package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.http.StreamClients.Ws;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * One subscriber's costly filter neither stalls the others nor runs without bound (hostile-input
 * issue 2, item 5): {@code $in} is a hash lookup, and past {@code stream-match-budget} value
 * tests on one event the subscriber's stream ends with close 1008 and a reason.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamMatchCostTest {
    private static final int ELEMENTS = 500_000;

    TestServer weft;

    @BeforeAll
    void start() throws Exception {
        weft = new TestServer("--stream-match-budget", "100000");
        weft.createCollection("db", "big");
        weft.createCollection("db", "other");
    }

    @AfterAll
    void stop() throws Exception {
        weft.close();
    }

    private static String in450() {
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < 450; i++) {
            values.append(i == 0 ? "" : ",").append(1_000_000 + i);
        }
        return TestServer.q("{\"arr\":{\"$in\":[" + values + "]}}");
    }

    private static String bigDocument() {
        StringBuilder doc = new StringBuilder(ELEMENTS * 2 + 16).append("{\"arr\":[");
        for (int i = 0; i < ELEMENTS; i++) {
            doc.append(i == 0 ? "" : ",").append(i % 10);
        }
        return doc.append("]}").toString();
    }

    @Test
    void aCostlyFilterEndsItsOwnStreamAndDoesNotDelayAnother() throws Exception {
        try (Ws costly = Ws.open(weft, "/db/big/_streams?filter=" + in450());
             Ws other = Ws.open(weft, "/db/other/_streams")) {
            String big = bigDocument();
            for (int i = 0; i < 4; i++) {
                HttpResponse<String> r = weft.post("/db/big", big);
                assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
            }
            long posted = System.nanoTime();
            assertThat(weft.post("/db/other", "{\"probe\":1}").statusCode()).isEqualTo(201);
            assertThat(other.next(30).get("fullDocument").get("probe").asInt()).isEqualTo(1);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - posted);
            System.out.printf("another collection's stream got its event %d ms after four costly events%n", ms);
            assertThat(ms).isLessThan(1_000);

            String how = costly.ended.get(10, TimeUnit.SECONDS);
            System.out.println("the costly stream ended: " + how);
            assertThat(how).startsWith("1008 ").contains("stream-match-budget (100000 value tests)");
        }
    }

    @Test
    void aLargeInWithinTheBudgetStillMatches() throws Exception {
        try (Ws ws = Ws.open(weft, "/db/big/_streams?filter=" + in450())) {
            weft.post("/db/big", "{\"arr\":[1,2,1000449]}");
            weft.post("/db/big", "{\"arr\":[1,2,3]}");
            weft.post("/db/big", "{\"arr\":1000000.0}");
            assertThat(ws.next(10).get("fullDocument").get("arr").get(2).asInt()).isEqualTo(1000449);
            assertThat(ws.next(10).get("fullDocument").get("arr").asDouble()).isEqualTo(1000000.0);
        }
    }
}
