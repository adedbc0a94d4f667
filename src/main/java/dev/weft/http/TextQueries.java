package dev.weft.http;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.TextSearch;
import dev.weft.security.DocumentAccess;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import java.util.Optional;

/**
 * Binds a filter's {@code $text} to the collection's text index, once the filter is parsed and
 * before anything reads with it: 400 (MongoDB's words) when the collection has no text index,
 * and 403 (401 anonymous) when the index covers a field the principal's {@code projectResponse}
 * hides (a match, or the order of {@code textScore}, would tell what that field holds), as a
 * filter on that field is. A wildcard index covers every field, so it is refused to any
 * principal with a response projection.
 */
final class TextQueries {
    private TextQueries() {}

    static Filter bind(Filter filter, Api api, Namespace ns, DocumentAccess access) {
        Optional<TextSearch> search = filter.textSearch();
        if (search.isEmpty()) {
            return filter;
        }
        IndexSpec index = api.store().indexes(ns).stream().filter(IndexSpec::isText).findFirst()
                .orElseThrow(() -> WeftException.badRequest(TextSearch.NO_INDEX));
        index.text().paths().forEach(path -> access.checkReadPath("$text", path));
        search.get().bind(index.text());
        search.get().readerSeesEverything(access.eventFilter().isEmpty()); // no read rule narrows the collection
        return filter;
    }
}
