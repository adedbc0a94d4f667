package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RESTHeart's permissions taken as they are: an acl.yml through {@code --acl-file} (lowest
 * priority first, restrictions as JSON strings, bracket predicates, RESTHeart's own predicates),
 * the rules collection with RESTHeart's mongo-ACL order (highest priority first), both at once,
 * and variables that do not resolve matching nothing.
 */
class RestheartAclHttpTest {
    private static final String ACL_YML = """
            permissions:
                - role: user
                  predicate: path-prefix[path="/db/files"] and method[value="GET"] and qparams-blacklist(sort)
                  priority: 10
                  mongo:
                    readFilter: >
                      {'owner': '@user.userid'}
                    projectResponse: >
                      {"secret": 0}
                - role: user
                  predicate: path-prefix[path="/db/files"]
                  priority: 20
                - roles: [ user ]
                  predicate: >
                    method(POST)
                    and path-template('/db/{userid}')
                    and equals(@user.userid, ${userid})
                    and bson-request-whitelist(title, content)
                    and bson-request-contains(title)
                    and qparams-whitelist()
                  priority: 100
                  mongo:
                    mergeRequest: >
                      {"author": "@user.userid", "status": "draft", "method": "@request.method"}
                - role: user
                  predicate: >
                    (method(PUT) or method(GET)) and path-template(value="/db/arr/{id}")
                    and in(value=${id}, array=@user.array)
                  priority: 100
                  mongo:
                    allowWriteMode: true
            """;

    TestServer server;
    Path aclFile;

    @BeforeEach
    void start() throws Exception {
        aclFile = Files.createTempFile("acl", ".yml");
        Files.writeString(aclFile, ACL_YML);
        server = new TestServer("--acl-file", aclFile.toString());
        for (String user : new String[] {
                "{\"_id\":\"alice\",\"roles\":[\"user\"],\"array\":[\"one\",\"two\"],\"team\":\"blue\"",
                "{\"_id\":\"bob\",\"roles\":[\"user\"]"}) {
            String name = user.substring(8, user.indexOf('"', 8));
            assertThat(server.post("/weft/users", user + ",\"password\":\"" + name + "-Password-1\"}").statusCode())
                    .isEqualTo(201);
        }
        for (String db : new String[] {"/db", "/db/files", "/db/alice", "/db/arr", "/db/team"}) {
            server.put(db, null);
        }
        server.post("/db/files", """
                [{"_id":"a1","owner":"alice","secret":"s"},{"_id":"b1","owner":"bob","secret":"s"}]""");
        server.post("/db/team", """
                [{"_id":"t1","team":"blue"},{"_id":"t2"},{"_id":"t3","team":null}]""");
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        Files.deleteIfExists(aclFile);
    }

    private HttpResponse<String> as(String who, String method, String path, String body) throws Exception {
        return server.send(method, path, body, "Authorization", TestServer.basic(who, who + "-Password-1"));
    }

    @Test
    void theFileIsTriedLowestPriorityFirstWithRestrictionsWrittenAsJsonStrings() throws Exception {
        HttpResponse<String> list = as("alice", "GET", "/db/files", null);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(list.body()).contains("\"a1\"").doesNotContain("\"b1\"", "\"secret\"");
        // qparams-blacklist(sort) sends this one to the priority 20 rule, which has no filter.
        assertThat(as("alice", "GET", "/db/files?sort=" + q("{\"_id\":1}"), null).body()).contains("a1", "b1", "secret");
        assertThat(as("alice", "DELETE", "/db/files/b1", null).statusCode()).isEqualTo(204);
    }

