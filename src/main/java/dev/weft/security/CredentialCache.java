package dev.weft.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verified Basic credentials, so that a client repeating its credential is not re-hashed on
 * every request. No password is kept: the key is HMAC-SHA256 of {@code user:password} under a
 * random key made per process, so neither a heap dump nor a timing on the map reveals one.
 *
 * <p>Invariants: an entry lives at most {@code auth-cache-ttl-ms}; an entry is only served while
 * the users collection is at the version it was verified against (any user created, changed or
 * deleted drops them all), so a changed password or role is never served from here; at most {@code auth-cache-entries} entries (past
 * that, expired ones are purged, and if none expired the cache starts over). Only successes are
 * cached: a wrong password always costs a hash.
 */
final class CredentialCache {
    /** A 256-bit digest as four longs: compact, and equal by value. */
    record Key(long a, long b, long c, long d) {}

    private record Entry(UsersCollection.User user, long usersVersion, long expiresAt) {}

    private final Mac prototype;
    private final long ttlNanos;
    private final int maxEntries;
    private final LongSupplier clock;
    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();
    private volatile long version = Long.MIN_VALUE;

    CredentialCache(long ttlMs, int maxEntries, LongSupplier nanoClock) {
        this.ttlNanos = ttlMs * 1_000_000;
        this.maxEntries = maxEntries;
        this.clock = nanoClock;
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        try {
            prototype = Mac.getInstance("HmacSHA256");
            prototype.init(new SecretKeySpec(secret, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", e);
        }
    }

    Key key(String user, String password) {
        Mac mac;
        try {
            mac = (Mac) prototype.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
        mac.update(user.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) ':');
        byte[] d = mac.doFinal(password.getBytes(StandardCharsets.UTF_8));
        return new Key(longAt(d, 0), longAt(d, 8), longAt(d, 16), longAt(d, 24));
    }

    private static long longAt(byte[] b, int i) {
        long v = 0;
        for (int k = 0; k < 8; k++) {
            v = (v << 8) | (b[i + k] & 0xff);
        }
        return v;
    }

    /** The user verified with this credential, while fresh and while no user has changed. */
    Optional<UsersCollection.User> get(Key key, long usersVersion) {
        if (ttlNanos == 0) {
            return Optional.empty();
        }
        if (usersVersion != version) {
            entries.clear();
            version = usersVersion;
            return Optional.empty();
        }
        Entry e = entries.get(key);
        if (e == null) {
            return Optional.empty();
        }
        if (e.usersVersion != usersVersion || clock.getAsLong() - e.expiresAt > 0) {
            entries.remove(key, e);
            return Optional.empty();
        }
        return Optional.of(e.user);
    }

    /** Remembers a verification made against the users collection at {@code usersVersion}. */
    void put(Key key, UsersCollection.User user, long usersVersion) {
        if (ttlNanos == 0) {
            return;
        }
        long now = clock.getAsLong();
        if (entries.size() >= maxEntries) {
            entries.values().removeIf(e -> now - e.expiresAt > 0);
            if (entries.size() >= maxEntries) {
                entries.clear();
            }
        }
        entries.put(key, new Entry(user, usersVersion, now + ttlNanos));
    }

    int size() {
        return entries.size();
    }
}
