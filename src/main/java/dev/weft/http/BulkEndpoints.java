package dev.weft.http;

/**
 * {@code PATCH|DELETE /{db}/{coll}/*?filter=}: update or delete every match in one transaction,
 * as a {@link BulkWritePlan} (which applies the request's access). The filter is required, as in
 * RESTHeart; under a permission, only documents inside both its read and write filter match, the
 * update may not name a protected field, and one document it would leave outside the write filter
 * or with a changed protected value refuses the whole request.
 */
final class BulkEndpoints {
    private final Api api;

    BulkEndpoints(Api api) {
        this.api = api;
    }

    void patch(Exchange ex) {
        answer(ex, BulkWritePlan.updateMany(ex, api));
    }

    void delete(Exchange ex) {
        answer(ex, BulkWritePlan.deleteMany(ex, api));
    }

    private void answer(Exchange ex, BulkWritePlan plan) {
        ex.sendJson(200, api.json().bytes(plan.execute().json()));
    }
}
