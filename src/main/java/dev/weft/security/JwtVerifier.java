package dev.weft.security;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.ImmutableSecret;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSKeySelector;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.proc.SingleKeyJWSKeySelector;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import dev.weft.core.AuthSettings;
import dev.weft.core.Json;
import dev.weft.core.Pem;
import dev.weft.core.WeftException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Bearer JWTs, verified with nimbus-jose-jwt against one configured algorithm and key:
 * HS256 with {@code jwt-secret} (at least 32 bytes), or RS256/ES256 with {@code jwt-key-file}
 * (a PEM public key or certificate, or a JWKS file). The algorithm is pinned: a token whose
 * header names another one is refused, which stops {@code alg: none} and the HS/RS confusion
 * (an HS256 token "signed" with the RSA public key). {@code sub} and {@code exp} are required;
 * {@code exp} and {@code nbf} are checked with {@code jwt-clock-skew-s} of tolerance;
 * {@code iss} and {@code aud} must equal {@code jwt-issuer} and {@code jwt-audience} when those
 * are set. The principal is {@code sub} with the roles of {@code jwt-roles-claim}.
 */
final class JwtVerifier {
    private static final Set<String> ALGORITHMS = Set.of("HS256", "RS256", "ES256");
    private static final int MIN_SECRET_BYTES = 32;

    private final DefaultJWTProcessor<SecurityContext> processor;
    private final String rolesClaim;

    private JwtVerifier(DefaultJWTProcessor<SecurityContext> processor, String rolesClaim) {
        this.processor = processor;
        this.rolesClaim = rolesClaim;
    }

    /** The verifier the settings describe, or empty when no {@code jwt-algorithm} is set. */
    static Optional<JwtVerifier> of(AuthSettings s) {
        if (s.jwtAlgorithm().isEmpty()) {
            return Optional.empty();
        }
        String name = s.jwtAlgorithm().get();
        if (!ALGORITHMS.contains(name)) {
            throw new IllegalArgumentException("jwt-algorithm must be one of " + ALGORITHMS + ", not " + name);
        }
        JWSAlgorithm alg = JWSAlgorithm.parse(name);
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        processor.setJWSKeySelector(keys(alg, s));
        Set<String> required = new HashSet<>(Set.of("sub", "exp"));
        JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder();
        s.jwtIssuer().ifPresent(iss -> {
            exact.issuer(iss);
            required.add("iss");
        });
        s.jwtAudience().ifPresent(aud -> required.add("aud"));
        DefaultJWTClaimsVerifier<SecurityContext> claims =
                new DefaultJWTClaimsVerifier<>(s.jwtAudience().orElse(null), exact.build(), required);
        claims.setMaxClockSkew((int) s.jwtClockSkewS());
        processor.setJWTClaimsSetVerifier(claims);
        return Optional.of(new JwtVerifier(processor, s.jwtRolesClaim()));
    }

    private static JWSKeySelector<SecurityContext> keys(JWSAlgorithm alg, AuthSettings s) {
        if (alg.equals(JWSAlgorithm.HS256)) {
            byte[] secret = s.jwtSecret().orElseThrow(() -> new IllegalArgumentException("jwt-algorithm HS256 needs jwt-secret"))
                    .getBytes(StandardCharsets.UTF_8);
            if (secret.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException("jwt-secret must be at least " + MIN_SECRET_BYTES + " bytes");
            }
            return new JWSVerificationKeySelector<>(alg, new ImmutableSecret<>(secret));
        }
        Path file = s.jwtKeyFile().orElseThrow(() -> new IllegalArgumentException("jwt-algorithm " + alg + " needs jwt-key-file"));
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read jwt-key-file " + file + ": " + e.getMessage(), e);
        }
        if (text.stripLeading().startsWith("{")) {
            try {
                return new JWSVerificationKeySelector<>(alg, new ImmutableJWKSet<>(JWKSet.parse(text)));
            } catch (ParseException e) {
                throw new IllegalArgumentException("jwt-key-file " + file + " is not a JWKS: " + e.getMessage(), e);
            }
        }
        return new SingleKeyJWSKeySelector<>(alg, Pem.publicKey(file));
    }

    /** The principal of a valid token; 401 saying why otherwise. */
    Principal verify(String token) {
        JWTClaimsSet claims;
        try {
            claims = processor.process(token, null);
        } catch (ParseException e) {
            throw unauthorized("it is not a JWT");
        } catch (KeySourceException e) {
            throw unauthorized("no key to check it");
        } catch (BadJOSEException | JOSEException e) {
            throw unauthorized(e.getMessage());
        }
        return new Principal(subject(token), roles(claims.getClaim(rolesClaim)), account(claims));
    }

    /** The token's claims but the token's own ({@code exp}, {@code iss}, ...): RESTHeart's {@code @user}. */
    private static JsonNode account(JWTClaimsSet claims) {
        Map<String, Object> properties = new java.util.HashMap<>(claims.toJSONObject());
        List.of("exp", "iss", "nbf", "iat", "aud", "jti").forEach(properties::remove);
        try {
            return Json.standard().mapper().valueToTree(properties);
        } catch (RuntimeException e) {
            return Json.NODES.objectNode();
        }
    }

    /**
     * The user a (verified) token names: a non-blank string, as written in the payload (the
     * claims set turns a numeric {@code sub} into a string). A null or empty {@code sub} would be
     * a user with no name, which is how the anonymous principal looks to {@code @user._id}.
     */
    private static String subject(String token) {
        Object sub;
        try {
            sub = com.nimbusds.jose.JWSObject.parse(token).getPayload().toJSONObject().get("sub");
        } catch (ParseException e) {
            throw unauthorized("it is not a JWT");
        }
        if (sub instanceof String name && !name.isBlank()) {
            return name;
        }
        throw unauthorized("sub must be a non-empty string");
    }

    /** The {@code exp} of a token {@link #verify} accepted, in epoch ms. */
    static long expiresAtMs(String token) {
        try {
            return com.nimbusds.jwt.JWTParser.parse(token).getJWTClaimsSet().getExpirationTime().getTime();
        } catch (ParseException e) {
            throw unauthorized("it is not a JWT");
        }
    }

    private static Set<String> roles(Object claim) {
        Set<String> roles = new LinkedHashSet<>();
        if (claim instanceof String one) {
            roles.add(one);
        } else if (claim instanceof List<?> many) {
            many.forEach(r -> {
                if (r instanceof String role) {
                    roles.add(role);
                }
            });
        }
        roles.remove(Principal.UNAUTHENTICATED_ROLE);
        return Set.copyOf(roles);
    }

    private static WeftException unauthorized(String why) {
        return new WeftException(401, "invalid bearer token: " + why);
    }
}
