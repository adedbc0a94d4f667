package dev.weft.security;

import java.security.SecureRandom;

/**
 * SipHash-2-4 with a 128-bit output (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012; the reference implementation's {@code vectors_sip128} are its test): a keyed
 * pseudorandom function made for short messages, here the text of a Basic credential. It keys
 * the {@link CredentialCache}: without the key, which is random per instance and never leaves
 * the process, nobody can make a credential whose digest equals a remembered one (each try has
 * a 2^-128 chance), and a digest does not give its credential back.
 *
 * <p>Why not HMAC-SHA256: the digest is taken on every authenticated request, on Jetty's selector
 * thread: for a 44-character credential the JDK's HMAC-SHA256 {@code Mac} took 280-380 ns a
 * digest in a loop on the benchmark machine, this 70-100 ns (measured for commit 57dabac). Both
 * are fast keyed digests: with a heap dump (key and digests) either lets passwords be guessed
 * offline, which is why entries live only {@code auth-cache-ttl-ms}.
 *
 * <p>The text is read in place, one char as one byte: no copy of the credential is made. Only
 * ASCII text has a digest (every Base64 credential is ASCII), so that no two texts share one.
 */
final class SipHash {
    /** A 128-bit digest, equal by value; its low half is as good a hash code as any. */
    record Digest(long low, long high) {
        @Override
        public int hashCode() {
            return Long.hashCode(low);
        }
    }

    private final long k0;
    private final long k1;

    SipHash(long k0, long k1) {
        this.k0 = k0;
        this.k1 = k1;
    }

    /** A SipHash under a fresh random 128-bit key. */
    static SipHash withRandomKey() {
        SecureRandom random = new SecureRandom();
        return new SipHash(random.nextLong(), random.nextLong());
    }

    /**
     * The digest of {@code text[from, to)} as bytes; null when a char in it is outside ASCII.
     * The eight bytes of a word are read little-endian, as the reference implementation does.
     */
    Digest ascii(String text, int from, int to) {
        State s = new State(k0, k1);
        int length = to - from;
        int wordsEnd = from + (length & ~7);
        long ored = 0;
        for (int i = from; i < wordsEnd; i += 8) {
            long m = 0;
            for (int j = 7; j >= 0; j--) {
                char c = text.charAt(i + j);
                ored |= c;
                m = (m << 8) | c;
            }
            s.absorb(m);
        }
        long last = (long) length << 56;
        for (int j = (length & 7) - 1; j >= 0; j--) {
            char c = text.charAt(wordsEnd + j);
            ored |= c;
            last |= (long) c << (8 * j);
        }
        if (ored > 0x7f) {
            return null;
        }
        s.absorb(last);
        return s.finish();
    }

    /** The four words of SipHash's state; local to one digest, so that the JIT keeps them in registers. */
    private static final class State {
        private long v0;
        private long v1;
        private long v2;
        private long v3;

        State(long k0, long k1) {
            v0 = 0x736f6d6570736575L ^ k0;
            v1 = 0x646f72616e646f6dL ^ k1 ^ 0xee; // 0xee: the 128-bit output variant
            v2 = 0x6c7967656e657261L ^ k0;
            v3 = 0x7465646279746573L ^ k1;
        }

        void absorb(long m) {
            v3 ^= m;
            round();
            round();
            v0 ^= m;
        }

        Digest finish() {
            v2 ^= 0xee;
            rounds(4);
            long low = v0 ^ v1 ^ v2 ^ v3;
            v1 ^= 0xdd;
            rounds(4);
            return new Digest(low, v0 ^ v1 ^ v2 ^ v3);
        }

        private void rounds(int n) {
            for (int i = 0; i < n; i++) {
                round();
            }
        }

        private void round() {
            v0 += v1;
            v1 = Long.rotateLeft(v1, 13) ^ v0;
            v0 = Long.rotateLeft(v0, 32);
            v2 += v3;
            v3 = Long.rotateLeft(v3, 16) ^ v2;
            v0 += v3;
            v3 = Long.rotateLeft(v3, 21) ^ v0;
            v2 += v1;
            v1 = Long.rotateLeft(v1, 17) ^ v2;
            v2 = Long.rotateLeft(v2, 32);
        }
    }
}
