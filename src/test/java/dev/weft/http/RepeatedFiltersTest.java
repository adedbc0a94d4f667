package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A filter asked again is found parsed ({@link ReadParams}'s memo of filter texts), and what is
 * kept depends on no principal: the same filter text asked in turn by users whose read rules
 * differ gives each only what their rule lets them see, a {@code $text} search is bound per
 * request to its reader, and a bad filter fails with the same 400 each time. The result cache is
 * off, so every request parses (or finds) its filter.
 */
class RepeatedFiltersTest {
    private static final String DOCS = """
            [{"_id":"a1","owner":"alice","url":"https://projects.apache.org/a1","text":"coffee beans"},
             {"_id":"a2","owner":"alice","url":"https://example.org/a2","text":"tea"},
             {"_id":"b1","owner":"bob","url":"https://apache.example/b1","text":"coffee cups"},
             {"_id":"b2","owner":"bob","url":"https://example.org/b2","text":"coffee"}]""";

    @Test
    void theSameFilterTextAskedByUsersWithDifferentRulesShowsEachOnlyTheirOwn() throws Exception {
        try (TestServer server = new TestServer("--result-cache-entries", "0")) {
            setUp(server);
            String pach = "/db/notes?filter=" + q("{\"url\":{\"$regex\":\"pach\"}}");
            for (int round = 0; round < 3; round++) {
                assertThat(ids(send(server, "bob", "GET", pach, null))).containsExactly("b1");
                assertThat(ids(send(server, "alice", "GET", pach, null))).containsExactly("a1");
                assertThat(ids(send(server, "admin", "GET", pach, null))).containsExactlyInAnyOrder("a1", "b1");
                assertThat(send(server, "bob", "GET", pach.replace("/db/notes?", "/db/notes/_size?"), null).body())
                        .contains("\"_size\":1");
            }
        }
    }

    @Test
    void aRepeatedTextSearchIsBoundToEachReader() throws Exception {
        try (TestServer server = new TestServer("--result-cache-entries", "0")) {
            setUp(server);
            assertThat(send(server, "admin", "PUT", "/db/notes/_indexes/t", "{\"keys\":{\"text\":\"text\"}}").statusCode())
                    .isEqualTo(201);
            String coffee = "/db/notes?filter=" + q("{\"$text\":{\"$search\":\"coffee\"}}")
                    + "&keys=" + q("{\"score\":{\"$meta\":\"textScore\"}}") + "&sort=" + q("{\"score\":{\"$meta\":\"textScore\"}}");
            for (int round = 0; round < 3; round++) {
                assertThat(ids(send(server, "admin", "GET", coffee, null))).containsExactlyInAnyOrder("a1", "b1", "b2");
                assertThat(ids(send(server, "bob", "GET", coffee, null))).containsExactlyInAnyOrder("b1", "b2");
                assertThat(ids(send(server, "alice", "GET", coffee, null))).containsExactly("a1");
            }
        }
    }

    @Test
    void aBadFilterFailsTheSameWayEachTime() throws Exception {
        try (TestServer server = new TestServer("--result-cache-entries", "0")) {
            setUp(server);
            for (String bad : List.of("{\"url\":{\"$regex\":\"(\"}}", "{\"url\":{\"$nope\":1}}", "{url:", "[1]")) {
                HttpResponse<String> first = send(server, "bob", "GET", "/db/notes?filter=" + q(bad), null);
                assertThat(first.statusCode()).as(bad).isEqualTo(400);
                for (String who : List.of("bob", "alice", "admin")) {
                    HttpResponse<String> again = send(server, who, "GET", "/db/notes?filter=" + q(bad), null);
                    assertThat(again.statusCode()).as(bad).isEqualTo(400);
                    assertThat(again.body()).as(bad).isEqualTo(first.body());
                }
            }
        }
    }

    private static void setUp(TestServer server) throws Exception {
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", null);
        assertThat(send(server, "admin", "POST", "/db/notes", DOCS).statusCode()).isEqualTo(200);
        send(server, "admin", "POST", "/weft/acl", """
                [{"_id":"notes","roles":["user"],"priority":10,"predicate":"path-prefix('/db/notes')",
                  "readFilter":{"owner":"@user._id"}}]""");
    }

    private static List<String> ids(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return java.util.regex.Pattern.compile("\"_id\":\"([ab]\\d)\"").matcher(r.body()).results().map(m -> m.group(1)).toList();
    }
}
