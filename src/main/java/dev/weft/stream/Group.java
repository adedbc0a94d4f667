package dev.weft.stream;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * The live subscribers of one collection: those whose filter has a usable equality are indexed
 * by it (path, then value key), the others are scanned. So an event meets only the subscribers
 * whose value it carries, plus those with no usable equality: matching is not O(subscribers).
 * Guarded by {@link LiveIndex}'s lock; walked in place, without copying, by the dispatcher (a
 * subscriber cut off meanwhile leaves only after the walk).
 */
final class Group {
    private final Set<Subscriber> scan = new LinkedHashSet<>();
    private final Map<String, Map<String, Set<Subscriber>>> byEquality = new HashMap<>();

    void add(Subscriber s) {
        StreamQuery q = s.query();
        if (q.index().isPresent()) {
            StreamQuery.Equality eq = q.index().get();
            byEquality.computeIfAbsent(eq.path(), p -> new HashMap<>())
                    .computeIfAbsent(eq.key(), k -> new LinkedHashSet<>()).add(s);
        } else {
            scan.add(s);
        }
    }

    void remove(Subscriber s) {
        StreamQuery q = s.query();
        if (q.index().isEmpty()) {
            scan.remove(s);
            return;
        }
        StreamQuery.Equality eq = q.index().get();
        Map<String, Set<Subscriber>> byKey = byEquality.get(eq.path());
        Set<Subscriber> subs = byKey == null ? null : byKey.get(eq.key());
        if (subs != null && subs.remove(s) && subs.isEmpty()) {
            byKey.remove(eq.key());
            if (byKey.isEmpty()) {
                byEquality.remove(eq.path());
            }
        }
    }

    boolean isEmpty() {
        return scan.isEmpty() && byEquality.isEmpty();
    }

    /**
     * Every subscriber {@code v} may go to, each once: the scanned ones, and the indexed ones
     * under a value the document has at their path, before or after the change (all of them
     * for a drop, which has no document).
     */
    void candidates(EventView v, Consumer<Subscriber> consider) {
        scan.forEach(consider);
        if (byEquality.isEmpty()) {
            return;
        }
        byEquality.forEach((path, byKey) -> {
            if (v.isDrop()) {
                byKey.values().forEach(subs -> subs.forEach(consider));
                return;
            }
            indexedAt(byKey, v.after(), path, v.event.seq(), consider);
            indexedAt(byKey, v.before(), path, v.event.seq(), consider);
        });
    }

    private static void indexedAt(Map<String, Set<Subscriber>> byKey, JsonNode doc, String path, long seq,
                                  Consumer<Subscriber> consider) {
        if (doc == null) {
            return;
        }
        for (String key : Keys.at(doc, path)) {
            Set<Subscriber> subs = byKey.get(key);
            if (subs != null) {
                for (Subscriber s : subs) {
                    if (s.firstSight(seq)) {
                        consider.accept(s);
                    }
                }
            }
        }
    }
}
