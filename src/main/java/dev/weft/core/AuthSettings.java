package dev.weft.core;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The settings of authentication and of the network edge (brute-force guard, CORS, TLS), read
 * with the rest of {@link Settings} and described in {@link Settings#DESCRIPTIONS}. Secrets
 * ({@code admin-password}, {@code jwt-secret}) never appear in {@link #toString()}.
 *
 * @param usersDb               database of the users collection
 * @param usersCollection       collection holding one document per user ({@code _id} = name)
 * @param adminPassword         password of the {@code admin} user created on first start;
 *                              absent: a random one is printed once
 * @param passwordMinLength     fewest characters a password may have
 * @param bcryptCost            bcrypt work factor of stored password hashes (2^cost rounds)
 * @param hashConcurrency       password hashes computed at once (the bounded hashing pool)
 * @param hashWaitMs            longest wait for a hashing slot before 503
 * @param authCacheTtlMs        how long a verified credential is remembered (as a keyed digest)
 * @param authCacheEntries      most credentials and auth tokens remembered at once
 * @param authTokenTtlMs        lifetime of an {@code Auth-Token}
 * @param jwtAlgorithm          HS256, RS256 or ES256; absent: bearer tokens are refused
 * @param jwtSecret             HS256 secret, at least 32 bytes
 * @param jwtKeyFile            RS256/ES256 public key: a PEM file or a JWKS (JSON) file
 * @param jwtIssuer             required {@code iss}; absent: not checked
 * @param jwtAudience           required {@code aud}; absent: not checked
 * @param jwtRolesClaim         claim holding the roles (array of strings or one string)
 * @param jwtClockSkewS         tolerance on {@code exp} and {@code nbf}
 * @param loginGuardFailures    failed logins from one address that close it for the window; 0 = off
 * @param loginGuardWindowMs    the window failures are counted in, and how long an address stays closed
 * @param loginGuardAddresses   most addresses tracked at once
 * @param corsOrigins           origins allowed by CORS ({@code *} for any); empty = none
 * @param corsMaxAgeS           how long browsers may cache a preflight answer
 * @param tlsPort               port of the HTTPS listener (when cert and key files are given)
 * @param tlsCertFile           PEM certificate chain of the HTTPS listener
 * @param tlsKeyFile            PEM private key (PKCS#8) of the HTTPS listener
 */
public record AuthSettings(
        String usersDb,
        String usersCollection,
        Optional<String> adminPassword,
        int passwordMinLength,
        int bcryptCost,
        int hashConcurrency,
        long hashWaitMs,
        long authCacheTtlMs,
        int authCacheEntries,
        long authTokenTtlMs,
        Optional<String> jwtAlgorithm,
        Optional<String> jwtSecret,
        Optional<Path> jwtKeyFile,
        Optional<String> jwtIssuer,
        Optional<String> jwtAudience,
        String jwtRolesClaim,
        long jwtClockSkewS,
        int loginGuardFailures,
        long loginGuardWindowMs,
        int loginGuardAddresses,
        List<String> corsOrigins,
        long corsMaxAgeS,
        int tlsPort,
        Optional<Path> tlsCertFile,
        Optional<Path> tlsKeyFile) {

    public AuthSettings {
        corsOrigins = List.copyOf(corsOrigins);
        if (tlsCertFile.isPresent() != tlsKeyFile.isPresent()) {
            throw WeftException.badRequest("settings tls-cert-file and tls-key-file go together");
        }
    }

    public boolean tlsEnabled() {
        return tlsCertFile.isPresent();
    }

    @Override
    public String toString() {
        return "AuthSettings[users=" + usersDb + "/" + usersCollection
                + ", adminPassword=" + adminPassword.map(p -> "(set)").orElse("(none)")
                + ", jwtAlgorithm=" + jwtAlgorithm.orElse("(none)")
                + ", jwtSecret=" + jwtSecret.map(p -> "(set)").orElse("(none)")
                + ", loginGuard=" + loginGuardFailures + "/" + loginGuardWindowMs + "ms"
                + ", corsOrigins=" + corsOrigins + ", tls=" + tlsEnabled() + "]";
    }
}
