package dev.weft.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * RESTHeart's auth tokens: a request authenticated with a password is answered with
 * {@code Auth-Token} (a random 256-bit secret) and {@code Auth-Token-Valid-Until}; until then the
 * token is accepted in place of the password in Basic auth. One token per user, shared by that
 * user's clients, kept in memory only (a restart or another node does not know it).
 *
 * <p>Invariants: a token is never accepted after its {@code auth-token-ttl-ms}; it dies with its
 * user, and with the password it was issued under (when the users collection has changed since,
 * the user is read again before the token is accepted, which also refreshes the roles); at most
 * {@code auth-cache-entries} users hold a token (past that, expired ones are purged, and if none
 * expired no token is issued: the request still succeeds, without the header).
 */
final class AuthTokens {
    private record Entry(AuthToken issued, long expiresAt, UsersCollection.User user, long usersVersion) {}

    private static final SecureRandom RANDOM = new SecureRandom();

    private final long ttlNanos;
    private final int maxEntries;
    private final LongSupplier clock;
    private final ConcurrentHashMap<String, Entry> byUser = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> userByToken = new ConcurrentHashMap<>();

    AuthTokens(long ttlMs, int maxEntries, LongSupplier nanoClock) {
        this.ttlNanos = ttlMs * 1_000_000;
        this.maxEntries = maxEntries;
        this.clock = nanoClock;
    }

    /**
     * The user, when {@code secret} is that user's live token. {@code reload} reads the user
     * again when the users collection moved past the version the token knows.
     */
    Optional<UsersCollection.User> check(String name, String secret, long usersVersion,
                                         Function<String, Optional<UsersCollection.User>> reload) {
        Entry e = byUser.get(name);
        if (e == null || !MessageDigest.isEqual(e.issued.token().getBytes(StandardCharsets.UTF_8),
                secret.getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        if (clock.getAsLong() - e.expiresAt > 0) {
            drop(name, e);
            return Optional.empty();
        }
        if (e.usersVersion == usersVersion) {
            return Optional.of(e.user);
        }
        Optional<UsersCollection.User> now = reload.apply(name);
        if (now.isEmpty() || !now.get().passwordHash().equals(e.user.passwordHash())) {
            drop(name, e);
            return Optional.empty();
        }
        byUser.replace(name, e, new Entry(e.issued, e.expiresAt, now.get(), usersVersion));
        return now;
    }

    /** The user whose live token {@code secret} is, as {@link #check} would accept it. */
    Optional<UsersCollection.User> checkToken(String secret, long usersVersion,
                                              Function<String, Optional<UsersCollection.User>> reload) {
        String name = userByToken.get(secret);
        return name == null ? Optional.empty() : check(name, secret, usersVersion, reload);
    }

    private void drop(String name, Entry e) {
        if (byUser.remove(name, e)) {
            userByToken.remove(e.issued.token(), name);
        }
    }

    /** The user's live token, or a new one; empty when the table is full. */
    Optional<AuthToken> issue(UsersCollection.User user, long usersVersion) {
        long now = clock.getAsLong();
        Entry current = byUser.get(user.name());
        if (live(current, user, now)) {
            return Optional.of(current.issued);
        }
        if (current == null && byUser.size() >= maxEntries) {
            byUser.forEach((name, x) -> {
                if (now - x.expiresAt > 0) {
                    drop(name, x);
                }
            });
            if (byUser.size() >= maxEntries) {
                return Optional.empty();
            }
        }
        Entry result = byUser.compute(user.name(), (name, cur) -> {
            if (live(cur, user, now)) {
                return cur;
            }
            Entry next = fresh(user, usersVersion, now);
            if (cur != null) {
                userByToken.remove(cur.issued.token(), name);
            }
            userByToken.put(next.issued.token(), name);
            return next;
        });
        return Optional.of(result.issued);
    }

    private static boolean live(Entry e, UsersCollection.User user, long now) {
        return e != null && now - e.expiresAt <= 0 && e.user.passwordHash().equals(user.passwordHash());
    }

    private Entry fresh(UsersCollection.User user, long usersVersion, long now) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String token = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        String until = Instant.now().plusNanos(ttlNanos).toString();
        return new Entry(new AuthToken(token, until), now + ttlNanos, user, usersVersion);
    }
}
