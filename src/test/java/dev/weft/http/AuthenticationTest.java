package dev.weft.http;

import static dev.weft.http.TestServer.basic;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Basic auth, auth tokens, the credential cache and the login guard, through the API. */
class AuthenticationTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer("--login-guard-failures", "1000");
        weft.createCollection("db", "things");
        // Authorization is on: let role user read /db/things (docs/security.md).
        assertThat(weft.post("/weft/acl", "{\"_id\":\"things\",\"roles\":[\"user\"],"
                + "\"predicate\":\"path('/db/things') and method(GET)\"}").statusCode()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    static void createUser(TestServer server, String name, String password) throws Exception {
        HttpResponse<String> r = server.post("/weft/users", "{\"_id\":\"" + name + "\",\"password\":\"" + password
                + "\",\"roles\":[\"user\"]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    /** A new user's first read of /db/things, with its password. */
    static HttpResponse<String> newUserReads(String name, String password) throws Exception {
        createUser(weft, name, password);
        HttpResponse<String> r = weft.get("/db/things", "Authorization", basic(name, password));
        assertThat(r.statusCode()).isEqualTo(200);
        return r;
    }

    @Test
    void basicAuthGoodBadAndUnknownUser() throws Exception {
        createUser(weft, "bob", "bob-Password-1");
        assertThat(weft.get("/db/things", "Authorization", basic("bob", "bob-Password-1")).statusCode()).isEqualTo(200);

        for (String credentials : new String[] {basic("bob", "bob-Password-2"), basic("nobody", "bob-Password-1"),
                basic("bob", ""), "Basic not-base64!", "Basic " + java.util.Base64.getEncoder().encodeToString("nocolon".getBytes()),
                "Digest x", "Bearer a.b.c"}) {
            HttpResponse<String> r = weft.get("/db/things", "Authorization", credentials);
            assertThat(r.statusCode()).as(credentials).isEqualTo(401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).contains("Basic realm=\"Weft\"");
            assertThat(r.body()).contains("\"http status code\":401");
        }
    }

    /**
     * Base64 is case-sensitive: a credential that differs from an accepted one only in case is
     * another credential. Sent on the same keep-alive connection, it must not be taken for the
     * first (Jetty's per-connection header cache matches values case-insensitively).
     */
    @Test
    void aCaseVariantOfAnAcceptedCredentialIsRefusedOnTheSameConnection() throws Exception {
        String accepted = TestServer.ADMIN.substring("Basic ".length());
        String variant = accepted.chars()
                .map(c -> Character.isUpperCase(c) ? Character.toLowerCase(c) : Character.toUpperCase(c))
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        try (Socket socket = new Socket("127.0.0.1", weft.server.port())) {
            socket.setSoTimeout(10_000);
            assertThat(statusOnConnection(socket, accepted)).isEqualTo(200);
            assertThat(statusOnConnection(socket, accepted)).isEqualTo(200);
            assertThat(statusOnConnection(socket, variant)).isEqualTo(401);
        }
    }

    /** Sends GET /db/things with this Basic credential on the connection and reads the whole answer. */
    private static int statusOnConnection(Socket socket, String credential) throws IOException {
        socket.getOutputStream().write(("GET /db/things HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic "
                + credential + "\r\nNo-Auth-Challenge: true\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            assertThat(b).as("connection closed mid-answer").isNotNegative();
            head.write(b);
        }
        String headers = head.toString(StandardCharsets.US_ASCII);
        int length = Integer.parseInt(headers.lines().filter(l -> l.regionMatches(true, 0, "Content-Length:", 0, 15))
                .findFirst().orElseThrow().substring(15).trim());
        in.readNBytes(length);
        return Integer.parseInt(headers.substring(9, 12));
    }

    @Test
    void noAuthChallengeSuppressesWwwAuthenticate() throws Exception {
        HttpResponse<String> r = weft.get("/db/things", "Authorization", basic("admin", "wrong-Password-1"),
                "No-Auth-Challenge", "true");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate")).isEmpty();
    }

    @Test
    void anonymousRequestsReachTheAuthorizeStage() throws Exception {
        HttpResponse<String> r = weft.get("/ping", "Authorization", TestServer.ANONYMOUS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Auth-Token")).isEmpty();
    }

    @Test
    void authTokenIsIssuedAndAcceptedAsThePassword() throws Exception {
        createUser(weft, "tina", "tina-Password-1");
        HttpResponse<String> login = weft.get("/ping", "Authorization", basic("tina", "tina-Password-1"));
        String token = login.headers().firstValue("Auth-Token").orElseThrow();
        Instant until = Instant.parse(login.headers().firstValue("Auth-Token-Valid-Until").orElseThrow());
        assertThat(until).isAfter(Instant.now().plusSeconds(60));
        assertThat(token).hasSizeGreaterThan(40);

        HttpResponse<String> withToken = weft.get("/db/things", "Authorization", basic("tina", token));
        assertThat(withToken.statusCode()).isEqualTo(200);
        assertThat(withToken.headers().firstValue("Auth-Token")).contains(token);
        assertThat(weft.get("/db/things", "Authorization", basic("bob", token)).statusCode()).isEqualTo(401);
    }

    @Test
    void aRepeatedCredentialIsAnsweredWithItsTokenHoweverItIsSpelled() throws Exception {
        String fred = basic("fred", "fred-Password-1");
        HttpResponse<String> first = newUserReads("fred", "fred-Password-1");
        String token = first.headers().firstValue("Auth-Token").orElseThrow();
        String until = first.headers().firstValue("Auth-Token-Valid-Until").orElseThrow();
        // the same credential again (a cached read, answered from memory), with another scheme case
        // and spacing, and without its Base64 padding (a spelling of its own, verified once)
        assertThat(fred).endsWith("=");
        for (String spelled : new String[] {fred, fred, "basic   " + fred.substring(6), fred.substring(0, fred.length() - 1)}) {
            HttpResponse<String> r = weft.get("/db/things", "Authorization", spelled);
            assertThat(r.statusCode()).as(spelled).isEqualTo(200);
            assertThat(r.headers().firstValue("Auth-Token")).as(spelled).contains(token);
            assertThat(r.headers().firstValue("Auth-Token-Valid-Until")).as(spelled).contains(until);
        }
        assertThat(weft.get("/db/things", "Authorization", basic("fred", "fred-Password-2")).statusCode()).isEqualTo(401);

        // a known credential on a read the result cache misses: memory declines, the stages answer, one token
        assertThat(weft.post("/db/things", "{\"n\":1}").statusCode()).isEqualTo(201);
        HttpResponse<String> missed = weft.get("/db/things", "Authorization", fred);
        assertThat(missed.statusCode()).isEqualTo(200);
        assertThat(missed.headers().allValues("Auth-Token")).containsExactly(token);
        assertThat(missed.headers().allValues("Auth-Token-Valid-Until")).containsExactly(until);
    }

    @Test
    void aCredentialInSteadyUseOutlivesItsCacheEntries() throws Exception {
        try (TestServer brief = new TestServer("--auth-cache-ttl-ms", "300")) {
            brief.createCollection("db", "things");
            createUser(brief, "gina", "gina-Password-1");
            assertThat(brief.post("/weft/acl", "{\"_id\":\"things\",\"roles\":[\"user\"],"
                    + "\"predicate\":\"path('/db/things') and method(GET)\"}").statusCode()).isEqualTo(201);
            String gina = basic("gina", "gina-Password-1");
            long until = System.nanoTime() + 1_000_000_000L; // three lifetimes, renewed in the background
            while (System.nanoTime() - until < 0) {
                HttpResponse<String> r = brief.get("/db/things", "Authorization", gina);
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.headers().allValues("Auth-Token")).hasSize(1);
                Thread.sleep(20);
            }
            assertThat(brief.patch("/weft/users/gina", "{\"password\":\"gina-Password-2\"}").statusCode()).isEqualTo(200);
            assertThat(brief.get("/db/things", "Authorization", gina).statusCode()).isEqualTo(401);
        }
    }

    @Test
    void changingAPasswordRefusesTheOldOneAndItsTokenAtOnce() throws Exception {
        String old = basic("carol", "carol-Password-1");
        HttpResponse<String> first = newUserReads("carol", "carol-Password-1");
        String token = first.headers().firstValue("Auth-Token").orElseThrow();
        assertThat(weft.get("/db/things", "Authorization", old).statusCode()).isEqualTo(200); // from the cache

        assertThat(weft.patch("/weft/users/carol", "{\"password\":\"carol-Password-2\"}").statusCode()).isEqualTo(200);
        assertThat(weft.get("/db/things", "Authorization", old).statusCode()).isEqualTo(401);
        assertThat(weft.get("/db/things", "Authorization", basic("carol", token)).statusCode()).isEqualTo(401);
        assertThat(weft.get("/db/things", "Authorization", basic("carol", "carol-Password-2")).statusCode()).isEqualTo(200);
    }

    @Test
    void deletingAUserRefusesItsCredentialsAtOnce() throws Exception {
        createUser(weft, "dave", "dave-Password-1");
        String dave = basic("dave", "dave-Password-1");
        assertThat(weft.get("/db/things", "Authorization", dave).statusCode()).isEqualTo(200);
        assertThat(weft.delete("/weft/users/dave").statusCode()).isEqualTo(204);
        assertThat(weft.get("/db/things", "Authorization", dave).statusCode()).isEqualTo(401);
    }

    @Test
    void bruteForceGuardAnswers429ThenRecovers() throws Exception {
        try (TestServer guarded = new TestServer("--login-guard-failures", "3", "--login-guard-window-ms", "1500",
                "--auth-token-ttl-ms", "1000")) {
            createUser(guarded, "eve", "eve-Password-1");
            HttpResponse<String> login = guarded.get("/ping", "Authorization", basic("eve", "eve-Password-1"));
            String token = login.headers().firstValue("Auth-Token").orElseThrow();
            for (int i = 0; i < 3; i++) {
                assertThat(guarded.get("/ping", "Authorization", basic("eve", "guess-" + i + "-Password")).statusCode()).isEqualTo(401);
            }
            HttpResponse<String> refused = guarded.get("/ping", "Authorization", basic("eve", "eve-Password-1"));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 2L);
            assertThat(guarded.get("/ping", "Authorization", TestServer.ANONYMOUS).statusCode()).isEqualTo(200);

            Thread.sleep(1600);
            assertThat(guarded.get("/ping", "Authorization", basic("eve", "eve-Password-1")).statusCode()).isEqualTo(200);
            assertThat(guarded.get("/ping", "Authorization", basic("eve", token)).statusCode())
                    .as("the token outlived its ttl").isEqualTo(401);
        }
    }
}
