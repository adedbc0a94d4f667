package dev.weft.query;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * What walking a large array costs and finds, remembered across evaluations of the same array
 * object: for one thread that matches the same documents against many filters, as the
 * change-stream dispatcher matches one event against every class of subscribers. Without it, an
 * access rule such as {@code {readers: "@user"}} or {@code {"readers.name": "@user"}} makes each
 * subscriber a class of her own, and one document with a large {@code readers} array costs a full
 * walk of the array per subscriber; with it, the second walk records the {@link ReachedValues
 * values reached} and the others look their keys (or their bounds) up in them.
 *
 * <p>A walk is remembered by the array and the path that remains ({@link Path#suffix}; empty for
 * the array's own elements at the end of a path): with the array, that decides every value the
 * walk reaches and every value test it counts, whatever the filter. Only tests a record can
 * decide look up ({@link ValuePredicate#firstPassing}: equality by {@link EqualityKeys keys},
 * ranges by order); the answer, and the value tests a budget is charged, are those of the walk:
 * only the CPU changes.
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

    /** Marks a walk met once: the next meeting records it. */
    private static final ReachedValues WALKED_ONCE = new ReachedValues(0);

    private final boolean remembers;
    /** Per array, per remaining path: {@link #WALKED_ONCE}, or the values the walk reaches. */
    private final Map<JsonNode, Map<String, ReachedValues>> seen = new IdentityHashMap<>();
    /** Walks read whole (walked or recorded) so far: what the remembering saves is counted by it. */
    private long reads;

    private ArrayKeys(boolean remembers) {
        this.remembers = remembers;
    }

    /** Remembers arrays until {@link #forget}. */
    public static ArrayKeys remembering() {
        return new ArrayKeys(true);
    }

    /** Walks read whole so far (a walk or a record of one). */
    long reads() {
        return reads;
    }

    /** Forgets every array: before the documents they belong to change or are dropped. */
    public void forget() {
        seen.clear();
    }

    /** Whether {@link #reached} may answer for {@code array} (else the caller walks it itself). */
    boolean remembers(JsonNode array) {
        return remembers && array.size() >= REMEMBERED_SIZE;
    }

    /**
     * The values a walk of {@code array} along {@code suffix} reaches, recorded by {@code walk}
     * (which walks with the recorder as its leaf) the second time the walk is met; empty the first
     * time, when the caller walks it itself.
     */
    Optional<ReachedValues> reached(JsonNode array, String suffix, Consumer<ReachedValues> walk) {
        Map<String, ReachedValues> walks = seen.computeIfAbsent(array, a -> new HashMap<>(4));
        ReachedValues values = walks.get(suffix);
        if (values == null || values == WALKED_ONCE) {
            reads++;
            if (values == null) {
                walks.put(suffix, WALKED_ONCE);
                return Optional.empty();
            }
            values = new ReachedValues(array.size());
            walk.accept(values);
            walks.put(suffix, values);
        }
        return Optional.of(values);
    }
}
