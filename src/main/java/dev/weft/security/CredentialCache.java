package dev.weft.security;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * Verified Basic credentials, so that a client repeating its credential is not re-hashed on
 * every request. No password is kept: the key is the {@link SipHash} digest, under a random key
 * made per process, of the credential exactly as the client sent it (the Base64 text after
 * {@code Basic }), so neither a heap dump nor a timing on the map gives one back, and a repeated
 * credential is found without being decoded or copied. Two spellings of one credential (with and
 * without padding) are two entries, each verified once.
 *
 * <p>Invariants: an entry lives at most {@code auth-cache-ttl-ms}; an entry still in use in the
 * last quarter of its life is verified again for one request (see {@link #takeRenewal}) while the
 * others are still served from it, so a busy client never waits for a hash, and never goes longer
 * than the lifetime without one; an entry is only served while the users collection is at the
 * version it was verified against (any user created, changed or deleted drops them all), so a
 * changed password or role is never served from here; at most {@code auth-cache-entries} entries
 * (past that, expired ones are purged, and if none expired the cache starts over). Only
 * successes are cached: a wrong password always costs a hash.
 */
final class CredentialCache {
    /** A remembered verification. */
    static final class Verified {
        private final UsersCollection.User user;
        private final long usersVersion;
        private final long renewAt;
        private final long expiresAt;
        private final AtomicBoolean renewing = new AtomicBoolean();

        Verified(UsersCollection.User user, long usersVersion, long verifiedAt, long ttlNanos) {
            this.user = user;
            this.usersVersion = usersVersion;
            this.renewAt = verifiedAt + ttlNanos - ttlNanos / 4;
            this.expiresAt = verifiedAt + ttlNanos;
        }

        UsersCollection.User user() {
            return user;
        }
    }

    private final SipHash digest = SipHash.withRandomKey();
    private final long ttlNanos;
    private final int maxEntries;
    private final LongSupplier clock;
    private final ConcurrentHashMap<SipHash.Digest, Verified> entries = new ConcurrentHashMap<>();
    private volatile long version = Long.MIN_VALUE;

    CredentialCache(long ttlMs, int maxEntries, LongSupplier nanoClock) {
        this.ttlNanos = ttlMs * 1_000_000;
        this.maxEntries = maxEntries;
        this.clock = nanoClock;
    }

    /** The key of the whole credential text. */
    SipHash.Digest key(String credential) {
        return key(credential, 0, credential.length());
    }

    /**
     * The key of {@code text[from, to)}, a Basic credential as sent; null when it holds a
     * character outside ASCII, which no Base64 credential does (so no two texts share a key).
     */
    SipHash.Digest key(String text, int from, int to) {
        return digest.ascii(text, from, to);
    }

    /**
     * The user verified with this credential, while fresh and while no user has changed. Empty
     * also for the caller that takes on a due renewal: it verifies the password and {@link #put}s
     * the credential again.
     */
    Optional<UsersCollection.User> get(SipHash.Digest key, long usersVersion) {
        Verified v = find(key, usersVersion);
        return v == null || takeRenewal(v) ? Optional.empty() : Optional.of(v.user);
    }

    /** The live verification of this credential, while fresh and while no user has changed; else null. */
    Verified find(SipHash.Digest key, long usersVersion) {
        if (ttlNanos == 0) {
            return null;
        }
        if (usersVersion != version) {
            entries.clear();
            version = usersVersion;
            return null;
        }
        Verified v = entries.get(key);
        if (v == null) {
            return null;
        }
        if (v.usersVersion != usersVersion || clock.getAsLong() - v.expiresAt > 0) {
            entries.remove(key, v);
            return null;
        }
        return v;
    }

    /**
     * True once per verification, for the first caller in the last quarter of its life: that
     * caller verifies the password again and {@link #put}s the credential, while the entry still
     * serves the others.
     */
    boolean takeRenewal(Verified v) {
        return clock.getAsLong() - v.renewAt > 0 && v.renewing.compareAndSet(false, true);
    }

    /** Remembers a verification made against the users collection at {@code usersVersion}. */
    void put(SipHash.Digest key, UsersCollection.User user, long usersVersion) {
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
        entries.put(key, new Verified(user, usersVersion, now, ttlNanos));
    }

    int size() {
        return entries.size();
    }
}
