package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The index terms of ASCII words of one language learnt so far, packed so that a word is found by
 * its bytes where they lie in a text ({@link TextTokens#addTerms}) with two memory reads: a
 * slot of a hash table (the word's String hash and where its entry is) and the entry, the word's
 * bytes followed by its term's. Analysing a document was mostly finding the terms of its words
 * in a map of Strings: a String made of each word, then the map's node, key and value, each a
 * read from memory that the rest of a request's work had pushed out of the processor's caches.
 *
 * <p>A published {@link Table} never changes: a word not found is derived by the caller and
 * learnt here ({@link #learn}); once words were learnt a 32nd of the table's size times (or 32)
 * since it was made, one thread adds them to a copy of it, which replaces it. A word learnt while
 * a copy is made may be left out of it: it is derived again when next met. So a lookup answers a
 * word's term or nothing, never another word's.
 *
 * <p>The slots are twice as many as the words, rounded up to a power of two (at least
 * {@link #MIN_SLOTS}): a lookup's slot is a cache miss, and a vocabulary of some thousands of
 * words then keeps its slots in a few hundred KiB rather than the megabyte of the most words.
 *
 * <p>Bounded: at most {@link #MAX_WORDS} words of at most {@link #MAX_WORD_BYTES} bytes, with
 * ASCII terms as short (a table that would hold more starts over with the words learnt since),
 * each found within {@link #MAX_PROBES} slots of its own: about 7 MiB at most per language.
 */
final class AsciiTerms {
    static final int MAX_WORDS = 1 << 16;
    static final int MAX_WORD_BYTES = 40;
    private static final int MAX_SLOTS = MAX_WORDS * 2;
    private static final int MIN_SLOTS = 1024;
    private static final int MAX_PROBES = 32;

    /**
     * {@code slots}: per slot, the word's String hash (high 32 bits) and its entry's offset in
     * {@code entries} plus one (low 32 bits; 0: empty); their number is a power of two. An entry
     * is the word's length, its bytes, its term's length (0: a stop word) and its term's bytes.
     */
    private record Table(long[] slots, byte[] entries, int used, int words) {}

    private static final Table EMPTY = new Table(new long[0], new byte[0], 0, 0);

    private volatile Table table = EMPTY;
    /** Words met and not found since the table was made, with their terms ("" for a stop word). */
    private final Map<String, String> learnt = new ConcurrentHashMap<>();
    /** Words learnt since the table was made, each time one is (a word met again before the next table counts again). */
    private final AtomicInteger misses = new AtomicInteger();
    private final ReentrantLock copying = new ReentrantLock();

    /**
     * Adds the term of the word {@code text[start, end)} (ASCII; {@code hash} its String hash) to
     * {@code into} (nothing for a stop word); false, having added nothing, when the word is not known.
     */
    boolean add(byte[] text, int start, int end, int hash, TermsText into) {
        Table t = table;
        if (t.words == 0 || end - start > MAX_WORD_BYTES) {
            return false;
        }
        long[] slots = t.slots;
        byte[] entries = t.entries;
        int length = end - start;
        int mask = slots.length - 1;
        for (int probe = 0, i = slot(hash) & mask; probe < MAX_PROBES; probe++, i = (i + 1) & mask) {
            long slot = slots[i];
            if (slot == 0) {
                return false;
            }
            int at = (int) slot - 1;
            if ((int) (slot >>> 32) == hash && entries[at] == length && same(entries, at + 1, text, start, length)) {
                int term = at + 1 + length;
                if (entries[term] > 0) {
                    into.addPlain(entries, term + 1, term + 1 + entries[term]);
                }
                return true;
            }
        }
        return false;
    }

    /** Whether {@code a[from, from + length)} and {@code b[start, start + length)} hold the same bytes (words are short: a loop beats a vector compare's set-up). */
    private static boolean same(byte[] a, int from, byte[] b, int start, int length) {
        for (int k = 0; k < length; k++) {
            if (a[from + k] != b[start + k]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Remembers {@code word}'s {@code term} (null: a stop word) for a next table; a word or term
     * not kept here is left out, as is a term that JSON would escape ({@link TermsText#addPlain}).
     */
    void learn(String word, String term) {
        String kept = term == null ? "" : term;
        if (word.length() > MAX_WORD_BYTES || kept.length() > MAX_WORD_BYTES || !ascii(word) || !ascii(kept)
                || !TermsText.jsonPlain(kept)) {
            return;
        }
        learnt.put(word, kept);
        if (misses.incrementAndGet() >= Math.max(32, table.words / 32) && copying.tryLock()) {
            try {
                misses.set(0);
                table = withLearnt(table);
            } finally {
                copying.unlock();
            }
        }
    }

    /** {@code old} and the words learnt since (or those alone, once {@code old} is full), the learnt words forgotten. */
    private Table withLearnt(Table old) {
        Map<String, String> adding = Map.copyOf(learnt);
        adding.keySet().forEach(learnt::remove);
        boolean startOver = old.words + adding.size() > MAX_WORDS;
        int words = startOver ? 0 : old.words;
        long[] slots = new long[slotsFor(words + adding.size())];
        if (words > 0) {
            for (long slot : old.slots) {
                if (slot != 0) {
                    slots[emptySlot(slots, (int) (slot >>> 32))] = slot; // the old table's words are distinct
                }
            }
        }
        int need = (startOver ? 0 : old.used) + adding.entrySet().stream().mapToInt(e -> e.getKey().length() + e.getValue().length() + 2).sum();
        byte[] entries = Arrays.copyOf(startOver ? new byte[0] : old.entries, Math.max(need, 1024));
        int used = startOver ? 0 : old.used;
        for (Map.Entry<String, String> e : adding.entrySet()) {
            byte[] word = e.getKey().getBytes(StandardCharsets.US_ASCII);
            int free = freeSlot(slots, entries, word);
            if (free < 0) {
                continue;
            }
            byte[] term = e.getValue().getBytes(StandardCharsets.US_ASCII);
            slots[free] = ((long) e.getKey().hashCode() << 32) | (used + 1L);
            entries[used++] = (byte) word.length;
            System.arraycopy(word, 0, entries, used, word.length);
            used += word.length;
            entries[used++] = (byte) term.length;
            System.arraycopy(term, 0, entries, used, term.length);
            used += term.length;
            words++;
        }
        return new Table(slots, entries, used, words);
    }

    /** The slots of a table of {@code words}: twice as many, a power of two, between {@link #MIN_SLOTS} and {@link #MAX_SLOTS}. */
    static int slotsFor(int words) {
        return Math.clamp(Integer.highestOneBit(Math.max(1, words * 2 - 1)) * 2L, MIN_SLOTS, MAX_SLOTS);
    }

    /** The first empty slot from {@code hash}'s own (the table has at least twice as many slots as words, so one is free). */
    private static int emptySlot(long[] slots, int hash) {
        int mask = slots.length - 1;
        int i = slot(hash) & mask;
        while (slots[i] != 0) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** The slot {@code word} goes in, or -1 when it is there already or its slots are taken. */
    private static int freeSlot(long[] slots, byte[] entries, byte[] word) {
        int hash = new String(word, StandardCharsets.US_ASCII).hashCode();
        int mask = slots.length - 1;
        for (int probe = 0, i = slot(hash) & mask; probe < MAX_PROBES; probe++, i = (i + 1) & mask) {
            long slot = slots[i];
            if (slot == 0) {
                return i;
            }
            int at = (int) slot - 1;
            if (entries[at] == word.length && Arrays.equals(entries, at + 1, at + 1 + word.length, word, 0, word.length)) {
                return -1;
            }
        }
        return -1;
    }

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** A word's first slot in a table of {@link #MAX_SLOTS} slots (masked to a smaller table's). */
    private static int slot(int hash) {
        int h = hash * 0x9E3779B9;
        return (h ^ (h >>> 15)) & (MAX_SLOTS - 1);
    }
}
