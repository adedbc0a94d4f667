package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.observe.Metrics;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every route and method of {@link Routes} x {anonymous, alice, bob, admin} against a real server
 * with the access rules of docs/security.md's example: role {@code user} reads and writes
 * {@code /db/notes}, each user only their own notes ({@code owner}), {@code owner} protected and
 * set by the server, {@code secret} never returned; nothing else is open. Asserts each status, and
 * that no non-admin response carries another user's data or a secret.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationMatrixTest {
    private static final List<String> WHO = List.of("anon", "bob", "alice", "admin");
    private static final String NO_SESSION = "0f8fad5b-d9cb-469f-a165-70867728950e";

    TestServer server;

    @BeforeAll
    void start() throws Exception {
        server = new TestServer();
        users(server);
        as("admin", "PUT", "/db", null);
        as("admin", "PUT", "/db/notes", null);
        as("admin", "PUT", "/db/other", null);
        as("admin", "POST", "/db/notes", """
                [{"_id":"a1","owner":"alice","text":"alice-text","secret":"alice-secret"},
                 {"_id":"b1","owner":"bob","text":"bob-text","secret":"bob-secret"}]""");
        as("admin", "POST", "/db/other", "{\"_id\":\"o1\",\"text\":\"other-text\"}");
        rules(server, "admin");
    }

    /** alice and bob, role {@code user}, created by the admin through the users collection. */
    static void users(TestServer server) throws Exception {
        for (String user : List.of("alice", "bob")) {
            HttpResponse<String> r = server.post("/weft/users",
                    "{\"_id\":\"" + user + "\",\"password\":\"" + password(user) + "\",\"roles\":[\"user\"]}");
            assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        }
    }

    private static String password(String user) {
        return user + "-Password-1";
    }

    /** The example rules of docs/security.md, written through the API. */
    static void rules(TestServer server, String admin) throws Exception {
        send(server, admin, "POST", "/weft/acl", """
                [{"_id":"notes-read","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/notes') and method(GET)",
                  "readFilter":{"owner":"@user._id"},"projectResponse":{"secret":0}},
                 {"_id":"notes-write","roles":["user"],"priority":10,
                  "predicate":"path-prefix('/db/notes') and not method(GET)",
                  "readFilter":{"owner":"@user._id"},"writeFilter":{"owner":"@user._id"},
                  "protectedFields":["owner"],"mergeRequest":{"owner":"@user._id"},
                  "allowBulkPatch":true,"allowBulkDelete":true,"allowWriteMode":true}]""");
    }

    @AfterAll
    void stop() throws Exception {
        server.close();
    }

    HttpResponse<String> as(String who, String method, String path, String body) throws Exception {
        try {
            return send(server, who, method, path, body);
        } catch (java.io.IOException e) {
            throw new java.io.IOException(who + " " + method + " " + path + ": " + e.getMessage(), e);
        }
    }

    static HttpResponse<String> send(TestServer server, String who, String method, String path, String body) throws Exception {
        return server.send(method, path, body, "Authorization", authorization(who));
    }

    static String authorization(String who) {
        return switch (who) {
            case "anon" -> TestServer.ANONYMOUS;
            case "admin" -> TestServer.ADMIN;
            default -> TestServer.basic(who, password(who));
        };
    }

    /** One request and the status each of anon, bob, alice, admin gets, run in that order. */
    record Row(String template, String method, String path, String body, int anon, int bob, int alice, int admin) {
        int expected(String who) {
            return switch (who) {
                case "anon" -> anon;
                case "bob" -> bob;
                case "alice" -> alice;
                default -> admin;
            };
        }
    }

    private static Row row(String template, String method, String path, String body, int anon, int bob, int alice, int admin) {
        return new Row(template, method, path, body, anon, bob, alice, admin);
    }

    /** Ordered so that each row's writes leave the state the next rows expect. */
    private static List<Row> matrix() {
        String all = "?filter=" + q("{}");
        return List.of(
                row("/ping", "GET", "/ping", null, 200, 200, 200, 200),
                // open routes: files holding no data, answered without looking at credentials
                row("/_openapi.json", "GET", "/_openapi.json", null, 200, 200, 200, 200),
                row("/_console", "GET", "/_console/", null, 200, 200, 200, 200),
                row("/_console/{file}", "GET", "/_console/console.js", null, 200, 200, 200, 200),
                row("/metrics", "GET", "/metrics", null, 401, 403, 403, 200),
                row("/", "GET", "/", null, 401, 403, 403, 200),
                // one's own token only, no rule needed; nobody reads another's, an admin may revoke it
                row("/tokens/{user}", "GET", "/tokens/alice", null, 401, 403, 200, 403),
                row("/tokens/{user}", "DELETE", "/tokens/bob", null, 401, 204, 403, 204),
                // sessions need a rule for /_sessions, as in RESTHeart (the notes rules give none); an unknown one is 404
                row("/_sessions", "POST", "/_sessions", null, 401, 403, 403, 201),
                row("/_sessions/{sid}", "DELETE", "/_sessions/" + NO_SESSION, null, 401, 403, 403, 404),
                row("/_sessions/{sid}/_txns", "GET", "/_sessions/" + NO_SESSION + "/_txns", null, 401, 403, 403, 404),
                row("/_sessions/{sid}/_txns", "POST", "/_sessions/" + NO_SESSION + "/_txns", null, 401, 403, 403, 404),
                row("/_sessions/{sid}/_txns/{txn}", "PATCH", "/_sessions/" + NO_SESSION + "/_txns/1", null, 401, 403, 403, 404),
                row("/_sessions/{sid}/_txns/{txn}", "DELETE", "/_sessions/" + NO_SESSION + "/_txns/1", null, 401, 403, 403, 404),
                // a data request naming a session that is not the caller's: 404 for everyone its rules let through
                row("/{db}/{coll}", "GET", "/db/notes?sid=" + NO_SESSION + "&txn=1", null, 401, 404, 404, 404),
                row("/{db}", "GET", "/db", null, 401, 403, 403, 200),
                row("/{db}", "PUT", "/db2", null, 401, 403, 403, 201),
                row("/{db}", "DELETE", "/db", null, 401, 403, 403, 409), // admin: If-Match required
                row("/{db}/{coll}", "GET", "/db/notes", null, 401, 200, 200, 200),
                row("/{db}/{coll}", "GET", "/db/other", null, 401, 403, 403, 200),
                row("/{db}/{coll}", "POST", "/db/notes", "{\"_id\":\"n-new\",\"text\":\"x\"}", 401, 201, 409, 409),
                row("/{db}/{coll}", "POST", "/db/notes", "{\"text\":\"forged\",\"owner\":\"eve\"}", 401, 403, 403, 201),
                row("/{db}/{coll}", "POST", "/db/other", "{\"text\":\"x\"}", 401, 403, 403, 201),
                row("/{db}/{coll}", "PUT", "/db/notes", null, 401, 403, 403, 200),
                row("/{db}/{coll}", "DELETE", "/db/other", null, 401, 403, 403, 409),
                row("/{db}/{coll}/_size", "GET", "/db/notes/_size", null, 401, 200, 200, 200),
                row("/{db}/{coll}/_size", "GET", "/db/other/_size", null, 401, 403, 403, 200),
                // reading metadata is a management request, as in RESTHeart: the notes rule does not allow it
                row("/{db}/_meta", "GET", "/db/_meta", null, 401, 403, 403, 200),
                row("/{db}/{coll}/_meta", "GET", "/db/notes/_meta", null, 401, 403, 403, 200),
                row("/{db}/{coll}/_streams", "GET", "/db/notes/_streams", null, 401, 400, 400, 400), // neither WS nor SSE
                row("/{db}/{coll}/_streams", "GET", "/db/other/_streams", null, 401, 403, 403, 400),
                row("/{db}/{coll}/_streams/{name}", "GET", "/db/notes/_streams/nope", null, 401, 404, 404, 404),
                row("/{db}/{coll}/_streams/{name}", "GET", "/db/other/_streams/nope", null, 401, 403, 403, 404),
                row("/{db}/{coll}/_aggrs/{uri}", "GET", "/db/notes/_aggrs/nope", null, 401, 404, 404, 404),
                row("/{db}/{coll}/_aggrs/{uri}", "GET", "/db/other/_aggrs/nope", null, 401, 403, 403, 404),
                // an ad-hoc pipeline needs allowAdhocAggregations, which the notes rules do not give
                row("/{db}/{coll}/_aggrs", "POST", "/db/notes/_aggrs", "[{\"$count\":\"n\"}]", 401, 403, 403, 200),
                row("/{db}/{coll}/_aggrs", "POST", "/db/other/_aggrs", "[{\"$count\":\"n\"}]", 401, 403, 403, 200),
                row("/{db}/{coll}/_indexes", "GET", "/db/notes/_indexes", null, 401, 200, 200, 200),
                row("/{db}/{coll}/_indexes", "GET", "/db/other/_indexes", null, 401, 403, 403, 200),
                row("/{db}/{coll}/_indexes/{name}", "PUT", "/db/notes/_indexes/by-text", "{\"keys\":{\"text\":1}}",
                        401, 403, 403, 201),
                row("/{db}/{coll}/_indexes/{name}", "DELETE", "/db/notes/_indexes/by-text", null, 401, 403, 403, 204),
                row("/{db}/{coll}/{id}", "GET", "/db/notes/a1", null, 401, 404, 200, 200),
                row("/{db}/{coll}/{id}", "GET", "/db/other/o1", null, 401, 403, 403, 200),
                row("/{db}/{coll}/{id}", "PUT", "/db/notes/a1", "{\"owner\":\"alice\",\"text\":\"alice-text-2\"}",
                        401, 404, 200, 200),
                row("/{db}/{coll}/{id}", "PUT", "/db/notes/a1", "{\"text\":\"alice-text\",\"owner\":\"eve\"}",
                        401, 404, 403, 200),
                // The row above let admin give a1 to eve; admin gives it back.
                row("/{db}/{coll}/{id}", "PUT", "/db/notes/a1", "{\"owner\":\"alice\",\"text\":\"alice-text\"}",
                        401, 404, 404, 200),
                row("/{db}/{coll}/{id}", "PUT", "/db/notes/b-new?wm=upsert", "{\"text\":\"b\"}", 401, 201, 404, 200),
                row("/{db}/{coll}/{id}", "PATCH", "/db/notes/a1", "{\"$set\":{\"text\":\"alice-text-3\"}}",
                        401, 404, 200, 200),
                row("/{db}/{coll}/{id}", "PATCH", "/db/notes/a1", "{\"$set\":{\"owner\":\"eve\"}}", 401, 403, 403, 200),
                row("/{db}/{coll}/{id}", "PATCH", "/db/notes/a1", "{\"$set\":{\"owner\":\"alice\"}}", 401, 403, 403, 200),
                row("/{db}/{coll}/{id}", "PATCH", "/db/other/o1", "{\"text\":\"y\"}", 401, 403, 403, 200),
                row("/{db}/{coll}/*", "PATCH", "/db/notes/*" + all, "{\"$set\":{\"touched\":true}}", 401, 200, 200, 200),
                row("/{db}/{coll}/*", "PATCH", "/db/notes/*?filter=" + q("{\"_id\":\"none\"}"),
                        "{\"$set\":{\"owner\":\"eve\"}}", 401, 403, 403, 200),
                row("/{db}/{coll}/*", "DELETE", "/db/other/*" + all, null, 401, 403, 403, 200),
                row("/{db}/{coll}/{id}", "DELETE", "/db/other/o1", null, 401, 403, 403, 404),
                row("/{db}/{coll}/{id}", "DELETE", "/db/notes/a1", null, 401, 404, 204, 404),
                row("/{db}/{coll}/*", "DELETE", "/db/notes/*" + all, null, 401, 200, 200, 200));
    }

    @Test
    void aFieldHiddenByProjectResponseCannotBeProbedWithFiltersOrSorts() throws Exception {
        for (String probe : List.of("/db/notes?filter=" + q("{\"secret\":\"alice-secret\"}"),
                "/db/notes?filter=" + q("{\"$or\":[{\"text\":\"x\"},{\"secret\":{\"$regex\":\"^a\"}}]}"),
                "/db/notes?sort=" + q("{\"secret\":1}"),
                "/db/notes/_size?filter=" + q("{\"secret\":{\"$exists\":true}}"))) {
            HttpResponse<String> r = as("alice", "GET", probe, null);
            assertThat(r.statusCode()).as(probe + ": " + r.body()).isEqualTo(403);
            assertThat(r.body()).contains("secret").contains("projectResponse");
            assertThat(as("admin", "GET", probe, null).statusCode()).as("admin " + probe).isEqualTo(200);
        }
        HttpResponse<String> visible = as("alice", "GET", "/db/notes?filter=" + q("{\"text\":{\"$exists\":true}}")
                + "&sort=" + q("{\"text\":1}"), null);
        assertThat(visible.statusCode()).as(visible.body()).isEqualTo(200);
        assertThat(visible.body()).doesNotContain("secret");
    }

    @Test
    void everyRouteAndMethodForEveryone() throws Exception {
        List<String> failures = new ArrayList<>();
        for (Row row : matrix()) {
            for (String who : WHO) {
                HttpResponse<String> r = as(who, row.method(), row.path(), row.body());
                String what = who + " " + row.method() + " " + row.path() + " " + (row.body() == null ? "" : row.body());
                if (r.statusCode() != row.expected(who)) {
                    failures.add(what + ": expected " + row.expected(who) + ", got " + r.statusCode() + " " + r.body());
                }
                if (!who.equals("admin")) {
                    checkNoForeignData(who, r, what, failures);
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    private static void checkNoForeignData(String who, HttpResponse<String> r, String what, List<String> failures) {
        String body = r.body();
        if (who.equals("anon") && r.statusCode() / 100 == 2 && !what.contains("/ping") && !what.contains(" /_")) {
            failures.add(what + ": anonymous got " + r.statusCode());
        }
        for (String forbidden : List.of("-secret", "other-text", who.equals("alice") ? "bob" : "alice")) {
            if (!who.equals("anon") && body.contains(forbidden) && r.statusCode() / 100 == 2) {
                failures.add(what + ": " + who + " saw " + forbidden + " in " + body);
            }
        }
    }

    @Test
    void theMatrixCoversEveryRouteAndMethod() {
        Set<String> covered = new HashSet<>();
        matrix().forEach(row -> covered.add(row.method() + " " + row.template()));
        Set<String> routes = new HashSet<>();
        Api api = Api.of(server.store, server.settings, dev.weft.security.DocumentPolicy.Lookup.NONE);
        Routes.of(Endpoints.of(api, new Metrics(), new StreamEndpoints(api, null, null, null, null),
                new AggregationEndpoints(api, null), new TokenEndpoints(null, api.json()))).all()
                .forEach(route -> route.methods().keySet().forEach(m -> routes.add(m + " " + route.template())));
        assertThat(covered).containsExactlyInAnyOrderElementsOf(routes);
    }
}
