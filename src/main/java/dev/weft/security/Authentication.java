package dev.weft.security;

import dev.weft.core.WeftException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The authenticate stage: no {@code Authorization} header is anonymous; {@code Basic} is checked
 * against the users collection (credential cache, then the user's auth token, then the password
 * hash on the bounded pool); {@code Bearer} is a JWT. Every failure is a 401 that counts against
 * the source in the {@link LoginGuard}; a source the guard refuses gets 429 with
 * {@code Retry-After} before anything is checked. A success with Basic answers the user's
 * {@code Auth-Token}. With no {@code Authorization} header, a request that carries an
 * {@link AuthRequest#accessToken() access token} (stream routes only) is that token's user, or a
 * 401 when the token is unknown or expired; it is answered no new token.
 *
 * <p>Unknown users cost a hash like known ones, so timing does not tell which names exist.
 */
final class Authentication implements Authenticator {
    private final UsersCollection users;
    private final Passwords passwords;
    private final CredentialCache cache;
    private final AuthTokens tokens;
    private final Optional<JwtVerifier> jwt;
    private final LoginGuard guard;
    private final SingleFlight<SipHash.Digest, Optional<UsersCollection.User>> verifying = new SingleFlight<>();

    Authentication(UsersCollection users, Passwords passwords, CredentialCache cache, AuthTokens tokens,
                   Optional<JwtVerifier> jwt, LoginGuard guard) {
        this.users = users;
        this.passwords = passwords;
        this.cache = cache;
        this.tokens = tokens;
        this.jwt = jwt;
        this.guard = guard;
    }

    @Override
    public Principal authenticate(AuthRequest request) {
        Optional<String> authorization = request.header("Authorization");
        Optional<String> accessToken = authorization.isEmpty() ? request.accessToken() : Optional.empty();
        if (authorization.isEmpty() && accessToken.isEmpty()) {
            return Principal.ANONYMOUS;
        }
        OptionalLong refused = guard.refusedFor(request);
        if (refused.isPresent()) {
            request.setResponseHeader("Retry-After", Long.toString(refused.getAsLong()));
            throw new WeftException(429, "too many failed logins from this address; retry in " + refused.getAsLong() + " s");
        }
        try {
            if (accessToken.isPresent()) {
                UsersCollection.User user = tokens.checkToken(accessToken.get(), users.version(), users::find)
                        .orElseThrow(() -> new WeftException(401, "unknown or expired access_token"));
                request.authenticatedWith(new TokenCredential(user.name(), accessToken.get()));
                return user.principal();
            }
            String value = authorization.get().trim();
            int space = value.indexOf(' ');
            String scheme = space < 0 ? value : value.substring(0, space);
            String credentials = space < 0 ? "" : value.substring(space + 1).trim();
            if (scheme.equalsIgnoreCase("Basic")) {
                return basic(credentials, request);
            }
            if (scheme.equalsIgnoreCase("Bearer")) {
                Principal principal = jwt.orElseThrow(() -> new WeftException(401, "bearer tokens are not accepted (no jwt-algorithm)"))
                        .verify(credentials);
                request.authenticatedWith(new JwtCredential(principal, credentials));
                return principal;
            }
            throw new WeftException(401, "unsupported authorization scheme " + scheme + " (Basic or Bearer)");
        } catch (WeftException e) {
            if (e.status() == 401) {
                guard.failed(request.remoteAddress());
            }
            throw e;
        }
    }

    /** A Basic credential split into name and secret; a 401 when it is malformed. */
    private record BasicCredentials(String name, String secret) {
        static BasicCredentials parse(String encoded) {
            String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new WeftException(401, "malformed Basic credentials");
            }
            int colon = decoded.indexOf(':');
            if (colon <= 0) {
                throw new WeftException(401, "malformed Basic credentials");
            }
            return new BasicCredentials(decoded.substring(0, colon), decoded.substring(colon + 1));
        }
    }

    /**
     * A Basic credential the cache knows, found by the digest of its Base64 text as sent: no
     * decoding, no copy. The text is the one {@link #authenticate} reads: after {@code Basic} and a
     * space, trimmed.
     */
    @Override
    public Optional<Principal> authenticateFromMemory(AuthRequest request) {
        Optional<String> authorization = request.header("Authorization");
        if (authorization.isEmpty()) {
            return Optional.of(Principal.ANONYMOUS);
        }
        String value = authorization.get();
        int end = value.length();
        while (end > 0 && value.charAt(end - 1) <= ' ') {
            end--;
        }
        int start = 0;
        while (start < end && value.charAt(start) <= ' ') {
            start++;
        }
        if (end - start <= 6 || !value.regionMatches(true, start, "Basic ", 0, 6) || guard.refusedFor(request).isPresent()) {
            return Optional.empty();
        }
        start += 6;
        while (start < end && value.charAt(start) <= ' ') {
            start++;
        }
        SipHash.Digest key = cache.key(value, start, end);
        if (key == null) {
            return Optional.empty();
        }
        long version = users.version();
        CredentialCache.Verified verified = cache.find(key, version);
        if (verified == null) {
            return Optional.empty();
        }
        if (cache.takeRenewal(verified)) {
            renew(value.substring(start, end), key, version);
        }
        return Optional.of(answered(verified.user(), version, request));
    }

    /**
     * Verifies a remembered credential again on a virtual thread of its own, and remembers it
     * afresh, while its entry (a quarter of its life left) serves this request and the next: the
     * memory path never waits for a hash. A failure only means the entry ends at its time; the
     * credential text lives as long as its verification, as it does on the stages.
     */
    private void renew(String encoded, SipHash.Digest key, long version) {
        Thread.ofVirtual().name("weft-auth-renewal").start(() -> {
            try {
                BasicCredentials credentials = BasicCredentials.parse(encoded);
                verifyAndRemember(key, credentials.name(), credentials.secret(), version);
            } catch (RuntimeException e) {
                // a saturated hashing pool or a store error: the entry ends at its time
            }
        });
    }

    private Principal basic(String encoded, AuthRequest request) {
        BasicCredentials credentials = BasicCredentials.parse(encoded);
        String name = credentials.name();
        String secret = credentials.secret();
        long version = users.version();
        SipHash.Digest key = cache.key(encoded); // decoded above: plain ASCII, so never null
        Optional<UsersCollection.User> user = cache.get(key, version);
        if (user.isEmpty()) {
            user = tokens.check(name, secret, version, users::find);
            if (user.isPresent()) {
                request.authenticatedWith(new TokenCredential(name, secret));
                return answered(user.get(), version, request);
            }
        }
        if (user.isEmpty()) {
            user = verifyAndRemember(key, name, secret, version);
        }
        UsersCollection.User verified = user.orElseThrow(() -> new WeftException(401, "wrong user name or password"));
        request.authenticatedWith(new PasswordCredential(name, verified.passwordHash()));
        return answered(verified, version, request);
    }

    /** A password: holds while the user exists with the password hash it was verified against. */
    private final class PasswordCredential implements Credential {
        private final String name;
        private final Optional<String> hash;

        PasswordCredential(String name, Optional<String> hash) {
            this.name = name;
            this.hash = hash;
        }

        @Override
        public Principal current() {
            UsersCollection.User now = users.find(name)
                    .orElseThrow(() -> new WeftException(401, "user " + name + " was deleted"));
            if (!now.passwordHash().equals(hash)) {
                throw new WeftException(401, "the password of " + name + " changed");
            }
            return now.principal();
        }
    }

    /** An auth token: holds until its expiry, while its user exists with the password it was issued under. */
    private final class TokenCredential implements Credential {
        private final String name;
        private final String token;
        private final long expiresAtMs;

        TokenCredential(String name, String token) {
            this.name = name;
            this.token = token;
            this.expiresAtMs = tokens.expiresAtMs(token);
        }

        @Override
        public Principal current() {
            return tokens.check(name, token, users.version(), users::find)
                    .orElseThrow(() -> new WeftException(401,
                            "the auth token of " + name + " expired, or the user was deleted or changed password"))
                    .principal();
        }

        @Override
        public long expiresAtMs() {
            return expiresAtMs;
        }
    }

    /** A JWT: its principal (roles are its claims) until its {@code exp}. */
    private record JwtCredential(Principal principal, long expiresAtMs) implements Credential {
        JwtCredential(Principal principal, String token) {
            this(principal, JwtVerifier.expiresAtMs(token));
        }

        @Override
        public Principal current() {
            if (System.currentTimeMillis() >= expiresAtMs) {
                throw new WeftException(401, "the JWT of " + principal.name() + " expired");
            }
            return principal;
        }
    }

    /** Checks the password (once for concurrent requests with the same credential) and remembers a success. */
    private Optional<UsersCollection.User> verifyAndRemember(SipHash.Digest key, String name, String secret, long version) {
        return verifying.run(key, () -> {
            Optional<UsersCollection.User> verified = byPassword(name, secret);
            verified.ifPresent(u -> cache.put(key, u, version));
            return verified;
        });
    }

    /** A Basic login succeeded: the answer carries the user's auth token. */
    private Principal answered(UsersCollection.User user, long version, AuthRequest request) {
        tokens.issue(user, version).ifPresent(request::setAuthToken);
        return user.principal();
    }

    private Optional<UsersCollection.User> byPassword(String name, String password) {
        Optional<UsersCollection.User> user = users.find(name);
        if (user.isEmpty() || user.get().passwordHash().isEmpty()) {
            passwords.verifyDecoy(password);
            return Optional.empty();
        }
        return passwords.verify(password, user.get().passwordHash().get()) ? user : Optional.empty();
    }
}
