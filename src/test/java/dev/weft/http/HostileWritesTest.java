package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Writes that try to get around an access rule: reading a hidden field by moving it, writing
 * outside the writeFilter by bulk PATCH, reaching protected fields through arrays, the RESTHeart
 * bulk and write-mode switches, and rules that cannot be compiled.
 */
class HostileWritesTest {
    TestServer server;

    @BeforeEach
    void start() throws Exception {
        server = new TestServer();
        AuthorizationMatrixTest.users(server);
        for (String coll : List.of("posts", "shop", "plain", "flags")) {
            server.createCollection("db", coll);
        }
        HttpResponse<String> rules = as("admin", "POST", "/weft/acl", """
                [{"_id":"posts","roles":["user"],"predicate":"path-prefix('/db/posts')",
                  "readFilter":{"owner":"@user._id"},"writeFilter":{"owner":"@user._id","status":"draft"},
                  "projectResponse":{"secret":0},"allowBulkPatch":true},
                 {"_id":"shop","roles":["user"],"predicate":"path-prefix('/db/shop')",
                  "protectedFields":["owner","items.price","meta.approved"],"allowBulkPatch":true},
                 {"_id":"plain","roles":["user"],"predicate":"path-prefix('/db/plain')"},
                 {"_id":"flags","roles":["user"],"predicate":"path-prefix('/db/flags')",
                  "mongo":{"allowBulkPatch":true,"allowBulkDelete":true,"allowWriteMode":true}}]""");
        assertThat(rules.statusCode()).as(rules.body()).isEqualTo(200);
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
    }

    private HttpResponse<String> as(String who, String method, String path, String body) throws Exception {
        return send(server, who, method, path, body);
    }

