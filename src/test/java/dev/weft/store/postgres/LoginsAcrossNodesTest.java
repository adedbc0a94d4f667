package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A catalog change on one node does not make the other forget its logins (its catalog reload
 * gives new versions only to the collections that changed), while a password changed on one node
 * ends the old credential on the other as soon as the change is announced.
 */
class LoginsAcrossNodesTest {
    private static final Pattern HASHES = Pattern.compile("\nweft_password_hashes_total (\\d+)\n");

    private static long hashes(WeftNode node) throws Exception {
        Matcher m = HASHES.matcher(node.get("/metrics").body());
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }

    @Test
    void aCatalogChangeOnOneNodeKeepsTheOthersLoginsAndAPasswordChangeEndsThem() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema), "--auth-cache-ttl-ms", "3600000");
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema), "--auth-cache-ttl-ms", "3600000")) {
            assertThat(b.get("/").statusCode()).isEqualTo(200);
            long before = hashes(b);

            assertThat(a.put("/ddl", null).statusCode()).isEqualTo(201);
            assertThat(a.put("/ddl/c", null).statusCode()).isEqualTo(201);
            assertThat(a.put("/ddl/c/_indexes/byA", "{\"keys\":{\"a\":1}}").statusCode()).isEqualTo(201);
            long deadline = System.nanoTime() + 5_000_000_000L;
            // the database and the collection are announced apart: wait for the later one
            while (!b.get("/ddl").body().contains("\"c\"") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(b.get("/ddl").body()).contains("\"c\"");
            assertThat(hashes(b)).as("hashes on b after catalog changes on a").isEqualTo(before);

            HttpResponse<String> changed = a.send("PATCH", "/weft/users/admin", "{\"password\":\"another-Admin-password-2\"}");
            assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
            int status;
            deadline = System.nanoTime() + 5_000_000_000L;
            do {
                status = b.get("/").statusCode();
            } while (status != 401 && System.nanoTime() < deadline);
            assertThat(status).as("the old password on the other node").isEqualTo(401);
            assertThat(b.send("GET", "/", null, WeftNode.admin("another-Admin-password-2")).statusCode()).isEqualTo(200);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }
}
