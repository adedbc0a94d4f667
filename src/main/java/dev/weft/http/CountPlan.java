package dev.weft.http;

import dev.weft.core.ReadMode;
import dev.weft.query.Filter;
import dev.weft.store.Namespace;
import dev.weft.store.Store;

/**
 * A count under the request's {@link dev.weft.security.DocumentAccess}: {@code _size} and a list's
 * {@code count}. Its filter is always one the access narrowed, so a count never tells how many
 * documents the principal may not read.
 */
record CountPlan(Store store, Namespace ns, Filter filter, ReadMode readMode) {

    /** {@code _size}: the client's filters narrowed by the request's access to {@code ns}. */
    static CountPlan of(Exchange ex, Api api, Namespace ns) {
        return new CountPlan(api.store(), ns, ReadParams.filter(ex, api, ex.context().access(ns)), api.readMode(ex, ns));
    }

    long execute() {
        return store.count(ns, filter, readMode);
    }
}
