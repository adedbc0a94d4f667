package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.weft.core.Settings;
import dev.weft.security.Security;
import dev.weft.store.Store;
import dev.weft.store.Stores;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.RSAPrivateKey;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Bearer JWTs: what is accepted, and every forgery that must get 401. */
class JwtTest {
    static final String SECRET = "a-test-secret-of-at-least-32-bytes-long";
    static final String ISSUER = "https://issuer.example";
    static final String AUDIENCE = "weft-api";
    static KeyPair rsa;
    static String rsaPem;
    static Path pemFile;
    static TestServer hs;
    static TestServer rs;

    @BeforeAll
    static void start() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        rsa = generator.generateKeyPair();
        rsaPem = "-----BEGIN PUBLIC KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(rsa.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
        pemFile = Files.createTempFile("weft-jwt", ".pem");
        Files.writeString(pemFile, rsaPem);
        hs = new TestServer("--jwt-algorithm", "HS256", "--jwt-secret", SECRET, "--jwt-issuer", ISSUER,
                "--jwt-audience", AUDIENCE, "--jwt-clock-skew-s", "5", "--login-guard-failures", "0");
        rs = new TestServer("--jwt-algorithm", "RS256", "--jwt-key-file", pemFile.toString(), "--jwt-issuer", ISSUER,
                "--jwt-audience", AUDIENCE, "--jwt-clock-skew-s", "5", "--login-guard-failures", "0");
    }

    @AfterAll
    static void stop() throws Exception {
        hs.close();
        rs.close();
        Files.deleteIfExists(pemFile);
    }

    static JWTClaimsSet.Builder claims() {
        long now = System.currentTimeMillis();
        return new JWTClaimsSet.Builder().subject("jwt-user").issuer(ISSUER).audience(AUDIENCE)
                .expirationTime(new Date(now + 60_000)).notBeforeTime(new Date(now - 1_000))
                .claim("roles", List.of("user", "reader"));
    }

    static String sign(JWSAlgorithm alg, JWSSigner signer, JWTClaimsSet claims) throws Exception {
        SignedJWT jwt = new SignedJWT(new JWSHeader(alg), claims);
        jwt.sign(signer);
        return jwt.serialize();
    }

    static String hs256(JWTClaimsSet claims) throws Exception {
        return sign(JWSAlgorithm.HS256, new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)), claims);
    }

    static String rs256(JWTClaimsSet claims) throws Exception {
        return sign(JWSAlgorithm.RS256, new RSASSASigner((RSAPrivateKey) rsa.getPrivate()), claims);
    }

    static int status(TestServer server, String token) throws Exception {
        HttpResponse<String> r = server.get("/ping", "Authorization", "Bearer " + token);
        if (r.statusCode() == 401) {
            assertThat(r.body()).contains("invalid bearer token");
        }
        return r.statusCode();
    }

    @Test
    void validTokensAreAccepted() throws Exception {
        assertThat(status(hs, hs256(claims().build()))).isEqualTo(200);
        assertThat(status(rs, rs256(claims().build()))).isEqualTo(200);
    }

    @Test
    void forgedExpiredEarlyAndMisaddressedTokensAre401() throws Exception {
        long now = System.currentTimeMillis();
        String other = "another-secret-of-at-least-32-bytes-long!";
        assertThat(status(hs, sign(JWSAlgorithm.HS256, new MACSigner(other.getBytes(StandardCharsets.UTF_8)), claims().build())))
                .as("forged signature").isEqualTo(401);
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        assertThat(status(rs, sign(JWSAlgorithm.RS256, new RSASSASigner(generator.generateKeyPair().getPrivate()), claims().build())))
                .as("signed by another RSA key").isEqualTo(401);
        String valid = hs256(claims().build());
        String tampered = valid.substring(0, valid.indexOf('.') + 1)
                + Base64.getUrlEncoder().withoutPadding().encodeToString(claims().subject("admin").build().toString().getBytes())
                + valid.substring(valid.lastIndexOf('.'));
        assertThat(status(hs, tampered)).as("payload changed after signing").isEqualTo(401);
        assertThat(status(hs, hs256(claims().expirationTime(new Date(now - 60_000)).build()))).as("expired").isEqualTo(401);
        assertThat(status(hs, hs256(claims().notBeforeTime(new Date(now + 60_000)).build()))).as("not yet valid").isEqualTo(401);
        assertThat(status(hs, hs256(claims().issuer("https://evil.example").build()))).as("wrong issuer").isEqualTo(401);
        assertThat(status(hs, hs256(claims().audience("other-api").build()))).as("wrong audience").isEqualTo(401);
        assertThat(status(hs, hs256(claims().expirationTime(null).build()))).as("no exp").isEqualTo(401);
        assertThat(status(hs, "not.a.jwt")).isEqualTo(401);
    }

    /** A validly signed HS256 token whose claims are exactly {@code claimsJson}. */
    static String hs256Raw(String claimsJson) throws Exception {
        com.nimbusds.jose.JWSObject jws = new com.nimbusds.jose.JWSObject(new JWSHeader(JWSAlgorithm.HS256),
                new com.nimbusds.jose.Payload(claimsJson));
        jws.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        return jws.serialize();
    }

    @Test
    void aSubjectThatNamesNobodyIs401() throws Exception {
        long exp = System.currentTimeMillis() / 1000 + 60;
        String rest = ",\"iss\":\"" + ISSUER + "\",\"aud\":\"" + AUDIENCE + "\",\"exp\":" + exp + ",\"roles\":[\"user\"]}";
        assertThat(status(hs, hs256Raw("{\"sub\":\"jwt-user\"" + rest))).as("control").isEqualTo(200);
        for (String sub : List.of("\"sub\":null", "\"sub\":\"\"", "\"sub\":\"  \"", "\"sub\":42", "\"sub\":[\"a\"]",
                "\"nosub\":1")) {
            HttpResponse<String> r = hs.get("/db/c", "Authorization", "Bearer " + hs256Raw("{" + sub + rest));
            assertThat(r.statusCode()).as(sub + ": " + r.body()).isEqualTo(401);
            assertThat(r.body()).as(sub).contains("invalid bearer token");
        }
    }

    @Test
    void algNoneIsRefused() throws Exception {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String body = b64.encodeToString(claims().build().toString().getBytes(StandardCharsets.UTF_8));
        for (String header : new String[] {"{\"alg\":\"none\"}", "{\"alg\":\"None\",\"typ\":\"JWT\"}"}) {
            String token = b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "." + body + ".";
            assertThat(status(hs, token)).as(header).isEqualTo(401);
            assertThat(status(rs, token)).as(header).isEqualTo(401);
        }
    }

    @Test
    void algorithmConfusionIsRefused() throws Exception {
        // The classic attack: an HS256 token whose HMAC key is the server's RSA public key.
        String confused = sign(JWSAlgorithm.HS256, new MACSigner(rsaPem.getBytes(StandardCharsets.UTF_8)), claims().build());
        assertThat(status(rs, confused)).isEqualTo(401);
        String confusedDer = sign(JWSAlgorithm.HS256, new MACSigner(rsa.getPublic().getEncoded()), claims().build());
        assertThat(status(rs, confusedDer)).isEqualTo(401);
        assertThat(status(hs, rs256(claims().build()))).as("RS256 token at an HS256 server").isEqualTo(401);
    }

    @Test
    void aShortSecretOrMissingKeyStopsTheStart() throws Exception {
        Path data = Files.createTempDirectory("weft-jwt-bad");
        Settings settings = Settings.parse(new String[] {"--data", data.toString(), "--admin-password", TestServer.ADMIN_PASSWORD,
                "--bcrypt-cost", "4", "--jwt-algorithm", "HS256", "--jwt-secret", "only-31-bytes-long-secret-1234"}, Map.of());
        try (Store store = Stores.open(settings)) {
            assertThatThrownBy(() -> Security.open(settings, store, System.out)).hasMessageContaining("at least 32 bytes");
            Settings noKey = Settings.parse(new String[] {"--data", data.toString(), "--jwt-algorithm", "RS256"}, Map.of());
            assertThatThrownBy(() -> Security.open(noKey, store, System.out)).hasMessageContaining("jwt-key-file");
        }
    }
}
