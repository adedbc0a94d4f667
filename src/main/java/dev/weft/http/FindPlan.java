package dev.weft.http;

import dev.weft.query.SortPosition;
import dev.weft.store.FindQuery;
import dev.weft.store.MemoryOnly;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.StoredDocument;
import dev.weft.store.pages.DeepPages;
import java.util.Optional;
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
    private final ReadMemo memo;
    private final DeepPages pages;

    private FindPlan(Store store, ReadMemo memo, DeepPages pages, Namespace ns, ReadParams params) {
        this.store = store;
        this.memo = memo;
        this.pages = pages;
        this.ns = ns;
        this.params = params;
    }

    /** The request's list parameters parsed under its access to {@code ns}. */
    static FindPlan of(Exchange ex, Api api, Namespace ns) {
        return new FindPlan(api.store(), api.memo(), api.pages(), ns, ReadParams.parse(ex, api, ns, ex.context().access(ns)));
    }

    ReadParams params() {
        return params;
    }

    /** How many documents the narrowed filter matches, ignoring pages. */
    long count() {
        return new CountPlan(store, ns, params.filter(), params.readMode()).execute();
    }

    /**
     * The requested page, each document rendered for the principal; answers the cursor token of
     * the page's end (see {@link CursorTokens}) when the page is full, so more may follow, and
     * none after the last page.
     */
    Optional<String> page(Consumer<byte[]> sink, CursorTokens cursors) {
        if (params.pageSize() <= 0) {
            return Optional.empty();
        }
        StoredDocument[] last = {null};
        long[] sent = {0};
        store.find(ns, query(params.pageSize()), params.readMode(), doc -> {
            last[0] = doc;
            if ((++sent[0] & 15) == 0) {
                MemoryOnly.checkBudget(); // rendering a long page on a selector thread
            }
            params.textScore().set(doc.textScore());
            sink.accept(params.view().matched(doc.json()));
        });
        if (sent[0] < params.pageSize() || params.sort().byTextScore()) {
            return Optional.empty(); // a textScore is no stored value a cursor could continue after
        }
        SortPosition end = SortPosition.of(memo.sortFields(params.sort()).read(last[0].json()), params.sort());
        return Optional.of(cursors.seal(end, params.fingerprint()));
    }

    /** Every match from the requested page on, for streaming exports. */
    void all(Consumer<byte[]> sink) {
        run(Long.MAX_VALUE, sink);
    }

    /** The store's query for {@code limit} documents from the requested page on; a deep page starts at its position. */
    private FindQuery query(long limit) {
        FindQuery query = new FindQuery(params.filter(), params.sort(), params.skip(), limit, params.hint());
        // a position index counts committed documents only, not a transaction's own
        return Api.inTransaction() ? query : pages.rewrite(ns, query);
    }

    private void run(long limit, Consumer<byte[]> sink) {
        store.find(ns, query(limit), params.readMode(), doc -> {
            params.textScore().set(doc.textScore());
            sink.accept(params.view().matched(doc.json()));
        });
    }
}
