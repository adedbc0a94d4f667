package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Behind a load balancer a client's next request may reach any node: an auth token works on all of them. */
class AuthTokensAcrossNodesTest {

    @Test
    void aTokenIssuedByOneNodeIsAcceptedByTheOtherUntilThePasswordChanges() throws Exception {
        String schema = PgTesting.freshSchema();
        try (WeftNode a = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema));
             WeftNode b = new WeftNode(Duration.ofSeconds(30), "--store", PgTesting.url(schema))) {
            HttpResponse<String> login = a.get("/");
            assertThat(login.statusCode()).as(login.body()).isEqualTo(200);
            String token = login.headers().firstValue("Auth-Token").orElseThrow();

            HttpResponse<String> onB = b.send("GET", "/", null, WeftNode.admin(token));
            assertThat(onB.statusCode()).as(onB.body()).isEqualTo(200);
            assertThat(onB.headers().firstValue("Auth-Token")).as("b announces the token it was shown").contains(token);
            assertThat(b.send("GET", "/", null, WeftNode.admin(token + "x")).statusCode()).isEqualTo(401);

            HttpResponse<String> changed = a.send("PATCH", "/weft/users/admin", "{\"password\":\"another-Admin-password-2\"}");
            assertThat(changed.statusCode()).as(changed.body()).isEqualTo(200);
            long deadline = System.nanoTime() + 5_000_000_000L;
            int status;
            do {
                status = b.send("GET", "/", null, WeftNode.admin(token)).statusCode();
            } while (status != 401 && System.nanoTime() < deadline);
            assertThat(status).as("the old password's token on the other node").isEqualTo(401);
            assertThat(a.send("GET", "/", null, WeftNode.admin(token)).statusCode()).isEqualTo(401);
        } finally {
            PgTesting.dropSchema(schema);
        }
    }
}
