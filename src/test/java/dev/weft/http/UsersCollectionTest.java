package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.store.Namespace;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The users collection through the API: passwords hashed on every write path, never read back. */
class UsersCollectionTest {
    static TestServer weft;
    static final Json JSON = Json.standard();
    static final Namespace USERS = new Namespace("weft", "users");
    static final String USERS_PATH = "/weft/users";

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    /** The password field exactly as stored, read from the store itself. */
    static String storedPassword(String user) {
        byte[] doc = weft.store.get(USERS, Json.NODES.stringNode(user)).orElseThrow().json();
        JsonNode password = JSON.parse(doc, "user").get("password");
        return password == null ? "" : password.asString();
    }

    static void assertHashed(String user, String password) throws Exception {
        assertThat(storedPassword(user)).startsWith("$2").doesNotContain(password);
        assertThat(weft.get("/ping", "Authorization", TestServer.basic(user, password)).statusCode()).isEqualTo(200);
    }

    @Test
    void firstStartMadeAnAdminWithAHashedPassword() throws Exception {
        assertHashed("admin", TestServer.ADMIN_PASSWORD);
        JsonNode admin = JSON.parse(weft.get(USERS_PATH + "/admin").body(), "admin");
        assertThat(admin.get("roles").get(0).asString()).isEqualTo("admin");
        assertThat(admin.has("password")).isFalse();
    }

    @Test
    void everyWritePathHashes() throws Exception {
        assertThat(weft.post(USERS_PATH, "{\"_id\":\"post1\",\"password\":\"post1-Password\",\"roles\":[\"user\"]}").statusCode()).isEqualTo(201);
        assertHashed("post1", "post1-Password");

        HttpResponse<String> array = weft.post(USERS_PATH, "[{\"_id\":\"arr1\",\"password\":\"arr1-Password-x\"},"
                + "{\"_id\":\"arr2\",\"password\":\"arr2-Password-x\"}]");
        assertThat(array.statusCode()).as(array.body()).isEqualTo(200);
        assertHashed("arr1", "arr1-Password-x");
        assertHashed("arr2", "arr2-Password-x");

        HttpResponse<String> ndjson = weft.post(USERS_PATH, "{\"_id\":\"nd1\",\"password\":\"nd1-Password-x\"}\n"
                + "{\"_id\":\"nd2\",\"password\":\"weak\"}\n", "Content-Type", CollectionEndpoints.NDJSON);
        assertThat(JSON.parse(ndjson.body(), "answer").get("inserted").asInt()).isEqualTo(1);
        assertThat(ndjson.body()).contains("too weak");
        assertHashed("nd1", "nd1-Password-x");

        assertThat(weft.put(USERS_PATH + "/put1?wm=upsert", "{\"password\":\"put1-Password-x\"}").statusCode()).isEqualTo(201);
        assertHashed("put1", "put1-Password-x");

        assertThat(weft.patch(USERS_PATH + "/put1", "{\"password\":\"plain-Patch-pw\"}").statusCode()).isEqualTo(200);
        assertHashed("put1", "plain-Patch-pw");
        assertThat(weft.patch(USERS_PATH + "/put1", "{\"$set\":{\"password\":\"set-Patch-pw1\"}}").statusCode()).isEqualTo(200);
        assertHashed("put1", "set-Patch-pw1");

        HttpResponse<String> bulk = weft.patch(USERS_PATH + "/*?filter=" + q("{\"_id\":{\"$in\":[\"arr1\",\"arr2\"]}}"),
                "{\"$set\":{\"password\":\"bulk-Patch-pw1\"}}");
        assertThat(bulk.statusCode()).as(bulk.body()).isEqualTo(200);
        assertHashed("arr1", "bulk-Patch-pw1");
        assertHashed("arr2", "bulk-Patch-pw1");
    }

    @Test
    void weakOrMalformedPasswordsAndUsersAre400() throws Exception {
        assertThat(weft.post(USERS_PATH, "{\"_id\":\"weak\",\"password\":\"short\"}").statusCode()).isEqualTo(400);
        assertThat(weft.post(USERS_PATH, "{\"_id\":\"weak\",\"password\":\"alllowercaseletters\"}").body()).contains("too weak");
        assertThat(weft.post(USERS_PATH, "{\"_id\":\"weak\",\"password\":12345678901234}").statusCode()).isEqualTo(400);
        assertThat(weft.post(USERS_PATH, "{\"password\":\"no-Id-password\"}").body()).contains("_id is its name");
        assertThat(weft.post(USERS_PATH, "{\"_id\":\"r\",\"roles\":\"admin\"}").statusCode()).isEqualTo(400);
        weft.post(USERS_PATH, "{\"_id\":\"ops\",\"password\":\"ops-Password-1\"}");
        for (String update : new String[] {
                "{\"$unset\":{\"password\":\"\"}}", "{\"$rename\":{\"other\":\"password\"}}",
                "{\"$push\":{\"password\":1}}", "{\"$set\":{\"password.x\":\"ops-Password-2\"}}",
                "{\"password.x\":1}", "{\"$set\":{\"password\":\"weak\"}}"}) {
            assertThat(weft.patch(USERS_PATH + "/ops", update).statusCode()).as(update).isEqualTo(400);
        }
        assertHashed("ops", "ops-Password-1");
        assertThat(weft.get(USERS_PATH + "/weak").statusCode()).isEqualTo(404);
    }

