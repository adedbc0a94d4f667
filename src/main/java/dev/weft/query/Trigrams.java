package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;

/**
 * The keys of a trigram index and the lookups that answer a regex from it (Russ Cox, "Regular
 * Expression Matching with a Trigram Index"). A document's keys are the trigrams (three
 * consecutive code points, each lower-cased on its own by {@link Character#toLowerCase(int)})
 * of the strings it holds at the indexed path, array elements included. A query is an AND/OR of
 * trigrams: every literal a match must contain ({@link Filter#requiredStrings}) needs all of its
 * trigrams. Lower-casing each code point maps a substring to a substring, so an exact literal's
 * trigrams are keys of every string containing it, and an ASCII case-insensitive literal's too
 * (such literals leave out k and s, whose folds leave ASCII).
 *
 * <p>A document whose strings hold more than {@link #MAX_KEYS_PER_DOCUMENT} trigrams gets the one
 * key {@link #OVERFLOW} instead, and is a candidate for every lookup: so a long text costs one
 * row, not one per trigram.
 */
public final class Trigrams {
    /** The key of a document with too many trigrams to index: a candidate of every query. */
    public static final byte[] OVERFLOW = {0};
    /** Most trigram rows one document adds to one index (as {@link KeyEncoding}'s bound on keys). */
    public static final int MAX_KEYS_PER_DOCUMENT = 10_000;
    /** Trigrams taken from one literal (an AND keeps sound with fewer: it only admits more). */
    static final int MAX_PER_LITERAL = 6;
    /** Trigrams in one lookup; a larger OR says nothing. */
    static final int MAX_PER_QUERY = 24;

    private Trigrams() {}

    /** A lookup in a trigram index: documents holding the trigram, or an AND / OR of lookups. */
    public sealed interface Query {
        /** The trigrams it names, in order of appearance (one SQL parameter each). */
        default int size() {
            return switch (this) {
                case Gram g -> 1;
                case All a -> a.parts().stream().mapToInt(Query::size).sum();
                case Any a -> a.parts().stream().mapToInt(Query::size).sum();
            };
        }
    }

    public record Gram(byte[] key) implements Query {
        @Override
        public boolean equals(Object o) {
            return o instanceof Gram g && Arrays.equals(key, g.key);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(key);
        }

        @Override
        public String toString() {
            return new String(key, StandardCharsets.UTF_8);
        }
    }

    public record All(List<Query> parts) implements Query {}

    public record Any(List<Query> parts) implements Query {}

    /** The distinct trigram keys of the strings {@code doc} holds at {@code path}, or {@link #OVERFLOW}. */
    public static TreeSet<byte[]> keys(JsonNode doc, String path) {
        int maxKeys = MAX_KEYS_PER_DOCUMENT;
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        boolean[] overflow = {false};
        Path.of(path).walk(doc, leaf -> {
            if (leaf != null && leaf.isArray()) {
                for (JsonNode element : leaf) {
                    overflow[0] |= add(element, keys, maxKeys);
                }
            } else {
                overflow[0] |= add(leaf, keys, maxKeys);
            }
            return overflow[0];
        });
        if (overflow[0]) {
            keys.clear();
            keys.add(OVERFLOW);
        }
        return keys;
    }

    /**
     * What a trigram index holds of one document: its strings at the path (array elements
     * included), each folded as the keys are and joined by {@link #SEPARATOR}, for a store that
     * cuts the trigrams itself (SQLite's FTS5 {@code trigram} tokenizer, PostgreSQL's
     * {@code pg_trgm}); or {@link Indexed#overflow()} past {@link #MAX_KEYS_PER_DOCUMENT}
     * distinct trigrams; or null when it holds no string of three characters or more.
     */
    public static Indexed indexed(JsonNode doc, String path) {
        StringBuilder text = new StringBuilder(128);
        long[] grams = {0};
        PATHS.get(path, path.length(), Path::of).walk(doc, leaf -> {
            if (leaf != null && leaf.isArray()) {
                for (JsonNode element : leaf) {
                    append(element, text, grams);
                }
            } else {
                append(leaf, text, grams);
            }
            return false;
        });
        if (text.isEmpty()) {
            return null;
        }
        if (grams[0] > MAX_KEYS_PER_DOCUMENT && distinctOver(text.toString(), MAX_KEYS_PER_DOCUMENT)) {
            return Indexed.OVERFLOW_DOCUMENT;
        }
        return new Indexed(text.toString());
    }

