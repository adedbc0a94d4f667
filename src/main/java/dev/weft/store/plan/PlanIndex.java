package dev.weft.store.plan;

import dev.weft.query.IndexField;
import dev.weft.store.IndexSpec;
import java.util.List;

/**
 * A secondary index as the planner sees it: its definition, and whether some document has an
 * array on one of its paths (then a document may have several keys, so the index's order is not a
 * document order and its key ranges must be the multikey ones).
 */
public interface PlanIndex {
    IndexSpec spec();

    boolean multikey();

    default List<IndexField> fields() {
        return spec().fields();
    }
}
