package dev.weft.query;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What a query derives from its own immutable shape (a filter's required literals, the paths it
 * reads) kept across requests, so that a query asked again is not derived again. Keys are
 * values (records, strings, sets) equal exactly when the derivation is; values are immutable and
 * safe to share between threads. At most {@code maxEntries}: past that it starts over, so a
 * flood of distinct queries only costs deriving again (as the regex cache, {@link Regexes}).
 * Callers keep only small keys ({@link #SMALL_KEY_CHARS}), so that a memo holds at most about
 * {@code maxEntries} × a few KB however large the filters clients send.
 */
public final class BoundedMemo<K, V> {
    /** Longest key, in characters of the strings it holds, that a caller keeps. */
    public static final int SMALL_KEY_CHARS = 2048;

    private final ConcurrentHashMap<K, V> entries = new ConcurrentHashMap<>();
    private final int maxEntries;

    public BoundedMemo(int maxEntries) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries must be positive: " + maxEntries);
        }
        this.maxEntries = maxEntries;
    }

    /** The value derived for {@code key}, derived now (outside any lock) when not kept. */
    public V get(K key, Function<K, V> derive) {
        V known = entries.get(key);
        if (known != null) {
            return known;
        }
        V made = derive.apply(key);
        if (made != null) {
            if (entries.size() >= maxEntries) {
                entries.clear();
            }
            entries.put(key, made);
        }
        return made;
    }

    /**
     * As {@link #get(Object, Function)} for a key holding {@code keyChars} characters: kept only
     * when that is at most {@link #SMALL_KEY_CHARS}, else derived each time.
     */
    public V get(K key, int keyChars, Function<K, V> derive) {
        return keyChars <= SMALL_KEY_CHARS ? get(key, derive) : derive.apply(key);
    }

    /** Entries kept now (for tests of the bound). */
    int size() {
        return entries.size();
    }
}
