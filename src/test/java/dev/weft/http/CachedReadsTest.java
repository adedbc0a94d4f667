package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The memory path (answers from the result cache on the selector thread) never answers
 * differently from the stages: every read below, by every kind of user, gives the same status,
 * body and headers with the result cache on (asked three times: a miss, then hits) as with it off
 * ({@code --result-cache-entries 0}) over the same data.
 */
class CachedReadsTest {
    private static final List<String> WHO = List.of("anon", "bob", "alice", "admin");

    private static final List<String> READS = List.of(
            "/", "/db", "/db/notes", "/db/notes?maxTimeMS=-1", "/db/notes?count", "/db/notes?sort=" + q("{\"text\":1}"),
            "/db/notes?filter=" + q("{\"owner\":\"bob\"}"), "/db/notes?filter=" + q("{\"secret\":{\"$exists\":true}}"),
            "/db/notes?keys=" + q("{\"text\":1}"), "/db/notes?keys=" + q("{\"secret\":1}"),
            "/db/notes?pagesize=1&page=2", "/db/notes?pagesize=0", "/db/notes?pagesize=5000",
            "/db/notes?filter=" + q("{\"n\":{\"$gt\":1}}") + "&sort=-n", "/db/notes?filter=not-json",
            "/db/notes/a1", "/db/notes/a1?maxTimeMS=-1", "/db/notes/b1", "/db/notes/b1?keys=" + q("{\"secret\":1}"), "/db/notes/missing",
            "/db/notes/_size", "/db/other", "/db/other/o1", "/db/nothing", "/db/nothing/x",
            "/weft/users", "/weft/users/alice", "/weft/acl");

    /** What a client can tell apart in an answer: status, body and the headers endpoints set. */
    record Answer(String request, int status, String body, String etag, String totalCount, boolean authToken) {
        static Answer of(String request, HttpResponse<String> r) {
            return new Answer(request, r.statusCode(), r.body(), r.headers().firstValue("ETag").orElse(""),
                    r.headers().firstValue("X-Total-Count").orElse(""), r.headers().firstValue("Auth-Token").isPresent());
        }
    }

    @Test
    void everyReadAnswersTheSameWithTheResultCacheOnAndOff() throws Exception {
        TestServer cached = new TestServer();
        AuthorizationMatrixTest.users(cached);
        AuthorizationMatrixTest.send(cached, "admin", "PUT", "/db", null);
        AuthorizationMatrixTest.send(cached, "admin", "PUT", "/db/notes", null);
        AuthorizationMatrixTest.send(cached, "admin", "PUT", "/db/other", null);
        AuthorizationMatrixTest.send(cached, "admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","text":"alice-text","secret":"alice-secret","n":3},
                 {"_id":"a2","owner":"alice","text":"alice-2","n":1},
                 {"_id":"b1","owner":"bob","text":"bob-text","secret":"bob-secret","n":2}]""");
        AuthorizationMatrixTest.send(cached, "admin", "POST", "/db/other", "{\"_id\":\"o1\",\"text\":\"other\"}");
        AuthorizationMatrixTest.rules(cached, "admin");

        List<Answer> withCache = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            withCache.clear();
            for (String who : WHO) {
                for (String read : READS) {
                    withCache.add(Answer.of(who + " " + read, AuthorizationMatrixTest.send(cached, who, "GET", read, null)));
                }
            }
        }
        try (TestServer uncached = cached.restartWith("--result-cache-entries", "0")) {
            List<Answer> withoutCache = new ArrayList<>();
            for (String who : WHO) {
                for (String read : READS) {
                    withoutCache.add(Answer.of(who + " " + read, AuthorizationMatrixTest.send(uncached, who, "GET", read, null)));
                }
            }
            assertThat(withCache).containsExactlyElementsOf(withoutCache);
            assertThat(withCache).filteredOn(a -> a.status() == 200).hasSizeGreaterThan(WHO.size() * 5);
            assertThat(withCache).filteredOn(a -> a.request().startsWith("bob ") && a.status() == 200).allSatisfy(a ->
                    assertThat(a.body()).doesNotContain("alice-text", "secret"));
        }
    }
}
