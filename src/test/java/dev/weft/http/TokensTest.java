package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.authorization;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RESTHeart's {@code /tokens/{user}}: a user reads and revokes their own auth token; revocation holds on restart. */
class TokensTest {
    TestServer weft;

    @BeforeEach
    void start() throws Exception {
        weft = new TestServer();
        AuthorizationMatrixTest.users(weft);
    }

    @AfterEach
    void stop() throws Exception {
        weft.close();
    }

    HttpResponse<String> as(String authorization, String method, String path) throws Exception {
        return weft.send(method, path, null, "Authorization", authorization);
    }

    String tokenOf(String user) throws Exception {
        HttpResponse<String> r = as(authorization(user), "GET", "/tokens/" + user);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        String token = r.headers().firstValue("Auth-Token").orElseThrow();
        assertThat(r.body()).isEqualTo("{\"auth_token\":\"" + token + "\",\"auth_token_valid_until\":\""
                + r.headers().firstValue("Auth-Token-Valid-Until").orElseThrow() + "\"}");
        return token;
    }

    @Test
    void aUserReadsTheirOwnTokenOnlyAndItWorksAsAPassword() throws Exception {
        String token = tokenOf("alice");
        assertThat(as(TestServer.basic("alice", token), "GET", "/tokens/alice").statusCode()).isEqualTo(200);
        assertThat(as(authorization("alice"), "GET", "/tokens/bob").statusCode()).isEqualTo(403);
        assertThat(as(TestServer.ADMIN, "GET", "/tokens/alice").statusCode()).isEqualTo(403);
        HttpResponse<String> anonymous = as(TestServer.ANONYMOUS, "GET", "/tokens/alice");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("\"http status code\":401");
        assertThat(as(authorization("alice"), "PUT", "/tokens/alice").statusCode()).isEqualTo(405);
    }

    @Test
    void deleteRevokesEveryTokenOfTheUserAndTheNextLoginGetsANewOne() throws Exception {
        String old = tokenOf("alice");
        HttpResponse<String> revoked = as(TestServer.basic("alice", old), "DELETE", "/tokens/alice");
        assertThat(revoked.statusCode()).isEqualTo(204);
        assertThat(revoked.headers().firstValue("Auth-Token")).isEmpty();
        assertThat(as(TestServer.basic("alice", old), "GET", "/tokens/alice").statusCode()).isEqualTo(401);
        String fresh = tokenOf("alice");
        assertThat(fresh).isNotEqualTo(old);
        assertThat(as(TestServer.basic("alice", fresh), "GET", "/tokens/alice").statusCode()).isEqualTo(200);
        weft = weft.restartWith(); // the revocation is stored: another node, or this one restarted, refuses the old token
        assertThat(as(TestServer.basic("alice", old), "GET", "/tokens/alice").statusCode()).isEqualTo(401);
        assertThat(as(TestServer.basic("alice", fresh), "GET", "/tokens/alice").statusCode()).isEqualTo(200);
    }

    @Test
    void onlyAnAdminRevokesAnotherUsersTokens() throws Exception {
        String bobs = tokenOf("bob");
        assertThat(as(authorization("alice"), "DELETE", "/tokens/bob").statusCode()).isEqualTo(403);
        assertThat(as(TestServer.basic("bob", bobs), "GET", "/tokens/bob").statusCode()).isEqualTo(200);
        assertThat(as(TestServer.ADMIN, "DELETE", "/tokens/bob").statusCode()).isEqualTo(204);
        assertThat(as(TestServer.basic("bob", bobs), "GET", "/tokens/bob").statusCode()).isEqualTo(401);
        assertThat(as(authorization("bob"), "GET", "/tokens/bob").statusCode()).isEqualTo(200);
        // a rule opening every path does not open another user's token
        weft.post("/weft/acl", "{\"_id\":\"all\",\"roles\":[\"user\"],\"priority\":1,\"predicate\":\"path-prefix('/')\"}");
        assertThat(as(authorization("alice"), "GET", "/tokens/bob").statusCode()).isEqualTo(403);
        assertThat(as(authorization("alice"), "DELETE", "/tokens/bob").statusCode()).isEqualTo(403);
    }
}
