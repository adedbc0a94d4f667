package dev.weft.aggregate;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The groups of string keys found by the UTF-8 bytes of the key as stored (a string without
 * escapes), so that a stored document's key finds its group without a string made of it. Only a
 * shortcut in front of the group map, which stays the truth: a key it does not hold is looked up
 * there. Bounded so that no input can make it slow or large: at most {@link #MAX_KEYS} keys of at
 * most {@link #MAX_KEY_BYTES} bytes, a lookup probes at most {@link #MAX_PROBES} slots (keys whose
 * hashes crowd one place, made so on purpose, say, are left to the map), and the hash is seeded
 * per instance, so which keys crowd is not known in advance. What it holds is charged to the
 * memory budget.
 */
final class SpelledKeys {
    static final int MAX_KEYS = 4096;
    static final int MAX_KEY_BYTES = 128;
    static final int MAX_PROBES = 8;
    private static final int SLOTS = 2 * MAX_KEYS;

    private final byte[][] keys = new byte[SLOTS][];
    private final BlockingStages.Group.Entry[] entries = new BlockingStages.Group.Entry[SLOTS];
    private final int seed = ThreadLocalRandom.current().nextInt();
    private final MemoryBudget budget;
    private int size;

    SpelledKeys(MemoryBudget budget) {
        this.budget = budget;
    }

    /** The group of the key whose bytes are {@code b[from, to)}, or null when not held. */
    BlockingStages.Group.Entry get(byte[] b, int from, int to) {
        if (to - from > MAX_KEY_BYTES) {
            return null;
        }
        int slot = hash(b, from, to);
        for (int probe = 0; probe < MAX_PROBES; probe++, slot = (slot + 1) & (SLOTS - 1)) {
            byte[] k = keys[slot];
            if (k == null) {
                return null;
            }
            if (Arrays.equals(k, 0, k.length, b, from, to)) {
                return entries[slot];
            }
        }
        return null;
    }

    /** Holds {@code entry} as the group of the key {@code b[from, to)}, when there is room near its place. */
    void put(byte[] b, int from, int to, BlockingStages.Group.Entry entry) {
        if (to - from > MAX_KEY_BYTES || size >= MAX_KEYS) {
            return;
        }
        int slot = hash(b, from, to);
        for (int probe = 0; probe < MAX_PROBES; probe++, slot = (slot + 1) & (SLOTS - 1)) {
            if (keys[slot] == null) {
                budget.charge(to - from + 48L);
                keys[slot] = Arrays.copyOfRange(b, from, to);
                entries[slot] = entry;
                size++;
                return;
            }
        }
    }

    private int hash(byte[] b, int from, int to) {
        int h = seed;
        for (int i = from; i < to; i++) {
            h = (h ^ b[i]) * 0x01000193;
        }
        h ^= h >>> 15;
        return h & (SLOTS - 1);
    }
}
