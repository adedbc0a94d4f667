package dev.weft.aggregate;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * A blocking stage that can run as partials, one per part of a scan read in parts (each part on
 * its own thread), merged at the end into exactly what one pass over all the input would give:
 * {@code $group} (with {@code $sortByCount}) and {@code $count}.
 */
interface Mergeable extends Stage {
    /** One part's share of the stage; used by one thread. */
    interface Partial {
        /** Takes one input; {@code at} is where it stands in a one-range scan (null if {@link #ordered} is false). */
        void accept(JsonNode document, Accumulators.Position at);
    }

    /**
     * Whether its result depends on the order of its input (a {@code $first}, a {@code $push},
     * which of {@code 1} and {@code 1.0} names a group): partials then need each input's
     * {@link Accumulators.Position}, and the input must be in the scan's natural order, not sorted.
     */
    boolean ordered();

    Partial partial(Run run, MemoryBudget budget);

    /** Merges {@code partials} (any order) and hands the results to {@code next}, then finishes it. */
    void emit(List<Partial> partials, Sink next, Run run);
}
