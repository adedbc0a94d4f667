package dev.weft.http;

import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Update;
import dev.weft.security.DocumentAccess;
import dev.weft.security.Permission;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A write of many documents planned under the request's {@link DocumentAccess}: an array POST,
 * and {@code PATCH|DELETE /{db}/{coll}/*?filter=}. Each factory applies the access while it
 * plans (every inserted document admitted, the bulk filter narrowed to what the principal may
 * read and write, the update body checked) and {@link #execute} checks every document an update
 * leaves behind inside the write ({@link UpdateCheck}), so one refused document refuses the whole
 * request and nothing is changed.
 *
 * <p>The bulk filter is required, as in RESTHeart, so that a bare {@code /*} never wipes a
 * collection by accident; {@code filter={}} says "all" on purpose. Under a permission, each bulk
 * write needs its switch ({@code allowBulkPatch}, {@code allowBulkDelete}).
 */
final class BulkWritePlan {
    /** What a bulk write did, in RESTHeart's answer fields. */
    record Counts(long inserted, long deleted, long modified, long matched) {
        ObjectNode json() {
            ObjectNode body = Json.NODES.objectNode();
            body.put("inserted", inserted);
            body.put("deleted", deleted);
            body.put("modified", modified);
            body.put("matched", matched);
            return body;
        }
    }

    @FunctionalInterface
    private interface Run {
        Counts run(Store store, Durability durability);
    }

    private final Store store;
    private final Durability durability;
    private final List<JsonNode> ids;
    private final Run run;

    private BulkWritePlan(Exchange ex, Api api, Namespace ns, List<JsonNode> ids, Run run) {
        this.store = api.store();
        this.durability = api.durability(ex, ns);
        this.ids = List.copyOf(ids);
        this.run = run;
    }

    /** A POSTed array: inserted, or with {@code wm} each replacing the document with its {@code _id}. */
    static BulkWritePlan insertMany(Exchange ex, Api api, Namespace ns, JsonNode array, WriteOp.WriteMode mode) {
        Permission permission = ex.permission();
        if (mode != WriteOp.WriteMode.INSERT && permission.restrictsWrites()) {
            throw permission.denied("wm=" + mode.name().toLowerCase() + " on an array needs an unrestricted rule");
        }
        NewDocuments documents = NewDocuments.of(ex, api, ns);
        List<ObjectNode> docs = new ArrayList<>(array.size());
        for (JsonNode element : array) {
            docs.add(documents.admitted(element));
        }
        if (docs.isEmpty()) {
            throw WeftException.badRequest("the array of documents is empty");
        }
        List<JsonNode> ids = docs.stream().map(d -> d.get("_id")).toList();
        if (mode == WriteOp.WriteMode.INSERT) {
            return new BulkWritePlan(ex, api, ns, ids, (store, durability) -> {
                succeeded(store.write(new WriteOp.InsertMany(ns, docs), durability));
                return new Counts(docs.size(), 0, 0, 0);
            });
        }
        List<WriteOp> ops = docs.stream().<WriteOp>map(d -> new WriteOp.Replace(ns, d, mode, Optional.empty())).toList();
        return new BulkWritePlan(ex, api, ns, ids, (store, durability) -> {
            long inserted = 0;
            long modified = 0;
            for (WriteResult r : store.writeAll(ops, durability)) {
                if (r.outcome() == WriteResult.Outcome.CREATED) {
                    inserted++;
                } else if (r.outcome() == WriteResult.Outcome.UPDATED) {
                    modified++;
                }
            }
            return new Counts(inserted, 0, modified, modified);
        });
    }

    /** {@code PATCH /{db}/{coll}/*}: the body's update applied to every match of the narrowed filter. */
    static BulkWritePlan updateMany(Exchange ex, Api api) {
        ex.permission().admitBulkPatch();
        Namespace ns = api.namespace(ex);
        DocumentAccess access = ex.context().access(ns);
        Filter filter = requiredFilter(ex, api, access);
        Update update = WritePlan.parseUpdate(ex, api, access, ReadParams.filterSpecs(ex, api));
        api.existingCollection(ns);
        UpdateCheck check = UpdateCheck.of(access);
        return new BulkWritePlan(ex, api, ns, List.of(), (store, durability) -> {
            WriteResult result = succeeded(check.answer(
                    store.write(new WriteOp.UpdateMany(ns, filter, update, check.forOp()), durability)));
            return new Counts(0, 0, result.count(), result.count());
        });
    }

    /** {@code DELETE /{db}/{coll}/*}: every match of the narrowed filter deleted. */
    static BulkWritePlan deleteMany(Exchange ex, Api api) {
        ex.permission().admitBulkDelete();
        Namespace ns = api.namespace(ex);
        Filter filter = requiredFilter(ex, api, ex.context().access(ns));
        api.existingCollection(ns);
        return new BulkWritePlan(ex, api, ns, List.of(), (store, durability) -> {
            WriteResult result = succeeded(store.write(new WriteOp.DeleteMany(ns, filter), durability));
            return new Counts(0, result.count(), 0, result.count());
        });
    }

    private static Filter requiredFilter(Exchange ex, Api api, DocumentAccess access) {
        if (ex.params("filter").isEmpty()) {
            throw WeftException.badRequest("a bulk write needs the filter query parameter (filter={} for all documents)");
        }
        return access.writeFilter(ReadParams.filterSpecs(ex, api), api.limits());
    }

    private static WriteResult succeeded(WriteResult result) {
        if (!result.ok()) {
            throw Api.failure(result);
        }
        return result;
    }

    /** The {@code _id}s of the documents an insert writes, in order; empty for bulk updates and deletes. */
    List<JsonNode> ids() {
        return ids;
    }

    Counts execute() {
        return run.run(store, durability);
    }
}
