package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
        Query q = of(filter.requiredStrings(path));
        return q != null && q.size() > MAX_PER_QUERY ? bounded(q) : q;
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
