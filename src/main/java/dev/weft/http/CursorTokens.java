package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.query.SortPosition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Keyset cursor tokens: where a page ended (a {@link SortPosition}), sealed with AES-256-GCM under
 * a server key, the query's fingerprint as associated data. So a token reveals nothing (not even
 * the sort key of the last document, which a restricted reader may be unable to see), cannot be
 * altered or forged without the key, and opens only for the query it was issued for: the same
 * collection, filter, sort, hint and permission (the caller's roles and access rule). Anything
 * else is 400. The key is the {@code cursor-secret} setting when given (every node of a cluster
 * must share it), else random per process: tokens then do not survive a restart.
 *
 * <p>Sealing is on the list path of every full page, so it costs no random read and no cipher
 * lookup: a nonce is a random prefix drawn once per process (8 bytes) and a counter (4 bytes),
 * NIST SP 800-38D's deterministic construction, unique under the key as long as no two
 * processes sharing the key draw the same prefix (a new prefix is drawn when the counter wraps);
 * initialised ciphers are reused from a small pool, since every seal gives its own nonce.
 */
final class CursorTokens {
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final byte FORMAT = 1;
    /** A token longer than this is refused before any decoding. */
    static final int MAX_TOKEN_CHARS = 4096;

    private static final int COUNTER_BYTES = 4;
    /** Ciphers kept for reuse; more are made when more requests seal at once. */
    private static final int POOLED_CIPHERS = 16;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();
    private final AtomicReference<NonceSource> nonces;
    private final ArrayBlockingQueue<Cipher> ciphers = new ArrayBlockingQueue<>(POOLED_CIPHERS);

    CursorTokens(Optional<String> secret) {
        byte[] raw = new byte[32];
        if (secret.isPresent()) {
            raw = sha256(secret.get().getBytes(StandardCharsets.UTF_8));
        } else {
            random.nextBytes(raw);
        }
        this.key = new SecretKeySpec(raw, "AES");
        this.nonces = new AtomicReference<>(NonceSource.drawn(random));
    }

    /** A per-process random prefix and a counter under it: the nonce of each seal (see the class comment). */
    private record NonceSource(byte[] prefix, AtomicInteger counter) {
        static NonceSource drawn(SecureRandom random) {
            byte[] prefix = new byte[NONCE_BYTES - COUNTER_BYTES];
            random.nextBytes(prefix);
            return new NonceSource(prefix, new AtomicInteger());
        }
    }

    /** A nonce never used before under this key by this process. */
    private byte[] nextNonce() {
        while (true) {
            NonceSource source = nonces.get();
            int n = source.counter().getAndIncrement();
            if (n >= 0) { // the first 2^31 values; past them a new prefix is drawn
                byte[] nonce = Arrays.copyOf(source.prefix(), NONCE_BYTES);
                ByteBuffer.wrap(nonce, NONCE_BYTES - COUNTER_BYTES, COUNTER_BYTES).putInt(n);
                return nonce;
            }
            nonces.compareAndSet(source, NonceSource.drawn(random));
        }
    }

    /** The token of {@code position} for the query of {@code fingerprint}. */
    String seal(SortPosition position, String fingerprint) {
        ByteBuffer plain = ByteBuffer.allocate(1 + 4 + position.key().length + position.id().length);
        plain.put(FORMAT).putInt(position.key().length).put(position.key()).put(position.id());
        byte[] nonce = nextNonce();
        try {
            Cipher cipher = cipher(Cipher.ENCRYPT_MODE, nonce, fingerprint);
            byte[] sealed;
            try {
                sealed = cipher.doFinal(plain.array());
            } finally {
                ciphers.offer(cipher);
            }
            byte[] out = new byte[NONCE_BYTES + sealed.length];
            System.arraycopy(nonce, 0, out, 0, NONCE_BYTES);
            System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
            return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot seal a cursor token", e);
        }
    }

    /** The position sealed in {@code token} for the query of {@code fingerprint}; 400 for any other token. */
    SortPosition open(String token, String fingerprint) {
        if (token.length() > MAX_TOKEN_CHARS) {
            throw invalid();
        }
        byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(token.trim());
        } catch (IllegalArgumentException e) {
            throw invalid();
        }
        if (bytes.length < NONCE_BYTES + TAG_BITS / 8 + 5) {
            throw invalid();
        }
        byte[] plain;
        try {
            Cipher cipher = cipher(Cipher.DECRYPT_MODE, Arrays.copyOf(bytes, NONCE_BYTES), fingerprint);
            try {
                plain = cipher.doFinal(bytes, NONCE_BYTES, bytes.length - NONCE_BYTES);
            } finally {
                ciphers.offer(cipher);
            }
        } catch (GeneralSecurityException e) {
            throw invalid();
        }
        ByteBuffer in = ByteBuffer.wrap(plain);
        int keyLength = in.get() == FORMAT ? in.getInt() : -1;
        if (keyLength < 0 || keyLength > in.remaining()) {
            throw invalid();
        }
        byte[] sortKey = new byte[keyLength];
        in.get(sortKey);
        byte[] id = new byte[in.remaining()];
        in.get(id);
        return new SortPosition(sortKey, id);
    }

    private Cipher cipher(int mode, byte[] nonce, String fingerprint) throws GeneralSecurityException {
        Cipher pooled = ciphers.poll();
        Cipher cipher = pooled != null ? pooled : Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
        cipher.updateAAD(fingerprint.getBytes(StandardCharsets.UTF_8));
        return cipher;
    }

    private static WeftException invalid() {
        return WeftException.badRequest("after is not a cursor token of this query: it was issued for another"
                + " collection, filter, sort, hint or user, by another server key, or it was altered");
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
