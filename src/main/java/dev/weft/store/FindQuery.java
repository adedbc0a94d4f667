package dev.weft.store;

import dev.weft.query.Filter;
import dev.weft.query.Sort;
import java.util.Optional;

/**
 * A planned read: filter, sort, how many matches to skip and return, and an optional index name
 * to force ({@code hint}). {@code limit} is finite for pages; streaming exports pass
 * {@link Long#MAX_VALUE}.
 */
public record FindQuery(Filter filter, Sort sort, long skip, long limit, Optional<String> hint) {}
