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
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A write of many documents planned under the request's {@link DocumentAccess}: an array POST,
 * and {@code PATCH|DELETE /{db}/{coll}/*?filter=}. Each factory applies the access while it
 * plans (every inserted document admitted, the bulk filter narrowed to what the principal may
 * read and write, the update body checked) and {@link #execute} checks every document an update
 * leaves behind inside the write ({@link UpdateCheck}), so one document the access refuses
 * refuses the whole request and nothing is changed. Only the store's own refusals of an array
 * POST (a duplicate key) are reported per document ({@link #insertMany}).
 *
 * <p>The bulk filter is required, as in RESTHeart, so that a bare {@code /*} never wipes a
 * collection by accident; {@code filter={}} says "all" on purpose. Under a permission, each bulk
 * write needs its switch ({@code allowBulkPatch}, {@code allowBulkDelete}).
 */
final class BulkWritePlan {
    /**
     * What a bulk write did, in RESTHeart's answer fields; {@code errors} holds one
     * {@code {"index","httpStatus","message"}} per document of an array POST that was not written,
     * and {@code written} the {@code _id}s of those that were.
     */
    record Counts(long inserted, long deleted, long modified, long matched, ArrayNode errors, List<JsonNode> written) {
        Counts(long inserted, long deleted, long modified, long matched) {
            this(inserted, deleted, modified, matched, Json.NODES.arrayNode(), List.of());
        }

        ObjectNode json() {
            ObjectNode body = Json.NODES.objectNode();
            body.put("inserted", inserted);
            body.put("deleted", deleted);
            body.put("modified", modified);
            body.put("matched", matched);
            if (!errors.isEmpty()) {
                body.set("errors", errors);
            }
            return body;
        }

        /** 207 (Multi-Status) when some document was not written, as RESTHeart answers; else 200. */
        int status() {
            return errors.isEmpty() ? 200 : 207;
        }
    }

    @FunctionalInterface
    private interface Run {
        Counts run(Store store, Durability durability);
    }

    private final Store store;
    private final Durability durability;
    private final Run run;

    private BulkWritePlan(Exchange ex, Api api, Namespace ns, Run run) {
        this.store = api.store();
        this.durability = api.durability(ex, ns);
        this.run = run;
    }

    /**
     * A POSTed array: inserted, or with {@code wm} each replacing the document with its
     * {@code _id}. Every document is admitted by the access before anything is written, so one the
     * permission refuses (or one that is not valid) refuses the whole request and nothing is
     * written. The store may still refuse some (a duplicate {@code _id} or unique key, a missing
     * document under {@code wm=update}): RESTHeart's way, the others are written and each refused
     * one is an entry of {@code errors} (answered 207); with {@code atomic=true} an insert is all
     * or nothing instead (the first refusal is the answer, nothing written).
     */
    static BulkWritePlan insertMany(Exchange ex, Api api, Namespace ns, JsonNode array, WriteOp.WriteMode mode) {
        Permission permission = ex.permission();
        if (mode != WriteOp.WriteMode.INSERT && permission.restrictsWrites()) {
            throw permission.denied("wm=" + mode.name().toLowerCase() + " on an array needs an unrestricted rule");
        }
        boolean atomic = atomic(ex);
        NewDocuments documents = NewDocuments.of(ex, api, ns);
        List<ObjectNode> docs = new ArrayList<>(array.size());
        for (JsonNode element : array) {
            docs.add(documents.admitted(element));
        }
        if (docs.isEmpty()) {
            throw WeftException.badRequest("the array of documents is empty");
        }
        List<JsonNode> ids = docs.stream().map(d -> d.get("_id")).toList();
        if (mode == WriteOp.WriteMode.INSERT && atomic) {
            return new BulkWritePlan(ex, api, ns, (store, durability) -> {
                succeeded(store.write(new WriteOp.InsertMany(ns, docs), durability));
                return new Counts(docs.size(), 0, 0, 0, Json.NODES.arrayNode(), ids);
            });
        }
        if (mode == WriteOp.WriteMode.INSERT) {
            return new BulkWritePlan(ex, api, ns, (store, durability) -> {
                WriteResult all = store.write(new WriteOp.InsertMany(ns, docs), durability);
                if (all.ok()) {
                    return new Counts(docs.size(), 0, 0, 0, Json.NODES.arrayNode(), ids);
                }
                // Some document is refused: one op each says which, and keeps the others.
                List<WriteOp> single = docs.stream().<WriteOp>map(d -> new WriteOp.InsertMany(ns, List.of(d))).toList();
                return perDocument(ex, ids, store.writeAll(single, durability));
            });
        }
        List<WriteOp> ops = docs.stream().<WriteOp>map(d -> new WriteOp.Replace(ns, d, mode, Optional.empty())).toList();
        return new BulkWritePlan(ex, api, ns, (store, durability) -> perDocument(ex, ids, store.writeAll(ops, durability)));
    }

    /** RESTHeart's {@code inserted}, {@code modified}, {@code matched} and {@code errors} from one result per document. */
    private static Counts perDocument(Exchange ex, List<JsonNode> ids, List<WriteResult> results) {
        long inserted = 0;
        long modified = 0;
        ArrayNode errors = Json.NODES.arrayNode();
        List<JsonNode> written = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            WriteResult r = results.get(i);
            if (r.ok()) {
                written.add(ids.get(i));
            }
            if (r.outcome() == WriteResult.Outcome.CREATED || r.outcome() == WriteResult.Outcome.BULK_DONE) {
                inserted++;
            } else if (r.outcome() == WriteResult.Outcome.UPDATED) {
                modified++;
            } else if (r.outcome() == WriteResult.Outcome.NOT_FOUND) {
                continue; // as RESTHeart: an update (wm=update) of a missing document matches nothing, no error
            } else if (!r.ok()) {
                WeftException failure = Api.failure(r);
                ObjectNode error = errors.addObject();
                error.put("index", i);
                error.put("httpStatus", failure.status());
                error.put("message", failure.status() == 409
                        ? RequestPipeline.conflictMessage(ex, failure.getMessage()) : failure.getMessage());
            }
        }
        return new Counts(inserted, 0, modified, modified, errors, written);
    }

    /** Weft's {@code atomic} parameter: {@code true} makes an array insert all or nothing. */
    private static boolean atomic(Exchange ex) {
        return ex.param("atomic").map(v -> switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw WeftException.badRequest("atomic must be true or false, not " + v);
        }).orElse(false);
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
        return new BulkWritePlan(ex, api, ns, (store, durability) -> {
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
        return new BulkWritePlan(ex, api, ns, (store, durability) -> {
            WriteResult result = succeeded(store.write(new WriteOp.DeleteMany(ns, filter), durability));
            return new Counts(0, result.count(), 0, result.count());
        });
    }

    private static Filter requiredFilter(Exchange ex, Api api, DocumentAccess access) {
        if (ex.params("filter").isEmpty()) {
            throw WeftException.badRequest("a bulk write needs the filter query parameter (filter={} for all documents)");
        }
        return TextQueries.bind(access.writeFilter(ReadParams.filterSpecs(ex, api), api.limits()), api, api.namespace(ex), access);
    }

    private static WriteResult succeeded(WriteResult result) {
        if (!result.ok()) {
            throw Api.failure(result);
        }
        return result;
    }

    Counts execute() {
        return run.run(store, durability);
    }
}
