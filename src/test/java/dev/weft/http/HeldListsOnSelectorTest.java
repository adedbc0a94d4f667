package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.store.Namespace;
import dev.weft.store.sqlite.SqliteStore;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Filtered lists of held collections run first on the selector thread that parsed them
 * ({@code selector-read-budget-us}, {@link dev.weft.store.MemoryOnly}) and answer exactly as the
 * stages on a virtual thread do: every read below, by every kind of user, gives the same status,
 * body and headers as with {@code --selector-read-budget-us 0} over the same data, and most of
 * them were answered on the selector (counted by {@code weft_held_list_answers_total}).
 */
class HeldListsOnSelectorTest {
    private static final Pattern ANSWERS = Pattern.compile("(?m)^weft_held_list_answers_total (\\d+)$");
    private static final List<String> WHO = List.of("anon", "bob", "alice", "admin");
    private static final List<String> READS = List.of(
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}"),
            "/db/tnotes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}"),
            "/db/tnotes?filter=" + q("{\"url\":{\"$regex\":\"example\"}}") + "&sort=" + q("{\"url\":1}"),
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"example\"}}") + "&pagesize=1&page=2",
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"example\"}}") + "&keys=" + q("{\"url\":1}"),
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"example\"}}") + "&keys=" + q("{\"secret\":1}"),
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"filler\"}}") + "&pagesize=3",
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"PACH\",\"$options\":\"i\"}}"),
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}") + "&count",
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}") + "&maxTimeMS=-1",
            "/db/notes?filter=" + q("{\"secret\":{\"$regex\":\"pach\"}}"),
            "/db/notes?filter=" + q("{\"owner\":\"carol\"}"),
            "/db/notes?filter=not-json",
            "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"(\"}}"));

    /**
     * What a client can tell apart in an answer: status, body and the headers endpoints set (of a
     * next page's cursor, whether there is one: each server seals its tokens with its own key).
     */
    record Answer(String request, int status, String body, boolean next, String totalCount, boolean authToken) {
        static Answer of(String request, HttpResponse<String> r) {
            return new Answer(request, r.statusCode(), r.body(), r.headers().firstValue(CollectionEndpoints.NEXT).isPresent(),
                    r.headers().firstValue("X-Total-Count").orElse(""), r.headers().firstValue("Auth-Token").isPresent());
        }
    }

    @Test
    void everyFilteredListOfHeldRowsAnswersTheSameOnTheSelectorAsOnAVirtualThread() throws Exception {
        // a budget no loaded test machine exceeds: what is checked here is the answers, not the budget
        TestServer selector = new TestServer("--result-cache-entries", "0", "--selector-read-budget-us", "1000000");
        assumeTrue(selector.store instanceof SqliteStore, "held rows are SQLite's");
        AuthorizationMatrixTest.users(selector);
        send(selector, "admin", "PUT", "/db", null);
        for (String coll : List.of("notes", "tnotes")) {
            send(selector, "admin", "PUT", "/db/" + coll, null);
            assertThat(send(selector, "admin", "POST", "/db/" + coll, documents()).statusCode()).isEqualTo(200);
        }
        assertThat(send(selector, "admin", "PUT", "/db/tnotes/_indexes/url", "{\"keys\":{\"url\":\"trigram\"}}").statusCode())
                .isEqualTo(201);
        AuthorizationMatrixTest.send(selector, "admin", "POST", "/weft/acl", """
                [{"_id":"notes","roles":["user"],"priority":10,"predicate":"path-prefix('/db/notes') or path-prefix('/db/tnotes')",
                  "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0}}]""");
        awaitHeld(selector);

        for (String who : List.of("bob", "alice")) { // their password checked once: a credential not remembered takes the stages
            send(selector, who, "GET", "/db/notes/_size", null);
        }
        long before = heldAnswers(selector);
        List<Answer> onSelector = answers(selector);
        long answered = heldAnswers(selector) - before;
        // bob, alice and admin each: every read but the case-insensitive literal (no sketch tests it), count (counted
        // in the table), the bad ones and the hidden field; less the first one planning a trigram lookup of a new
        // literal (its candidates counted in the table once, then remembered)
        assertThat(answered).isBetween(3 * 8 - 1L, 3 * 8L);
        assertThat(onSelector).filteredOn(a -> a.request().startsWith("bob ") && a.status() == 200).allSatisfy(a ->
                assertThat(a.body()).doesNotContain("alice", "carol", "secret"));
        assertThat(onSelector).filteredOn(a -> a.request().startsWith("admin ") && a.status() == 200).hasSizeGreaterThan(8);

        try (TestServer stages = selector.restartWith("--result-cache-entries", "0", "--selector-read-budget-us", "0")) {
            awaitHeld(stages);
            assertThat(answers(stages)).containsExactlyElementsOf(onSelector);
            assertThat(heldAnswers(stages)).isZero();
        }
    }

    @Test
    void aWriteIsSeenByTheNextListAnsweredOnTheSelector() throws Exception {
        try (TestServer server = new TestServer("--result-cache-entries", "0", "--selector-read-budget-us", "1000000")) {
            assumeTrue(server.store instanceof SqliteStore, "held rows are SQLite's");
            send(server, "admin", "PUT", "/db", null);
            send(server, "admin", "PUT", "/db/notes", null);
            assertThat(send(server, "admin", "POST", "/db/notes", documents()).statusCode()).isEqualTo(200);
            awaitHeld(server, "notes");
            String zebra = "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"zebra\"}}");
            long before = heldAnswers(server);
            for (int i = 0; i < 20; i++) {
                assertThat(send(server, "admin", "POST", "/db/notes", "{\"_id\":\"z" + i + "\",\"url\":\"zebra-" + i + "\"}")
                        .statusCode()).isEqualTo(201);
                HttpResponse<String> r = send(server, "admin", "GET", zebra + "&pagesize=100", null);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).contains("\"z" + i + "\"").doesNotContain("\"z" + (i + 1) + "\"");
            }
            assertThat(heldAnswers(server) - before).isPositive();
        }
    }

    private static String documents() {
        StringBuilder docs = new StringBuilder("""
                [{"_id":"a1","owner":"alice","url":"https://projects.apache.org/a1","secret":"alice-pach-secret"},
                 {"_id":"a2","owner":"alice","url":"https://example.org/a2"},
                 {"_id":"b1","owner":"bob","url":"https://apache.example/b1","secret":"bob-secret"},
                 {"_id":"b2","owner":"bob","url":"https://example.org/b2","secret":"pach"}""");
        for (int i = 0; i < 60; i++) {
            docs.append(",{\"_id\":\"c").append(i).append("\",\"owner\":\"carol\",\"url\":\"https://filler.test/")
                    .append(i).append("\"}");
        }
        return docs.append("]").toString();
    }

    private static List<Answer> answers(TestServer server) throws Exception {
        List<Answer> out = new ArrayList<>();
        for (String who : WHO) {
            for (String read : READS) {
                out.add(Answer.of(who + " " + read, send(server, who, "GET", read, null)));
            }
        }
        return out;
    }

    /** A regex list asks for the collection's rows; the writer reads them in soon after. */
    private static void awaitHeld(TestServer server, String... colls) throws Exception {
        List<String> names = colls.length == 0 ? List.of("notes", "tnotes") : List.of(colls);
        Set<Namespace> wanted = new java.util.HashSet<>();
        names.forEach(c -> wanted.add(new Namespace("db", c)));
        SqliteStore store = (SqliteStore) server.store;
        for (int i = 0; i < 500 && !store.heldCollections().containsAll(wanted); i++) {
            for (String c : names) {
                send(server, "admin", "GET", "/db/" + c + "?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}"), null);
            }
            Thread.sleep(10);
        }
        assertThat(store.heldCollections()).containsAll(wanted);
    }

    private static long heldAnswers(TestServer server) throws Exception {
        Matcher m = ANSWERS.matcher(server.get("/metrics").body());
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }
}
