package dev.weft.security;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verified Basic credentials, so that a client repeating its credential is not re-hashed on
 * every request. No password is kept: the key is HMAC-SHA256, under a random key made per
 * process, of the credential exactly as the client sent it (the Base64 text after
 * {@code Basic }), so neither a heap dump nor a timing on the map reveals one, and a repeated
 * credential is found without being decoded. Two spellings of one credential (with and without
 * padding) are two entries, each verified once.
 *
 * <p>Invariants: an entry lives at most {@code auth-cache-ttl-ms}; an entry still in use in the
 * last quarter of its life is verified again for one request (see {@link #takeRenewal}) while the
 * others are still served from it, so a busy client never waits for a hash, and never goes longer
 * than the lifetime without one; an entry is only served while
 * the users collection is at the version it was verified against (any user created, changed or
 * deleted drops them all), so a changed password or role is never served from here; at most {@code auth-cache-entries} entries (past
 * that, expired ones are purged, and if none expired the cache starts over). Only successes are
 * cached: a wrong password always costs a hash.
 *
 * <p>Threads: a platform thread (a Jetty selector, which answers cached reads) keeps its own
 * {@link Mac} and buffer, zeroed after each use; a virtual thread clones the keyed prototype.
 */
final class CredentialCache {
    /** A 256-bit digest as four longs: compact, and equal by value. */
    record Key(long a, long b, long c, long d) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && a == k.a && b == k.b && c == k.c && d == k.d;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(a); // a digest: any 32 of its bits are as good as all of them
        }
    }

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

    /** A keyed Mac with room for a credential's bytes and its digest. */
    private static final class Hasher {
        final Mac mac;
        final byte[] in = new byte[128];
        final byte[] out = new byte[32];

        Hasher(Mac mac) {
            this.mac = mac;
        }
    }

    private final Mac prototype;
    private final ThreadLocal<Hasher> platformHashers = ThreadLocal.withInitial(this::newHasher);
    private final long ttlNanos;
    private final int maxEntries;
    private final LongSupplier clock;
    private final ConcurrentHashMap<Key, Verified> entries = new ConcurrentHashMap<>();
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

    private Hasher newHasher() {
        try {
            return new Hasher((Mac) prototype.clone());
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The key of the whole credential text. */
    Key key(String credential) {
        return key(credential, 0, credential.length());
    }

    /**
     * The key of {@code text[from, to)}, a Basic credential as sent; null when it holds a
     * character outside ASCII, which no Base64 credential does (so no two texts share a key).
     */
    Key key(String text, int from, int to) {
        Hasher h = Thread.currentThread().isVirtual() ? newHasher() : platformHashers.get();
        byte[] in = h.in;
        try {
            for (int i = from; i < to; ) {
                int n = Math.min(in.length, to - i);
                for (int k = 0; k < n; k++) {
                    char c = text.charAt(i + k);
                    if (c > 0x7f) {
                        h.mac.reset();
                        return null;
                    }
                    in[k] = (byte) c;
                }
                h.mac.update(in, 0, n);
                i += n;
            }
            h.mac.doFinal(h.out, 0);
        } catch (ShortBufferException e) {
            throw new IllegalStateException(e);
        } finally {
            Arrays.fill(in, (byte) 0); // the credential text is as good as the password
        }
        byte[] d = h.out;
        return new Key(longAt(d, 0), longAt(d, 8), longAt(d, 16), longAt(d, 24));
    }

    private static long longAt(byte[] b, int i) {
        long v = 0;
        for (int k = 0; k < 8; k++) {
            v = (v << 8) | (b[i + k] & 0xff);
        }
        return v;
    }

    /**
     * The user verified with this credential, while fresh and while no user has changed. Empty
     * also for the caller that takes on a due renewal: it verifies the password and {@link #put}s
     * the credential again.
     */
    Optional<UsersCollection.User> get(Key key, long usersVersion) {
        Verified v = find(key, usersVersion);
        return v == null || takeRenewal(v) ? Optional.empty() : Optional.of(v.user);
    }

    /** The live verification of this credential, while fresh and while no user has changed; else null. */
    Verified find(Key key, long usersVersion) {
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
        entries.put(key, new Verified(user, usersVersion, now, ttlNanos));
    }

    int size() {
        return entries.size();
    }
}
