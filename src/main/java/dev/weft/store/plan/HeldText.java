package dev.weft.store.plan;

import dev.weft.query.Filter;
import dev.weft.query.TextCondition;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A filter's {@link TextCondition} tested in Java on a stored body held in memory as a
 * {@link StandardCharsets#ISO_8859_1} string of its UTF-8 bytes (one char per byte, so
 * {@link String#indexOf(String)}, which the JVM vectorises, is a byte search): what
 * {@link TextPrefilter} asks SQL, for rows a store keeps in memory. Like it, only ever a necessary
 * condition: a literal's bytes occur in the body (ignoring case: Java's case folding of each
 * byte as a Latin-1 char, which folds at least the ASCII letters SQLite's {@code LIKE} folds, so
 * no row {@code LIKE} lets through is refused here).
 */
public sealed interface HeldText {
    /** Whether the body, whose {@link #sketch} is {@code sketch}, may match. */
    boolean mayMatch(String body, long[] sketch);

    /**
     * Whether every body this test lets through passed a test of its {@link #sketch} first (so most
     * bodies cost a few bit tests): false where a case-insensitive literal alone decides.
     */
    boolean sketched();

    /** Longs of a body's {@link #sketch}: 1,024 bits. */
    int SKETCH_LONGS = 16;

    /**
     * The trigrams of a held body as a one-hash Bloom filter of {@link #SKETCH_LONGS} longs: a
     * literal whose trigrams are not all in it does not occur in the body, so most bodies are
     * refused with a few bit tests before any search of their text (a 470 B body sets about a
     * third of the bits, so a literal of two trigrams passes about one body in ten it is not in).
     */
    static long[] sketch(String body) {
        long[] bits = new long[SKETCH_LONGS];
        for (int i = 0, last = body.length() - 3; i <= last; i++) {
            int bit = gram(body.charAt(i), body.charAt(i + 1), body.charAt(i + 2));
            bits[bit >>> 6] |= 1L << bit;
        }
        return bits;
    }

    private static int gram(char a, char b, char c) {
        return ((a << 16 | b << 8 | c) * 0x9E3779B1) >>> 22; // chars of a Latin-1 string are bytes
    }

    /** The sketch bits every body holding {@code bytes} has set. */
    private static int[] gramBits(String bytes) {
        int[] bits = new int[Math.max(0, bytes.length() - 2)];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = gram(bytes.charAt(i), bytes.charAt(i + 1), bytes.charAt(i + 2));
        }
        return bits;
    }

    /** The test of {@code filter}'s required text; {@link #ANY} when it requires none. */
    static HeldText of(Filter filter) {
        return filter == null ? ANY : of(filter.requiredText().bounded(TextCondition.MAX_LITERALS));
    }

    /** Every body may match. */
    HeldText ANY = new Any();

    /** Whether {@code filter} requires some text (so testing it can skip rows). */
    static boolean requiresText(Filter filter) {
        return !(of(filter) instanceof Any);
    }

    private static HeldText of(TextCondition c) {
        return switch (c) {
            case TextCondition.Always a -> ANY;
            case TextCondition.Contains t -> Contains.of(latin(t.text()), t.ignoreCase());
            case TextCondition.AllOf a -> new Combined(a.all().stream().map(HeldText::of).toList(), true);
            case TextCondition.AnyOf o -> new Combined(o.any().stream().map(HeldText::of).toList(), false);
        };
    }

    /** The UTF-8 bytes of {@code text}, one char per byte. */
    static String latin(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    record Any() implements HeldText {
        @Override
        public boolean sketched() {
            return false;
        }

        @Override
        public boolean mayMatch(String body, long[] sketch) {
            return true;
        }
    }

    /** {@code grams}: the sketch bits of {@code bytes}' trigrams (none when {@code ignoreCase}: the sketch holds one case). */
    record Contains(String bytes, boolean ignoreCase, int[] grams) implements HeldText {
        static Contains of(String bytes, boolean ignoreCase) {
            return new Contains(bytes, ignoreCase, ignoreCase ? new int[0] : gramBits(bytes));
        }

        @Override
        public boolean sketched() {
            return grams.length > 0;
        }

        @Override
        public boolean mayMatch(String body, long[] sketch) {
            for (int bit : grams) {
                if ((sketch[bit >>> 6] & 1L << bit) == 0) {
                    return false;
                }
            }
            if (!ignoreCase) {
                return body.contains(bytes);
            }
            for (int i = 0, last = body.length() - bytes.length(); i <= last; i++) {
                if (body.regionMatches(true, i, bytes, 0, bytes.length())) {
                    return true;
                }
            }
            return false;
        }
    }

    /** All of {@code parts} ({@code all}) or at least one of them. */
    record Combined(List<HeldText> parts, boolean all) implements HeldText {
        /** Each part (the parts are tested in order, so an unsketched one could come first). */
        @Override
        public boolean sketched() {
            return parts.stream().allMatch(HeldText::sketched);
        }

        @Override
        public boolean mayMatch(String body, long[] sketch) {
            for (HeldText t : parts) {
                if (t.mayMatch(body, sketch) != all) {
                    return !all;
                }
            }
            return all;
        }
    }
}
