package dev.weft.http;

import dev.weft.core.ReadMode;
import dev.weft.security.DocumentAccess;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.Store;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A read of one document by id under the request's {@link DocumentAccess}: a document outside the
 * read filter is as missing as one that does not exist, and one that is found is shown as the
 * principal may see it, with the etag of what is stored.
 */
final class GetPlan {
    private final Store store;
    private final Namespace ns;
    private final JsonNode id;
    private final DocumentAccess.View view;
    private final ReadMode readMode;

    private GetPlan(Store store, Namespace ns, JsonNode id, DocumentAccess.View view, ReadMode readMode) {
        this.store = store;
        this.ns = ns;
        this.id = id;
        this.view = view;
        this.readMode = readMode;
    }

    static GetPlan of(Exchange ex, Api api, Namespace ns, JsonNode id) {
        return new GetPlan(api.store(), ns, id, ReadParams.view(ex, api, ex.context().access(ns)), api.readMode(ex, ns));
    }

    /** The document as the principal may see it, with its etag; empty when missing or not readable. */
    Optional<ResultCache.Answer> execute() {
        Optional<StoredDocument> doc = store.get(ns, id, readMode);
        if (doc.isEmpty()) {
            return Optional.empty();
        }
        byte[] stored = doc.get().json();
        return view.byId(stored).map(shown -> new ResultCache.Answer(shown, Etags.of(stored)));
    }
}
