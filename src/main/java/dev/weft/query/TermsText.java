package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Terms joined by single spaces, built as their UTF-8 bytes: what {@link TextIndex#termsByWeight}
 * gives a store for one weight class. The terms of ASCII words are copied as bytes from where
 * {@link AsciiTerms} keeps them, a term at a time rather than a character at a time.
 */
final class TermsText {
    private byte[] bytes = new byte[256];
    private int length;

    /** Appends {@code term}, after a space unless it is the first. */
    void add(String term) {
        byte[] utf8 = term.getBytes(StandardCharsets.UTF_8);
        add(utf8, 0, utf8.length);
    }

    /** Appends the term whose UTF-8 bytes are {@code from[start, end)}, after a space unless it is the first. */
    void add(byte[] from, int start, int end) {
        int need = length + 1 + end - start;
        if (need > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(need, bytes.length * 2));
        }
        if (length > 0) {
            bytes[length++] = ' ';
        }
        System.arraycopy(from, start, bytes, length, end - start);
        length += end - start;
    }

    /**
     * Makes room for {@code bytes} more bytes of terms (a hint: {@link #add} grows as it needs)
     * and answers the length so far, for {@link #truncate}.
     */
    int reserve(int bytes) {
        int need = length + 1 + bytes;
        if (need > this.bytes.length) {
            this.bytes = Arrays.copyOf(this.bytes, Math.max(need, this.bytes.length * 2));
        }
        return length;
    }

    /** Takes back the terms added since the length was {@code mark} ({@link #reserve}). */
    void truncate(int mark) {
        length = mark;
    }

    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }
}
