package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A remembered login survives catalog changes (databases, collections, indexes): only a change
 * to a user invalidates it. Hashes are observed through {@code weft_password_hashes_total}.
 */
class LoginsAcrossCatalogChangesTest {
    private static final Pattern HASHES = Pattern.compile("\nweft_password_hashes_total (\\d+)\n");
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        // A long credential lifetime: a slow run must not reach the background re-verification
        // of the last quarter, which would hash without any catalog change.
        weft = new TestServer("--auth-cache-ttl-ms", "3600000");
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static long hashes() throws Exception {
        Matcher m = HASHES.matcher(weft.get("/metrics").body());
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }

    /**
     * The hash count once bob's and the admin's logins are remembered for good: on PostgreSQL the
     * event of bob's creation is published (and invalidates the users collection once more) a
     * little after its commit, so a login remembered before that is hashed once again.
     */
    static long settledHashes(String bob) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        long seen = hashes();
        while (true) {
            assertThat(weft.get("/", "Authorization", bob).statusCode()).isEqualTo(403);
            long now = hashes();
            if (now == seen || System.nanoTime() > deadline) {
                return now;
            }
            seen = now;
            Thread.sleep(100);
        }
    }

    @Test
    void catalogChangesReHashNoLoginWhileAPasswordChangeEndsTheOldOneAtOnce() throws Exception {
        assertThat(weft.post("/weft/users", "{\"_id\":\"bob\",\"password\":\"bob-Password-12\",\"roles\":[\"user\"]}")
                .statusCode()).isEqualTo(201);
        String bob = TestServer.basic("bob", "bob-Password-12");
        assertThat(weft.get("/", "Authorization", bob).statusCode()).isEqualTo(403); // known, no rule: remembered
        long before = settledHashes(bob);

        assertThat(weft.put("/ddl", null).statusCode()).isEqualTo(201);
        assertThat(weft.put("/ddl/c", null).statusCode()).isEqualTo(201);
        assertThat(weft.put("/ddl/c", "{\"x\":1}").statusCode()).isEqualTo(200);
        assertThat(weft.put("/ddl/c/_indexes/byA", "{\"keys\":{\"a\":1}}").statusCode()).isEqualTo(201);
        assertThat(weft.put("/ddl/d", null).statusCode()).isEqualTo(201);
        String dEtag = weft.put("/ddl/d", "{\"y\":1}").headers().firstValue("ETag").orElseThrow();
        assertThat(weft.delete("/ddl/d", "If-Match", dEtag).statusCode()).isEqualTo(204);
        assertThat(weft.get("/", "Authorization", bob).statusCode()).isEqualTo(403);
        assertThat(weft.get("/").statusCode()).isEqualTo(200);
        assertThat(hashes()).as("hashes after seven catalog changes, by the admin, and bob's next request").isEqualTo(before);

        HttpResponse<String> changed = weft.patch("/weft/users/bob", "{\"password\":\"bob-Password-34\"}");
        assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
        assertThat(weft.get("/", "Authorization", bob).statusCode()).isEqualTo(401);
        assertThat(weft.get("/", "Authorization", TestServer.basic("bob", "bob-Password-34")).statusCode()).isEqualTo(403);
    }
}
