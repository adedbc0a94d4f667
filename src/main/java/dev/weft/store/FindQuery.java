package dev.weft.store;

import dev.weft.query.Filter;
import dev.weft.query.Sort;
import java.util.Optional;

/**
 * A planned read: filter, sort, how many matches to skip and return, and an optional index name
 * to force ({@code hint}). {@code limit} is finite for pages; streaming exports pass
 * {@link Long#MAX_VALUE}. Missing parts take their defaults here, once, for every store: no
 * filter matches everything ({@link Filter#all()}, which stores recognise to skip parsing), no
 * or an empty sort is {@code {_id:-1}}, a negative skip is 0.
 */
public record FindQuery(Filter filter, Sort sort, long skip, long limit, Optional<String> hint) {
    public FindQuery {
        filter = filter == null ? Filter.all() : filter;
        sort = sort == null || sort.fields().isEmpty() ? Sort.ID_DESCENDING : sort;
        skip = Math.max(0, skip);
        hint = hint == null ? Optional.empty() : hint;
    }
}
