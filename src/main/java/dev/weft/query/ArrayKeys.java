package dev.weft.query;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Where the first element of a large array with a given {@link EqualityKeys key} is, remembered
 * across evaluations of the same array object: for one thread that matches the same documents
 * against many filters, as the change-stream dispatcher matches one event against every class of
 * subscribers. Without it, an access rule such as {@code {readers: "@user"}} makes each subscriber
 * a class of her own, and one document with a large {@code readers} array costs a full walk of
 * the array per subscriber; with it, the second walk builds a map of the array and the others
 * look their keys up in it. The answer, and the value tests a budget is charged, are those of the
 * walk ({@link #firstIndex}): only the CPU changes.
 *
 * <p>Invariant: the arrays it remembers are not modified while remembered; the owner
 * {@link #forget}s them before its documents change or go (the dispatcher: after each event).
 * Not thread-safe. {@link #NONE} remembers nothing and is shared.
 */
public final class ArrayKeys {
    /** Arrays shorter than this are walked by the caller: walking them costs less than mapping them. */
    static final int REMEMBERED_SIZE = 64;

    /** Remembers nothing: every call walks the array. */
    static final ArrayKeys NONE = new ArrayKeys(false);

    private final boolean remembers;
    /** Arrays walked once (no map yet), and those walked twice, by their elements' first positions. */
    private final Map<JsonNode, Map<Object, Integer>> seen = new IdentityHashMap<>();
    /** Arrays read whole (walked or mapped) so far: what the remembering saves is counted by it. */
    private long reads;

    private ArrayKeys(boolean remembers) {
        this.remembers = remembers;
    }

    /** Remembers arrays until {@link #forget}. */
    public static ArrayKeys remembering() {
        return new ArrayKeys(true);
    }

    /** Arrays read whole so far (a walk or a map of one). */
    long reads() {
        return reads;
    }

    /** Forgets every array: before the documents they belong to change or are dropped. */
    public void forget() {
        seen.clear();
    }

    /** Whether {@link #firstIndex} is to answer for {@code array} (else the caller walks it itself). */
    boolean remembers(JsonNode array) {
        return remembers && array.size() >= REMEMBERED_SIZE;
    }

    /**
     * The position of the first element of {@code array} whose key is one of {@code keys}, or -1;
     * an element without a key never counts (it equals no keyed value). The first time an array
     * is met it is walked; the second time a map of it is built.
     */
    int firstIndex(JsonNode array, Set<Object> keys) {
        Map<Object, Integer> positions = seen.get(array);
        if (positions == null) {
            reads++;
            if (!seen.containsKey(array)) {
                seen.put(array, null);
                return walk(array, keys);
            }
            positions = positions(array);
            seen.put(array, positions);
        }
        int first = -1;
        for (Object key : keys) {
            Integer at = positions.get(key);
            if (at != null && (first < 0 || at < first)) {
                first = at;
            }
        }
        return first;
    }

    private static int walk(JsonNode array, Set<Object> keys) {
        for (int i = 0; i < array.size(); i++) {
            Object key = EqualityKeys.of(array.get(i));
            if (key != null && keys.contains(key)) {
                return i;
            }
        }
        return -1;
    }

    private static Map<Object, Integer> positions(JsonNode array) {
        Map<Object, Integer> positions = new HashMap<>(array.size() * 2);
        for (int i = 0; i < array.size(); i++) {
            Object key = EqualityKeys.of(array.get(i));
            if (key != null) {
                positions.putIfAbsent(key, i);
            }
        }
        return positions;
    }
}
