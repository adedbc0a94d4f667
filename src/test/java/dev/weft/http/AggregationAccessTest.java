package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pipeline sees only what its caller may read: alice and bob (docs/security.md's notes rules:
 * their own notes, secret hidden) try to see past the rules through stored and ad-hoc pipelines.
 */
class AggregationAccessTest {
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer();
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/notes", """
                {"aggrs":[
                  {"uri":"count","stages":[{"$group":{"_id":null,"n":{"$sum":1}}}]},
                  {"uri":"everything","stages":[{"$replaceRoot":{"newRoot":"$$ROOT"}},{"$sort":{"_id":1}}]},
                  {"uri":"by-secret","stages":[{"$group":{"_id":"$secret","n":{"$sum":1}}}]},
                  {"uri":"match-secret","stages":[{"$match":{"secret":{"$exists":true}}},{"$count":"n"}]},
                  {"uri":"project-secret","stages":[{"$project":{"s":"$secret"}}]},
                  {"uri":"sort-secret","stages":[{"$sort":{"secret":1}},{"$project":{"_id":1}}]},
                  {"uri":"root-secret","stages":[{"$project":{"s":"$$ROOT.secret"}}]},
                  {"uri":"var","stages":[{"$project":{"v":{"$var":"what"}}}]},
                  {"uri":"grouped-then-named","stages":[{"$group":{"_id":"$owner","secret":{"$sum":1}}},
                      {"$match":{"secret":{"$gte":1}}}]},
                  {"uri":"join-authors","stages":[{"$lookup":{"from":"authors","localField":"owner","foreignField":"_id",
                      "as":"author"}},{"$project":{"author":1}},{"$sort":{"_id":1}}]},
                  {"uri":"join-other","stages":[{"$lookup":{"from":"other","localField":"owner","foreignField":"owner",
                      "as":"o"}}]},
                  {"uri":"join-authors-email","stages":[{"$lookup":{"from":"authors","let":{"o":"$owner"},
                      "pipeline":[{"$match":{"email":{"$exists":true}}}],"as":"a"}}]}]}""");
        send(server, "admin", "PUT", "/db/other", null);
        send(server, "admin", "PUT", "/db/authors", null);
        send(server, "admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","text":"alice-text","secret":"alice-secret"},
                 {"_id":"a2","owner":"alice","text":"alice-text"},
                 {"_id":"b1","owner":"bob","text":"bob-text","secret":"bob-secret"}]""");
        send(server, "admin", "POST", "/db/other", "[{\"_id\":\"o1\",\"owner\":\"alice\",\"text\":\"other-text\"}]");
        send(server, "admin", "POST", "/db/authors", """
                [{"_id":"alice","public":true,"email":"alice@example.com"},
                 {"_id":"bob","public":false,"email":"bob@example.com"}]""");
        AuthorizationMatrixTest.rules(server, "admin");
        send(server, "admin", "POST", "/weft/acl", """
                [{"_id":"authors-read","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/authors') and method(GET)",
                  "readFilter":{"public":true},"projectResponse":{"email":0}},
                 {"_id":"notes-adhoc","roles":["user"],"priority":20,
                  "predicate":"path('/db/notes/_aggrs') and method(POST)",
                  "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0},"allowAdhocAggregations":true}]""");
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static HttpResponse<String> get(String who, String path) throws Exception {
        return send(server, who, "GET", path, null);
    }

    private static HttpResponse<String> post(String who, String pipeline) throws Exception {
        return send(server, who, "POST", "/db/notes/_aggrs", pipeline);
    }

    @Test
    void theReadFilterRunsFirstAndTheProjectionBeforeTheCallersStages() throws Exception {
        assertThat(get("alice", "/db/notes/_aggrs/count").body()).isEqualTo("[{\"_id\":null,\"n\":2}]");
        assertThat(get("bob", "/db/notes/_aggrs/count").body()).isEqualTo("[{\"_id\":null,\"n\":1}]");
        assertThat(get("admin", "/db/notes/_aggrs/count").body()).isEqualTo("[{\"_id\":null,\"n\":3}]");
        String everything = get("alice", "/db/notes/_aggrs/everything").body();
        assertThat(everything).contains("\"a1\"", "\"a2\"").doesNotContain("secret", "bob");
        assertThat(get("admin", "/db/notes/_aggrs/everything").body()).contains("alice-secret", "bob-secret");
    }

    @Test
    void aPipelineNamingAHiddenFieldIsRefusedAsAFilterIs() throws Exception {
        for (String uri : new String[] {"by-secret", "match-secret", "project-secret", "sort-secret", "root-secret"}) {
            HttpResponse<String> r = get("alice", "/db/notes/_aggrs/" + uri);
            assertThat(r.statusCode()).as(uri + ": " + r.body()).isEqualTo(403);
            assertThat(r.body()).contains("secret", "projectResponse");
            HttpResponse<String> admin = get("admin", "/db/notes/_aggrs/" + uri);
            assertThat(admin.statusCode()).as(uri + ": " + admin.body()).isEqualTo(200);
        }
        // a variable is checked after it is bound: it cannot smuggle a field path in
        HttpResponse<String> var = get("alice", "/db/notes/_aggrs/var?avars=" + q("{\"what\":\"$secret\"}"));
        assertThat(var.statusCode()).isEqualTo(403);
        assertThat(get("alice", "/db/notes/_aggrs/var?avars=" + q("{\"what\":\"$text\"}")).body())
                .contains("alice-text").doesNotContain("secret");
        // after $group the documents are new: a field the group made may be named
        assertThat(get("alice", "/db/notes/_aggrs/grouped-then-named").body()).isEqualTo("[{\"_id\":\"alice\",\"secret\":2}]");
        assertThat(get("anon", "/db/notes/_aggrs/by-secret").statusCode()).isEqualTo(401);
    }

    @Test
    void lookupReadsAnotherCollectionOnlyAsAGetOfItWould() throws Exception {
        // alice's note joins her public author record, without the email the authors rule hides
        assertThat(get("alice", "/db/notes/_aggrs/join-authors").body())
                .matches("\\[\\{\"_id\":\"a1\",\"author\":\\[\\{\"_id\":\"alice\",\"public\":true,\"_etag\":[^]]*}]},"
                        + "\\{\"_id\":\"a2\",\"author\":\\[\\{\"_id\":\"alice\",\"public\":true,\"_etag\":[^]]*}]}]");
        // bob's author record is not public: the join finds nothing
        assertThat(get("bob", "/db/notes/_aggrs/join-authors").body()).isEqualTo("[{\"_id\":\"b1\",\"author\":[]}]");
        assertThat(get("admin", "/db/notes/_aggrs/join-authors").body()).contains("alice@example.com");
        // no rule lets alice read /db/other
        HttpResponse<String> other = get("alice", "/db/notes/_aggrs/join-other");
        assertThat(other.statusCode()).isEqualTo(403);
        assertThat(other.body()).doesNotContain("other-text");
        // a $lookup pipeline's filter on a field the other collection's rule hides
        assertThat(get("alice", "/db/notes/_aggrs/join-authors-email").statusCode()).isEqualTo(403);
    }

    @Test
    void adhocPipelinesNeedARuleThatAllowsThem() throws Exception {
        HttpResponse<String> count = post("alice", "[{\"$group\":{\"_id\":\"$owner\",\"n\":{\"$sum\":1}}}]");
        assertThat(count.statusCode()).as(count.body()).isEqualTo(200);
        assertThat(count.body()).isEqualTo("[{\"_id\":\"alice\",\"n\":2}]");
        assertThat(post("alice", "[{\"$match\":{\"owner\":\"bob\"}}]").body()).isEqualTo("[]");
        HttpResponse<String> probe = post("alice", "[{\"$match\":{\"secret\":{\"$regex\":\"^bob\"}}}]");
        assertThat(probe.statusCode()).isEqualTo(403);
        HttpResponse<String> viaExpr = post("alice", "[{\"$match\":{\"$expr\":{\"$eq\":[\"$secret\",\"alice-secret\"]}}}]");
        assertThat(viaExpr.statusCode()).isEqualTo(403);
        HttpResponse<String> facet = post("alice", "[{\"$facet\":{\"s\":[{\"$group\":{\"_id\":\"$secret\"}}]}}]");
        assertThat(facet.statusCode()).isEqualTo(403);
        // the by-collection rules (no allowAdhocAggregations) do not allow it elsewhere
        assertThat(send(server, "alice", "POST", "/db/authors/_aggrs", "[]").statusCode()).isEqualTo(403);
    }
}
