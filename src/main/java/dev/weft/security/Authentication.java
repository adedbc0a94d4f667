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
 * {@code Auth-Token}.
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
        if (authorization.isEmpty()) {
            return Principal.ANONYMOUS;
        }
        String address = request.remoteAddress();
        OptionalLong refused = guard.refusedFor(address);
        if (refused.isPresent()) {
            request.setResponseHeader("Retry-After", Long.toString(refused.getAsLong()));
            throw new WeftException(429, "too many failed logins from this address; retry in " + refused.getAsLong() + " s");
        }
        try {
            String value = authorization.get().trim();
            int space = value.indexOf(' ');
            String scheme = space < 0 ? value : value.substring(0, space);
            String credentials = space < 0 ? "" : value.substring(space + 1).trim();
            if (scheme.equalsIgnoreCase("Basic")) {
                return basic(credentials, request);
            }
            if (scheme.equalsIgnoreCase("Bearer")) {
                return jwt.orElseThrow(() -> new WeftException(401, "bearer tokens are not accepted (no jwt-algorithm)"))
                        .verify(credentials);
            }
            throw new WeftException(401, "unsupported authorization scheme " + scheme + " (Basic or Bearer)");
        } catch (WeftException e) {
            if (e.status() == 401) {
                guard.failed(address);
            }
            throw e;
        }
    }

    private Principal basic(String credentials, AuthRequest request) {
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(credentials), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new WeftException(401, "malformed Basic credentials");
        }
        int colon = decoded.indexOf(':');
        if (colon <= 0) {
            throw new WeftException(401, "malformed Basic credentials");
        }
        String name = decoded.substring(0, colon);
        String secret = decoded.substring(colon + 1);
        long version = users.version();
        CredentialCache.Key key = cache.key(name, secret);
        Optional<UsersCollection.User> user = cache.get(key, version);
        if (user.isEmpty()) {
            user = tokens.check(name, secret, version, users::find);
        }
        if (user.isEmpty()) {
            user = byPassword(name, secret);
            user.ifPresent(u -> cache.put(key, u, version));
        }
        UsersCollection.User u = user.orElseThrow(() -> new WeftException(401, "wrong user name or password"));
        tokens.issue(u, version).ifPresent(t -> {
            request.setResponseHeader("Auth-Token", t.token());
            request.setResponseHeader("Auth-Token-Valid-Until", t.validUntil());
        });
        return u.principal();
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
