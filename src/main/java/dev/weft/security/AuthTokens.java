package dev.weft.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * RESTHeart's auth tokens: a request authenticated with a password is answered with
 * {@code Auth-Token} and {@code Auth-Token-Valid-Until}; until then the token is accepted in
 * place of the password in Basic auth (and as {@code ?access_token=} on stream routes).
 *
 * <p>A token is self-contained and signed, so that every Weft node on one database accepts the
 * tokens of every other (behind a load balancer a client's next request may reach any node):
 * {@code base64url(user) "." expiry-ms "." base64url(fingerprint) "." base64url(mac)}, where the
 * fingerprint is 8 bytes of SHA-256 of the user's stored password hash and the mac an
 * HMAC-SHA256 of the rest under a key every node reads from the database
 * ({@link UsersCollection#tokenKey}). The mac is checked before anything is looked up.
 *
 * <p>Invariants: a token is never accepted after its expiry ({@code auth-token-ttl-ms} after
 * issue, by the wall clock, which the nodes share); it dies with its user and with the password
 * it was issued under (the fingerprint no longer matches); one token per user is announced by a
 * node at a time, the one it issued or the first valid one it was shown, so the user's clients
 * converge on it; at most {@code auth-cache-entries} users have a remembered token (past that,
 * expired ones are purged, and if none expired no token is issued: the request still succeeds,
 * without the header; tokens are still verified, from scratch).
 *
 * <p>A user's tokens are revoked together ({@code DELETE /tokens/{user}}): every token whose
 * expiry is at most the revocation time plus {@code auth-token-ttl-ms}, i.e. issued no later than
 * the revocation, is refused from then on, on every node ({@code revokedAt}, read from the store).
 */
final class AuthTokens {
    private record Entry(AuthToken issued, long expiresAtMs, UsersCollection.User user, long usersVersion) {}

    private record Parsed(String name, long expiresAtMs, byte[] fingerprint) {}

    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder UNB64 = Base64.getUrlDecoder();
    private static final int FINGERPRINT_BYTES = 8;

    private final SecretKeySpec key;
    private final long ttlMs;
    private final int maxEntries;
    private final LongSupplier clockMs;
    private final ConcurrentHashMap<String, Entry> byUser = new ConcurrentHashMap<>();
    /** Verified tokens other than the user's announced one (another node's), by token. */
    private final ConcurrentHashMap<String, Entry> others = new ConcurrentHashMap<>();
    private final ToLongFunction<String> revokedAt;

    /** {@code key}: at least 32 bytes shared by every node; {@code clockMs}: the wall clock. */
    AuthTokens(byte[] key, long ttlMs, int maxEntries, LongSupplier clockMs) {
        this(key, ttlMs, maxEntries, clockMs, name -> Long.MIN_VALUE);
    }

    /** {@code revokedAt}: when the user's tokens were last revoked, in epoch ms ({@link Long#MIN_VALUE}: never). */
    AuthTokens(byte[] key, long ttlMs, int maxEntries, LongSupplier clockMs, ToLongFunction<String> revokedAt) {
        this.revokedAt = revokedAt;
        if (key.length < 32) {
            throw new IllegalArgumentException("the auth token key must have at least 32 bytes");
        }
        this.key = new SecretKeySpec(key, "HmacSHA256");
        this.ttlMs = ttlMs;
        this.maxEntries = maxEntries;
        this.clockMs = clockMs;
    }

    /**
     * The user, when {@code secret} is a live token of user {@code name}. {@code reload} reads the
     * user (again, when the users collection moved past the version this node knows).
     */
    Optional<UsersCollection.User> check(String name, String secret, long usersVersion,
                                         Function<String, Optional<UsersCollection.User>> reload) {
        if (revoked(name, claimedExpiry(secret))) {
            return Optional.empty();
        }
        Entry e = byUser.get(name);
        if (e != null && MessageDigest.isEqual(bytes(e.issued.token()), bytes(secret))) {
            return checkKnown(byUser, name, e, usersVersion, reload);
        }
        Entry other = others.get(secret);
        if (other != null && other.user.name().equals(name)) {
            return checkKnown(others, secret, other, usersVersion, reload);
        }
        return verify(secret).filter(p -> p.name.equals(name)).flatMap(p -> adopt(p, secret, usersVersion, reload));
    }

    /** The user whose live token {@code secret} is, as {@link #check} would accept it. */
    Optional<UsersCollection.User> checkToken(String secret, long usersVersion,
                                              Function<String, Optional<UsersCollection.User>> reload) {
        return verify(secret).flatMap(p -> check(p.name, secret, usersVersion, reload));
    }

    /** When {@code token} (a live token, already checked) expires, in epoch ms. */
    long expiresAtMs(String token) {
        return verify(token).map(Parsed::expiresAtMs).orElse(0L);
    }

    /** An entry of {@code map} (under {@code key}) whose token matched: still live, still the same password? */
    private Optional<UsersCollection.User> checkKnown(ConcurrentHashMap<String, Entry> map, String key, Entry e,
                                                      long usersVersion,
                                                      Function<String, Optional<UsersCollection.User>> reload) {
        if (clockMs.getAsLong() >= e.expiresAtMs) {
            map.remove(key, e);
            return Optional.empty();
        }
        if (e.usersVersion == usersVersion) {
            return Optional.of(e.user);
        }
        Optional<UsersCollection.User> now = reload.apply(e.user.name());
        if (now.isEmpty() || !now.get().passwordHash().equals(e.user.passwordHash())) {
            map.remove(key, e);
            return Optional.empty();
        }
        map.replace(key, e, new Entry(e.issued, e.expiresAtMs, now.get(), usersVersion));
        return now;
    }

    /** A token this node did not issue (another node did, or this one before a restart). */
    private Optional<UsersCollection.User> adopt(Parsed p, String secret, long usersVersion,
                                                 Function<String, Optional<UsersCollection.User>> reload) {
        Optional<UsersCollection.User> user = reload.apply(p.name);
        if (user.isEmpty() || !MessageDigest.isEqual(p.fingerprint, fingerprint(user.get()))) {
            return Optional.empty();
        }
        Entry offered = new Entry(new AuthToken(secret, Instant.ofEpochMilli(p.expiresAtMs).toString()),
                p.expiresAtMs, user.get(), usersVersion);
        long now = clockMs.getAsLong();
        if (byUser.containsKey(p.name) || room(byUser, now)) {
            Entry announced = byUser.compute(p.name, (name, cur) -> live(cur, user.get(), now) ? cur : offered);
            if (announced != offered && room(others, now)) {
                others.put(secret, offered);
            }
        }
        return user;
    }

    /** Forgets the user's tokens on this node (their revocation, stored, reaches the others). */
    void forget(String name) {
        byUser.remove(name);
        others.values().removeIf(e -> e.user.name().equals(name));
    }

    private boolean revoked(String name, long expiresAtMs) {
        return expiresAtMs <= revokedAt.applyAsLong(name) + ttlMs;
    }

    /** The expiry a token states, unverified (only ever used to refuse it); 0 when it states none. */
    private static long claimedExpiry(String token) {
        String[] parts = token.split("\\.", -1);
        try {
            return parts.length == 4 ? Long.parseLong(parts[1]) : 0;
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The user's live token, or a new one; empty when the table is full. */
    Optional<AuthToken> issue(UsersCollection.User user, long usersVersion) {
        long now = clockMs.getAsLong();
        Entry current = byUser.get(user.name());
        if (live(current, user, now)) {
            return Optional.of(current.issued);
        }
        if (current == null && !room(byUser, now)) {
            return Optional.empty();
        }
        Entry result = byUser.compute(user.name(), (name, cur) -> live(cur, user, now) ? cur : fresh(user, usersVersion, now));
        return Optional.of(result.issued);
    }

    /** Whether {@code map} may take one more entry, after purging expired ones when full. */
    private boolean room(ConcurrentHashMap<String, Entry> map, long now) {
        if (map.size() < maxEntries) {
            return true;
        }
        map.forEach((k, x) -> {
            if (now >= x.expiresAtMs) {
                map.remove(k, x);
            }
        });
        return map.size() < maxEntries;
    }

    private boolean live(Entry e, UsersCollection.User user, long now) {
        return e != null && now < e.expiresAtMs && e.user.passwordHash().equals(user.passwordHash())
                && !revoked(user.name(), e.expiresAtMs);
    }

    private Entry fresh(UsersCollection.User user, long usersVersion, long now) {
        long expires = now + ttlMs;
        String body = B64.encodeToString(bytes(user.name())) + "." + expires + "." + B64.encodeToString(fingerprint(user));
        String token = body + "." + B64.encodeToString(mac(body));
        return new Entry(new AuthToken(token, Instant.ofEpochMilli(expires).toString()), expires, user, usersVersion);
    }

    /** The token's claims when its mac is right and it has not expired; nothing is looked up. */
    private Optional<Parsed> verify(String token) {
        int macAt = token.lastIndexOf('.');
        String[] parts = macAt < 0 ? new String[0] : token.substring(0, macAt).split("\\.", -1);
        if (parts.length != 3) {
            return Optional.empty();
        }
        try {
            byte[] mac = UNB64.decode(token.substring(macAt + 1));
            if (!MessageDigest.isEqual(mac, mac(token.substring(0, macAt)))) {
                return Optional.empty();
            }
            long expires = Long.parseLong(parts[1]);
            if (clockMs.getAsLong() >= expires) {
                return Optional.empty();
            }
            return Optional.of(new Parsed(new String(UNB64.decode(parts[0]), StandardCharsets.UTF_8), expires,
                    UNB64.decode(parts[2])));
        } catch (IllegalArgumentException e) { // bad base64 or number: not a token of ours
            return Optional.empty();
        }
    }

    private byte[] mac(String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac.doFinal(bytes(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    private static byte[] fingerprint(UsersCollection.User user) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes(user.passwordHash().orElse("")));
            return java.util.Arrays.copyOf(digest, FINGERPRINT_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
