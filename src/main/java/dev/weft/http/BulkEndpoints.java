package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Update;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code PATCH|DELETE /{db}/{coll}/*?filter=}: update or delete every match in one transaction.
 * The filter is required, as in RESTHeart, so that a bare {@code /*} never wipes a collection by
 * accident; {@code filter={}} says "all" on purpose. Under a permission, each needs its switch
 * ({@code allowBulkPatch}, {@code allowBulkDelete}), only documents inside both its read and write
 * filter match, the update may not name a protected field, and every document it leaves behind is
 * checked inside the write ({@link UpdateCheck}): one that would leave the write filter or change
 * a protected value refuses the whole request, and nothing is changed.
 */
final class BulkEndpoints {
    private final Api api;

    BulkEndpoints(Api api) {
        this.api = api;
    }

    void patch(Exchange ex) {
        ex.permission().admitBulkPatch();
        Namespace ns = api.namespace(ex);
        Filter filter = requiredFilter(ex, ns);
        ObjectNode body = api.policy(ns).update(api.objectBody(ex));
        ex.permission().admitUpdate(body); // first: a protected path is 403 even where the update is unsupported
        Update update = Update.parse(body, api.limits());
        api.existingCollection(ns);
        UpdateCheck check = UpdateCheck.of(api, ex, ns);
        WriteResult result = api.store().write(new WriteOp.UpdateMany(ns, filter, update, check.forOp()),
                api.durability(ex, ns));
        answer(ex, check.answer(result), "modified");
    }

    void delete(Exchange ex) {
        ex.permission().admitBulkDelete();
        Namespace ns = api.namespace(ex);
        Filter filter = requiredFilter(ex, ns);
        api.existingCollection(ns);
        WriteResult result = api.store().write(new WriteOp.DeleteMany(ns, filter), api.durability(ex, ns));
        answer(ex, result, "deleted");
    }

    private Filter requiredFilter(Exchange ex, Namespace ns) {
        if (ex.params("filter").isEmpty()) {
            throw WeftException.badRequest("a bulk write needs the filter query parameter (filter={} for all documents)");
        }
        return ex.permission().narrowWrite(ReadParams.clientFilter(ex, api, ns));
    }

    private void answer(Exchange ex, WriteResult result, String counted) {
        if (!result.ok()) {
            Api.answerWrite(ex, result, java.util.Optional.empty());
            return;
        }
        ObjectNode body = Json.NODES.objectNode();
        body.put("inserted", 0);
        body.put("deleted", counted.equals("deleted") ? result.count() : 0);
        body.put("modified", counted.equals("modified") ? result.count() : 0);
        body.put("matched", result.count());
        ex.sendJson(200, api.json().bytes(body));
    }
}
