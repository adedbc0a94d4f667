package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Terms joined by single spaces, built as their UTF-8 bytes: what {@link TextIndex#termsByWeight}
 * gives a store for one weight class. The terms of ASCII words are copied as bytes from where
 * {@link AsciiTerms} keeps them, a term at a time rather than a character at a time.
 *
 * <p>It also knows whether its text is JSON-plain ({@link #jsonPlain}): no character that a JSON
 * string escapes (a quote, a backslash, a control character). Terms are letters, digits, marks
 * and apostrophes, so it always is; a store that writes the terms into JSON text skips its own
 * check of every character when it is told so.
 */
final class TermsText {
    /** Empty until the first {@link #reserve} or term: then as long as the first text's bytes (its terms are fewer), doubled as it grows. */
    private byte[] bytes = new byte[0];
    private int length;
    private boolean jsonPlain = true;

    /** Appends {@code term}, after a space unless it is the first. */
    void add(String term) {
        jsonPlain &= jsonPlain(term);
        byte[] utf8 = term.getBytes(StandardCharsets.UTF_8);
        addPlain(utf8, 0, utf8.length);
    }

    /**
     * Appends the term whose UTF-8 bytes are {@code from[start, end)}, after a space unless it is
     * the first: bytes JSON holds as they are (the caller's word, as {@link AsciiTerms} keeps only
     * such terms; the text's {@link #jsonPlain} is not changed).
     */
    void addPlain(byte[] from, int start, int end) {
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

    /** Whether the text holds no character that a JSON string escapes ({@code "}, {@code \\}, below U+0020). */
    boolean jsonPlain() {
        return jsonPlain;
    }

    /** Whether {@code s} holds no character that a JSON string escapes. */
    static boolean jsonPlain(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }
}