    /**
     * Between two strings of one document in its {@link #indexed} text. The trigrams that span it
     * are not any string's: they can only make a document a candidate for a literal holding a
     * line feed, and the regex then rejects it.
     */
    public static final char SEPARATOR = '\n';

    /** A document's text in a trigram index; a null text is {@link #overflow()}. */
    public record Indexed(String text) {
        static final Indexed OVERFLOW_DOCUMENT = new Indexed(null);

        /** Too many distinct trigrams to index: a candidate of every lookup. */
        public boolean overflow() {
            return text == null;
        }
    }

    /** Most indexed paths kept parsed (one per trigram index in use). */
    static final int MAX_PATHS = 256;
    /** The indexed paths of {@link #indexed}, parsed once (an index's path is a few words). */
    private static final BoundedMemo<String, Path> PATHS = new BoundedMemo<>(MAX_PATHS);

    /**
     * Appends a string of three code points or more, folded; counts its trigrams in {@code grams[0]}.
     * An ASCII string (a URL, most keys) is folded char by char, or copied whole when it holds no
     * upper case letter: {@link Character#toLowerCase(int)} of an ASCII char is that char, A-Z
     * moved to a-z, so the text is the same as the code point path's.
     */
    private static void append(JsonNode value, StringBuilder text, long[] grams) {
        if (value == null || !value.isString()) {
            return;
        }
        String s = value.stringValue();
        int len = s.length();
        int firstToFold = 0;
        while (firstToFold < len && s.charAt(firstToFold) < 0x80 && !isAsciiUpper(s.charAt(firstToFold))) {
            firstToFold++;
        }
        if (firstToFold == len || nonAsciiFrom(s, firstToFold) == len) {
            if (len < 3) {
                return;
            }
            separate(text);
            text.append(s, 0, firstToFold);
            for (int i = firstToFold; i < len; i++) {
                char c = s.charAt(i);
                text.append(isAsciiUpper(c) ? (char) (c + ('a' - 'A')) : c);
            }
            grams[0] += len - 2;
            return;
        }
        int n = s.codePointCount(0, len);
        if (n < 3) {
            return;
        }
        separate(text);
        s.codePoints().forEach(cp -> text.appendCodePoint(Character.toLowerCase(cp)));
        grams[0] += n - 2;
    }

    private static boolean isAsciiUpper(char c) {
        return c >= 'A' && c <= 'Z';
    }

    /** The index of the first char at or after {@code from} that is not ASCII, or the length. */
    private static int nonAsciiFrom(String s, int from) {
        int i = from;
        while (i < s.length() && s.charAt(i) < 0x80) {
            i++;
        }
        return i;
    }

    private static void separate(StringBuilder text) {
        if (!text.isEmpty()) {
            text.append(SEPARATOR);
        }
    }

