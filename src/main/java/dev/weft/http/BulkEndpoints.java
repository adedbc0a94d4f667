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
 * accident; {@code filter={}} says "all" on purpose. Under a permission, only documents inside
 * both its read and write filter match, and the update may not name a protected field.
 */
final class BulkEndpoints {
    private final Api api;

    BulkEndpoints(Api api) {
        this.api = api;
    }

    void patch(Exchange ex) {
        Namespace ns = api.namespace(ex);
        Filter filter = requiredFilter(ex, ns);
        ObjectNode body = api.policy(ns).update(api.objectBody(ex));
        Update update = Update.parse(body, api.limits());
        ex.permission().admitUpdate(body);
        api.existingCollection(ns);
        WriteResult result = api.store().write(new WriteOp.UpdateMany(ns, filter, update), api.durability(ex, ns));
        answer(ex, result, "modified");
    }

    void delete(Exchange ex) {
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