    private void created(String path, String body) throws Exception {
        HttpResponse<String> r = as("admin", "POST", path, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(body.startsWith("[") ? 200 : 201);
    }

    private static void assertStatus(HttpResponse<String> r, int status, String... inBody) {
        assertThat(r.statusCode()).as(r.request().method() + " " + r.request().uri() + ": " + r.body()).isEqualTo(status);
        for (String part : inBody) {
            assertThat(r.body()).contains(part);
        }
    }

    // --- A: a hidden field is not moved into sight ------------------------------------------

    @Test
    void aFieldHiddenByProjectResponseCannotBeRenamedIntoSight() throws Exception {
        created("/db/posts", "{\"_id\":\"n1\",\"owner\":\"alice\",\"status\":\"draft\",\"secret\":\"s3cret\"}");
        String rename = "{\"$rename\":{\"secret\":\"shown\"}}";
        assertStatus(as("alice", "PATCH", "/db/posts/n1", rename), 403, "secret", "projectResponse");
        assertStatus(as("alice", "PATCH", "/db/posts/*?filter=" + q("{\"_id\":\"n1\"}"), rename), 403, "secret");
        assertStatus(as("alice", "PATCH", "/db/posts/n1", "{\"$rename\":{\"secret\":\"a.b\"}}"), 403, "secret");
        assertThat(as("alice", "GET", "/db/posts/n1", null).body()).doesNotContain("s3cret");
        assertThat(as("admin", "GET", "/db/posts/n1", null).body()).contains("\"secret\":\"s3cret\"").doesNotContain("shown");
        assertStatus(as("alice", "PATCH", "/db/posts/n1", "{\"$rename\":{\"status\":\"state\"}}"), 403, "writeFilter");
        assertStatus(as("alice", "PATCH", "/db/posts/n1", "{\"$set\":{\"text\":\"t\"}}"), 200);
    }

    // --- C: bulk PATCH checks the writeFilter after the write -------------------------------

    @Test
    void bulkPatchCannotMoveADocumentOutOfTheWriteFilter() throws Exception {
        created("/db/posts", """
                [{"_id":"p1","owner":"alice","status":"draft"},
                 {"_id":"p2","owner":"alice","status":"draft","next":"published"}]""");
        String giveAway = "{\"$set\":{\"owner\":\"bob\"}}";
        assertStatus(as("alice", "PATCH", "/db/posts/p1", giveAway), 403, "writeFilter");
        assertStatus(as("alice", "PATCH", "/db/posts/*?filter=" + q("{\"_id\":\"p1\"}"), giveAway), 403, "writeFilter");
        assertThat(as("bob", "GET", "/db/posts", null).body()).isEqualTo("[]");
        // All or nothing: p2 alone would leave the filter, so p1 is not changed either.
        assertStatus(as("alice", "PATCH", "/db/posts/*?filter=" + q("{}"),
                "{\"$set\":{\"n\":1},\"$rename\":{\"next\":\"status\"}}"), 403, "writeFilter");
        String all = as("admin", "GET", "/db/posts?sort=" + q("{\"_id\":1}"), null).body();
        assertThat(all).contains("\"owner\":\"alice\"").doesNotContain("bob", "\"n\":1", "\"status\":\"published\"");
        assertStatus(as("alice", "PATCH", "/db/posts/*?filter=" + q("{}"), "{\"$set\":{\"n\":1}}"), 200, "\"modified\":2");
    }

    // --- D: protected fields through arrays --------------------------------------------------

    @Test
    void protectedFieldsCannotBeReachedThroughArrays() throws Exception {
        String stored = "{\"_id\":\"s1\",\"owner\":\"alice\",\"items\":[{\"price\":5,\"qty\":1}],\"meta\":{\"approved\":false}}";
        created("/db/shop", stored);
        for (String update : List.of("{\"$set\":{\"items.0.price\":1}}", "{\"$inc\":{\"items.0.price\":1}}",
                "{\"$mul\":{\"items.0.price\":0}}", "{\"$set\":{\"items.0\":{\"qty\":1,\"price\":0}}}",
                "{\"$set\":{\"items.$[].price\":0}}", "{\"$push\":{\"items\":{\"price\":0}}}")) {
            assertStatus(as("alice", "PATCH", "/db/shop/s1", update), 403, "items.price");
            assertStatus(as("alice", "PATCH", "/db/shop/*?filter=" + q("{\"_id\":\"s1\"}"), update), 403, "items.price");
        }
        assertStatus(as("alice", "PUT", "/db/shop/s1",
                "{\"owner\":\"alice\",\"items\":[{\"price\":0,\"qty\":1}],\"meta\":{\"approved\":false}}"), 403, "items.price");
        assertStatus(as("alice", "PUT", "/db/shop/s1",
                "{\"owner\":\"alice\",\"items\":[{\"qty\":1},{\"price\":5}],\"meta\":{\"approved\":false}}"), 403, "items.price");
        String approved = "{\"_id\":\"s2\",\"meta\":[{\"approved\":true}]}";
        assertStatus(as("alice", "POST", "/db/shop", approved), 403, "meta.approved");
        assertStatus(as("alice", "POST", "/db/shop", "[" + approved + "]"), 403, "meta.approved");
        HttpResponse<String> ndjson = server.post("/db/shop", approved + "\n", "Content-Type", "application/x-ndjson",
                "Authorization", AuthorizationMatrixTest.authorization("alice"));
        assertStatus(ndjson, 200, "\"inserted\":0", "\"failed\":1", "meta.approved");
        assertThat(as("admin", "GET", "/db/shop?filter=" + q("{\"meta.approved\":true}"), null).body()).isEqualTo("[]");
        assertThat(as("admin", "GET", "/db/shop/s1", null).body()).contains("\"items\":[{\"price\":5,\"qty\":1}]");
        // What does not touch a protected value still goes through.
        assertStatus(as("alice", "PATCH", "/db/shop/s1", "{\"$set\":{\"items.0.qty\":3}}"), 200);
        assertStatus(as("alice", "PUT", "/db/shop/s1",
                "{\"owner\":\"alice\",\"items\":[{\"price\":5,\"qty\":4}],\"meta\":{\"approved\":false},\"t\":1}"), 200);
        assertStatus(as("alice", "POST", "/db/shop", "{\"_id\":\"s3\",\"items\":[{\"qty\":1}]}"), 201);
    }

    // --- B: RESTHeart's bulk and write-mode switches -----------------------------------------

    @Test
    void bulkWritesAndWriteModesNeedTheRulesSwitches() throws Exception {
        created("/db/plain", "{\"_id\":\"x\",\"v\":1}");
        created("/db/flags", "{\"_id\":\"x\",\"v\":1}");
        String all = "/*?filter=" + q("{}");
        for (String coll : List.of("/db/plain", "/db/flags")) {
            int expected = coll.equals("/db/plain") ? 403 : 200;
            assertStatus(as("alice", "PATCH", coll + all, "{\"$set\":{\"v\":2}}"), expected);
            assertStatus(as("alice", "PUT", coll + "/y?wm=upsert", "{\"v\":1}"), expected == 403 ? 403 : 201);
            assertStatus(as("alice", "PATCH", coll + "/x?wm=update", "{\"$set\":{\"v\":3}}"), expected);
            assertStatus(as("alice", "POST", coll + "?wm=insert", "{\"_id\":\"z\"}"), expected == 403 ? 403 : 201);
            assertStatus(as("alice", "DELETE", coll + all, null), expected);
        }
        assertThat(as("alice", "PATCH", "/db/plain" + all, "{}").body()).contains("allowBulkPatch");
        assertThat(as("alice", "DELETE", "/db/plain" + all, null).body()).contains("allowBulkDelete");
        assertThat(as("alice", "PUT", "/db/plain/y?wm=upsert", "{}").body()).contains("allowWriteMode");
        assertThat(as("admin", "GET", "/db/plain/x", null).body()).contains("\"v\":1");
        assertStatus(as("alice", "POST", "/db/plain", "{\"_id\":\"w\"}"), 201);
        assertStatus(as("alice", "PATCH", "/db/plain/w", "{\"$set\":{\"v\":1}}"), 200);
        assertStatus(as("admin", "PATCH", "/db/plain" + all, "{\"$set\":{\"v\":9}}"), 200, "\"modified\":2");
        assertStatus(as("admin", "PUT", "/db/plain/q?wm=upsert", "{}"), 201);
    }

    @Test
    void ruleFieldsWeftDoesNotUnderstandAreRefusedWhenWritten() throws Exception {
        String head = "\"roles\":[\"user\"],\"predicate\":\"path-prefix('/db/x')\"";
        for (String rule : List.of(
                "{\"_id\":\"u1\"," + head + ",\"mongo\":{\"hiddenProps\":[\"secret\"]}}",
                "{\"_id\":\"u2\"," + head + ",\"readFiltre\":{\"owner\":\"@user._id\"}}",
                "{\"_id\":\"u3\"," + head + ",\"mongo\":{\"mergeRequest\":{\"n\":{\"_$gt\":1}}}}",
                "{\"_id\":\"u4\"," + head + ",\"writeFilter\":{\"a\":1},\"mongo\":{\"readFilter\":{\"a\":1}}}",
                "{\"_id\":\"u5\"," + head + ",\"allowBulkPatch\":\"true\"}")) {
            assertStatus(as("admin", "POST", "/weft/acl", rule), 400, "is invalid");
        }
        assertStatus(as("admin", "POST", "/weft/acl", """
                {"_id":"restheart","roles":["user"],"predicate":"path-prefix('/db/x') and method(GET)","priority":50,
                 "mongo":{"readFilter":{"$or":[{"status":"public"},{"author":"@user._id"}]},"projectResponse":{"log":0},
                 "writeFilter":{"author":"@user._id"},"mergeRequest":{"author":"@user._id"},"protectedProps":["author"],
                 "allowManagementRequests":false,"allowBulkPatch":false,"allowBulkDelete":false,"allowWriteMode":false}}"""),
                201);
        assertThat(as("admin", "GET", "/weft/acl?filter=" + q("{\"_id\":{\"$regex\":\"^u\"}}"), null).body()).isEqualTo("[]");
    }

    // --- E: no value makes a rule take the server down ----------------------------------------

    @Test
    void aRuleValueThatCannotCompileIs400OnEveryWritePathAndStoresNothing() throws Exception {
        String good = "{\"_id\":\"brk\",\"roles\":[\"user\"],\"predicate\":\"path-prefix('/db/none')\"}";
        created("/weft/acl", good);
        String withBadFields = "{\"_id\":\"brk2\",\"roles\":[\"user\"],\"predicate\":\"method(GET)\",\"protectedFields\":[{\"a\":1}]}";
        assertStatus(as("admin", "PATCH", "/weft/acl/brk", "{\"$set\":{\"protectedFields\":[{\"a\":1}]}}"), 400, "protectedFields");
        assertStatus(as("admin", "PATCH", "/weft/acl/brk", "{\"$set\":{\"priority\":1e300}}"), 400, "priority");
        assertStatus(as("admin", "PATCH", "/weft/acl/brk", "{\"$set\":{\"roles\":[1,null]}}"), 400, "roles");
        assertStatus(as("admin", "PATCH", "/weft/acl/*?filter=" + q("{\"_id\":\"brk\"}"),
                "{\"$set\":{\"protectedFields\":[null]}}"), 400, "protectedFields");
        assertStatus(as("admin", "POST", "/weft/acl", withBadFields), 400, "protectedFields");
        assertStatus(as("admin", "POST", "/weft/acl", "[" + withBadFields + "]"), 400, "protectedFields");
        assertStatus(as("admin", "PUT", "/weft/acl/brk",
                "{\"roles\":[\"user\"],\"predicate\":\"method(GET)\",\"priority\":1e300}"), 400, "priority");
        assertStatus(as("admin", "POST", "/weft/acl",
                "{\"_id\":\"brk3\",\"roles\":[1,null],\"predicate\":\"method(GET)\"}"), 400, "roles");
        HttpResponse<String> ndjson = server.post("/weft/acl", withBadFields + "\n", "Content-Type", "application/x-ndjson");
        assertStatus(ndjson, 200, "\"inserted\":0", "\"failed\":1", "protectedFields");
        HttpResponse<String> rules = as("admin", "GET", "/weft/acl?filter=" + q("{\"_id\":{\"$regex\":\"^brk\"}}"), null);
        assertThat(rules.body()).contains("\"_id\":\"brk\"").doesNotContain("brk2", "brk3", "1e300", "1.0E300", "\"a\":1");
        assertStatus(server.get("/ping", "Authorization", TestServer.ANONYMOUS), 200);
        assertStatus(as("alice", "GET", "/db/posts", null), 200);
    }

    @Test
    void aBrokenRuleStoredBelowTheApiDeniesOnlyItsRolesAndAdminCanRemoveIt() throws Exception {
        Namespace acl = new Namespace("weft", "acl");
        Json json = Json.standard();
        for (String rule : List.of(
                "{\"_id\":\"brk-user\",\"roles\":[\"user\"],\"predicate\":\"path-prefix('/db')\",\"priority\":1,"
                        + "\"protectedFields\":[{\"a\":1}]}",
                "{\"_id\":\"brk-other\",\"roles\":[\"auditor\"],\"predicate\":\"path-prefix('/db')\",\"priority\":1e300}",
                "{\"_id\":\"brk-roles\",\"roles\":[1,null],\"predicate\":\"path-prefix('/db')\"}")) {
            var written = server.store.write(new WriteOp.Replace(acl, json.parseObject(rule.getBytes(), "rule"),
                    WriteOp.WriteMode.UPSERT, Optional.empty()));
            assertThat(written.ok()).as(written.toString()).isTrue();
        }
        assertStatus(server.get("/ping", "Authorization", TestServer.ANONYMOUS), 200);
        assertStatus(as("admin", "GET", "/", null), 200);
        assertStatus(as("admin", "GET", "/weft/acl/brk-user", null), 200);
        assertStatus(as("alice", "GET", "/db/plain", null), 403, "brk-user", "invalid");
        assertStatus(as("admin", "DELETE", "/weft/acl/brk-user", null), 204);
        assertStatus(as("alice", "GET", "/db/plain", null), 200);
        assertStatus(as("admin", "DELETE", "/weft/acl/brk-other", null), 204);
        assertStatus(as("admin", "DELETE", "/weft/acl/brk-roles", null), 204);
    }
}