    /**
     * Whether the strings of {@code text} (cut at {@link #SEPARATOR}) hold more than {@code max}
     * distinct trigrams. A string's own line feeds cut it too: the bound may then be passed by a
     * few trigrams, which changes what the index holds, never an answer.
     */
    private static boolean distinctOver(String text, int max) {
        java.util.HashSet<Long> seen = new java.util.HashSet<>();
        for (String s : text.split(String.valueOf(SEPARATOR), -1)) {
            int[] cps = s.codePoints().toArray();
            for (int i = 0; i + 3 <= cps.length; i++) {
                // three code points of 21 bits each fit one long
                if (seen.add(((long) cps[i] << 42) | ((long) cps[i + 1] << 21) | cps[i + 2]) && seen.size() > max) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Adds the trigrams of a string value; true once there are more than {@code maxKeys}. */
    private static boolean add(JsonNode value, TreeSet<byte[]> keys, int maxKeys) {
        if (value == null || !value.isString()) {
            return false;
        }
        int[] cps = folded(value.stringValue());
        for (int i = 0; i + 3 <= cps.length; i++) {
            keys.add(gram(cps, i));
            if (keys.size() > maxKeys) {
                return true;
            }
        }
        return false;
    }

    private static int[] folded(String s) {
        return s.codePoints().map(Character::toLowerCase).toArray();
    }

    private static byte[] gram(int[] cps, int at) {
        return new String(cps, at, 3).getBytes(StandardCharsets.UTF_8);
    }

    /** The lookup that finds every document {@code filter} can match, or null when its regexes on {@code path} require nothing. */
    public static Query query(Filter filter, String path) {
        TextCondition required = filter.requiredStrings(path);
        return LOOKUPS.get(required, required.literals() * TextCondition.MAX_LITERAL_CHARS, Trigrams::lookup).orElse(null);
    }

    /** Most conditions whose lookups are kept; past it they are cut into trigrams again. */
    static final int MAX_LOOKUPS = 1024;
    /** The lookup of each condition asked for before (a query is immutable): cut once, not per request. */
    private static final BoundedMemo<TextCondition, Optional<Query>> LOOKUPS = new BoundedMemo<>(MAX_LOOKUPS);

    private static Optional<Query> lookup(TextCondition required) {
        Query q = of(required);
        return Optional.ofNullable(q != null && q.size() > MAX_PER_QUERY ? bounded(q) : q);
    }

    /** Null means "says nothing". */
    static Query of(TextCondition c) {
        return switch (c) {
            case TextCondition.Always a -> null;
            case TextCondition.Contains t -> literal(t.text());
            case TextCondition.AllOf a -> {
                List<Query> parts = new ArrayList<>();
                for (TextCondition part : a.all()) {
                    Query q = of(part);
                    if (q != null) {
                        parts.add(q);
                    }
                }
                yield all(parts);
            }
            case TextCondition.AnyOf o -> {
                List<Query> parts = new ArrayList<>();
                for (TextCondition part : o.any()) {
                    Query q = of(part);
                    if (q == null) {
                        yield null;
                    }
                    parts.add(q);
                }
                yield parts.size() == 1 ? parts.getFirst() : new Any(List.copyOf(parts));
            }
        };
    }

    /** All trigrams of the literal (spread over it when there are many), or null when it is shorter than one. */
    private static Query literal(String text) {
        int[] cps = folded(text);
        int n = cps.length - 2;
        if (n <= 0) {
            return null;
        }
        List<Query> grams = new ArrayList<>();
        int take = Math.min(n, MAX_PER_LITERAL);
        for (int k = 0; k < take; k++) {
            Gram g = new Gram(gram(cps, take == 1 ? 0 : (int) ((long) k * (n - 1) / (take - 1))));
            if (!grams.contains(g)) {
                grams.add(g);
            }
        }
        return all(grams);
    }

    private static Query all(List<Query> parts) {
        List<Query> flat = new ArrayList<>();
        for (Query p : parts) {
            if (p instanceof All a) {
                flat.addAll(a.parts());
            } else {
                flat.add(p);
            }
        }
        return flat.isEmpty() ? null : flat.size() == 1 ? flat.getFirst() : new All(List.copyOf(flat));
    }

    /** Within {@link #MAX_PER_QUERY} trigrams: an AND keeps its first parts, anything else too large says nothing. */
    private static Query bounded(Query q) {
        if (!(q instanceof All a)) {
            return null;
        }
        List<Query> kept = new ArrayList<>();
        int left = MAX_PER_QUERY;
        for (Query part : a.parts()) {
            if (part.size() <= left) {
                kept.add(part);
                left -= part.size();
            }
        }
        return all(kept);
    }
}