    @Test
    void requestBodyPredicatesAndVariablesDecideWrites() throws Exception {
        HttpResponse<String> created = as("alice", "POST", "/db/alice", "{\"title\":\"t\",\"content\":\"c\"}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        // bson-request-whitelist(title, content): RESTHeart refuses a client _id too.
        assertThat(as("alice", "POST", "/db/alice", "{\"_id\":\"p1\",\"title\":\"t\"}").statusCode()).isEqualTo(403);
        assertThat(server.get("/db/alice").body())
                .contains("\"author\":\"alice\"", "\"status\":\"draft\"", "\"method\":\"POST\"");
        assertThat(as("alice", "POST", "/db/alice", "{\"title\":\"t\",\"log\":1}").statusCode()).isEqualTo(403);
        assertThat(as("alice", "POST", "/db/alice", "{\"content\":\"c\"}").statusCode()).isEqualTo(403);
        assertThat(as("alice", "POST", "/db/alice?wm=insert", "{\"title\":\"t\"}").statusCode()).isEqualTo(403);
        assertThat(as("bob", "POST", "/db/alice", "{\"title\":\"t\"}").statusCode()).isEqualTo(403);
        assertThat(server.get("/db/alice/_size").body()).isEqualTo("{\"_size\":1}");
    }

    @Test
    void inReadsAnArrayOfTheAccount() throws Exception {
        assertThat(as("alice", "PUT", "/db/arr/two?wm=upsert", "{}").statusCode()).isEqualTo(201);
        assertThat(as("alice", "GET", "/db/arr/two", null).statusCode()).isEqualTo(200);
        assertThat(as("alice", "GET", "/db/arr/three", null).statusCode()).isEqualTo(403);
        assertThat(as("bob", "GET", "/db/arr/two", null).statusCode()).isEqualTo(403);
    }

    @Test
    void theRulesCollectionTriesTheHighestPriorityFirstBesideTheFile() throws Exception {
        // As RESTHeart stores it: a JSON string, with its escape of $ in stored filters.
        server.post("/weft/acl", """
                [{"_id":"broad","roles":["user"],"predicate":"path-prefix[path=\\"/db/team\\"]","priority":1},
                 {"_id":"narrow","roles":["user"],"predicate":"path-prefix('/db/team') and method(GET)","priority":2,
                  "mongo":{"readFilter":"{'team': {'_$eq': '@user.team'}}","mergeRequest":{"team":"@user.team"}}}]""");
        assertThat(as("alice", "GET", "/db/team", null).body()).contains("t1").doesNotContain("t2", "t3");
        // The file's rules still apply.
        assertThat(as("alice", "GET", "/db/files", null).body()).contains("\"a1\"").doesNotContain("\"b1\"");
    }

    /** RESTHeart before 9.8.2 read {"team": "@user.team"} as {"team": null} for bob: t2 and t3. */
    @Test
    void aVariableThatDoesNotResolveMatchesNothingAndWritesNothing() throws Exception {
        server.post("/weft/acl", """
                {"_id":"team","roles":["user"],"predicate":"path-prefix('/db/team')","priority":5,
                 "mongo":{"readFilter":{"team":"@user.team"},"mergeRequest":{"team":"@user.team"}}}""");
        assertThat(as("bob", "GET", "/db/team", null).body()).isEqualTo("[]");
        assertThat(as("bob", "GET", "/db/team/t2", null).statusCode()).isEqualTo(404);
        assertThat(as("bob", "POST", "/db/team", "{\"_id\":\"x\"}").statusCode()).isEqualTo(403);
        assertThat(as("bob", "DELETE", "/db/team/t2", null).statusCode()).isEqualTo(404);
        assertThat(server.get("/db/team/_size").body()).isEqualTo("{\"_size\":3}");
        assertThat(as("alice", "POST", "/db/team", "{\"_id\":\"y\"}").statusCode()).isEqualTo(201);
        assertThat(server.get("/db/team/y").body()).contains("\"team\":\"blue\"");
    }

    @Test
    void theFileIsReadAgainWhenItChanges() throws Exception {
        assertThat(as("bob", "GET", "/db/other", null).statusCode()).isEqualTo(403);
        Files.writeString(aclFile, ACL_YML + """
                - role: user
                  predicate: path[path="/db/other"]
                  priority: 1
            """);
        long deadline = System.currentTimeMillis() + 10_000;
        int status = 403;
        while (status != 404 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            status = as("bob", "GET", "/db/other", null).statusCode();
        }
        assertThat(status).isEqualTo(404);
    }
}
