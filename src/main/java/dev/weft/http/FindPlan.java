package dev.weft.http;

import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import java.util.function.Consumer;

/**
 * A list read planned under the request's {@link dev.weft.security.DocumentAccess}: the filter is
 * already narrowed to what the principal may read and every document is handed out only as the
 * principal may see it ({@link dev.weft.security.DocumentAccess.View}). This, {@link CountPlan}
 * and {@link GetPlan} are the only ways the http layer reads documents (ReadPathsTest holds every
 * other class to that), so no endpoint can return stored documents raw.
 */
final class FindPlan {
    private final Store store;
    private final Namespace ns;
    private final ReadParams params;

    private FindPlan(Store store, Namespace ns, ReadParams params) {
        this.store = store;
        this.ns = ns;
        this.params = params;
    }

    /** The request's list parameters parsed under its access to {@code ns}. */
    static FindPlan of(Exchange ex, Api api, Namespace ns) {
        return new FindPlan(api.store(), ns, ReadParams.parse(ex, api, ns, ex.context().access(ns)));
    }

    ReadParams params() {
        return params;
    }

    /** How many documents the narrowed filter matches, ignoring pages. */
    long count() {
        return new CountPlan(store, ns, params.filter(), params.readMode()).execute();
    }

    /** The requested page, each document rendered for the principal. */
    void page(Consumer<byte[]> sink) {
        if (params.pageSize() > 0) {
            run(params.pageSize(), sink);
        }
    }

    /** Every match from the requested page on, for streaming exports. */
    void all(Consumer<byte[]> sink) {
        run(Long.MAX_VALUE, sink);
    }

    private void run(long limit, Consumer<byte[]> sink) {
        FindQuery query = new FindQuery(params.filter(), params.sort(), params.skip(), limit, params.hint());
        store.find(ns, query, params.readMode(), doc -> sink.accept(params.view().matched(doc.json())));
    }
}