    @Test
    void noReadShowsThePassword() throws Exception {
        weft.post(USERS_PATH, "{\"_id\":\"reader\",\"password\":\"reader-Password\",\"roles\":[\"user\"],\"email\":\"r@x\"}");
        assertThat(weft.get(USERS_PATH + "/reader").body()).doesNotContain("password").contains("r@x");
        String list = weft.get(USERS_PATH).body();
        assertThat(list).doesNotContain("password").doesNotContain("$2").contains("reader");
        String export = weft.client.send(weft.request(USERS_PATH).header("Accept", CollectionEndpoints.NDJSON).build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body();
        assertThat(export).doesNotContain("password").contains("reader");
        assertThat(weft.get(USERS_PATH + "?keys=" + q("{\"email\":1}")).body()).doesNotContain("password").contains("r@x");
        assertThat(weft.get(USERS_PATH + "?keys=" + q("{\"password\":1}")).statusCode()).isEqualTo(400);
        assertThat(weft.get(USERS_PATH + "/reader?keys=" + q("{\"password\":1}")).statusCode()).isEqualTo(400);
        assertThat(weft.get(USERS_PATH + "?keys=" + q("{\"password\":0}")).statusCode()).isEqualTo(400);
    }

    /**
     * A read by id is planned before it runs: its {@code keys} are refused the same way whether
     * the document exists or not, so the answer to a bad request says nothing about the data.
     */
    @Test
    void keysOnThePasswordAre400ForMissingDocumentsToo() throws Exception {
        weft.post(USERS_PATH, "{\"_id\":\"present\",\"password\":\"present-Password\",\"roles\":[\"user\"]}");
        for (String id : new String[] {"present", "absent"}) {
            HttpResponse<String> r = weft.get(USERS_PATH + "/" + id + "?keys=" + q("{\"password\":1}"));
            assertThat(r.statusCode()).as(id).isEqualTo(400);
            assertThat(JSON.parse(r.body(), "error").get("message").asString()).as(id).contains("password");
        }
        assertThat(weft.get(USERS_PATH + "/absent").statusCode()).isEqualTo(404);
    }

    @Test
    void queriesOnThePasswordAre400() throws Exception {
        String[] filters = {"{\"password\":{\"$regex\":\"^\\\\$2\"}}", "{\"password\":{\"$exists\":true}}",
                "{\"$or\":[{\"_id\":\"x\"},{\"password.0\":\"$\"}]}", "{\"$and\":[{\"password\":{\"$gt\":\"$2a\"}}]}"};
        for (String f : filters) {
            assertThat(weft.get(USERS_PATH + "?filter=" + q(f)).statusCode()).as(f).isEqualTo(400);
            assertThat(weft.get(USERS_PATH + "/_size?filter=" + q(f)).statusCode()).as(f).isEqualTo(400);
            assertThat(weft.delete(USERS_PATH + "/*?filter=" + q(f)).statusCode()).as(f).isEqualTo(400);
        }
        assertThat(weft.get(USERS_PATH + "?sort=" + q("{\"password\":1}")).statusCode()).isEqualTo(400);
        assertThat(weft.get(USERS_PATH + "?sort=-password").statusCode()).isEqualTo(400);
        assertThat(weft.put(USERS_PATH + "/_indexes/pw", "{\"keys\":{\"password\":1}}").statusCode()).isEqualTo(400);
        assertThat(weft.get(USERS_PATH + "?filter=" + q("{\"roles\":\"admin\"}")).statusCode()).isEqualTo(200);
    }

    @Test
    void otherCollectionsKeepTheirPasswordFields() throws Exception {
        weft.createCollection("db", "accounts");
        weft.post("/db/accounts", "{\"_id\":1,\"password\":\"x\"}");
        assertThat(weft.get("/db/accounts/1?id_type=NUMBER").body()).contains("\"password\":\"x\"");
        assertThat(weft.get("/db/accounts?filter=" + q("{\"password\":\"x\"}")).body()).contains("\"_id\":1");
    }
}
