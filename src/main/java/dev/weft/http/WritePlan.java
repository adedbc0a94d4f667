package dev.weft.http;

import dev.weft.aggregate.PipelineUpdate;
import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Update;
import dev.weft.security.DocumentAccess;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult.Outcome;
import dev.weft.store.WriteResult;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A single-document write (POST of one document, PUT, PATCH, DELETE) planned under the request's
 * {@link DocumentAccess}: each factory reads what the request asks and readies it the way the
 * access requires (the policy's {@code stored}/{@code update}, the permission's body checks), and
 * {@link #execute} checks the stored document and the written one. No endpoint writes a single
 * document any other way, so none can forget a check.
 *
 * <p>When the permission restricts writes, the stored document is read and checked first
 * ({@link DocumentAccess#admitStored}), and the write is sent with that document's etag as
 * {@code If-Match}, so the check still holds when the write commits: a concurrent change makes
 * the write fail with 412 and the whole check is run again (a few times, then 409). A document
 * absent at the check is written in insert mode, so an insert racing in is never overwritten
 * unchecked; in update mode it is simply 404. Without restrictions this is exactly one store
 * write, with the client's {@code If-Match}.
 */
final class WritePlan {
    static final int ATTEMPTS = 5;

    /** Builds the op from the checked stored document (empty when absent), the mode and the If-Match to use. */
    @FunctionalInterface
    private interface Op {
        WriteOp op(Optional<ObjectNode> stored, WriteMode mode, Optional<String> ifMatch);
    }

    private final Store store;
    private final Json json;
    private final DocumentAccess access;
    private final Namespace ns;
    private final JsonNode id;
    private final WriteMode mode;
    private final Optional<String> clientIfMatch;
    private final Durability durability;
    private final Op op;
    private final Optional<UpdateCheck> check;

    private WritePlan(Exchange ex, Api api, Namespace ns, JsonNode id, WriteMode mode, Op op, Optional<UpdateCheck> check) {
        this.store = api.store();
        this.json = api.json();
        this.access = ex.context().access(ns);
        this.ns = ns;
        this.id = id;
        this.mode = mode;
        this.clientIfMatch = Api.ifMatch(ex);
        this.durability = api.durability(ex, ns);
        this.op = op;
        this.check = check;
    }

    /** POST of one document: inserted, or with {@code wm} replacing the document with its {@code _id}. */
    static WritePlan insert(Exchange ex, Api api, Namespace ns, JsonNode body, WriteMode mode) {
        NewDocuments documents = NewDocuments.of(ex, api, ns);
        ObjectNode doc = documents.prepared(body);
        return new WritePlan(ex, api, ns, doc.get("_id"), mode, (stored, m, ifMatch) -> {
            ObjectNode admitted = documents.access().admitDocument(doc, stored);
            return m == WriteMode.INSERT
                    ? new WriteOp.InsertMany(ns, List.of(admitted))
                    : new WriteOp.Replace(ns, admitted, m, ifMatch);
        }, Optional.empty());
    }

    /** PUT: the document with {@code id} replaced by {@code body} (whose {@code _id} is already {@code id}). */
    static WritePlan replace(Exchange ex, Api api, Namespace ns, ObjectNode body) {
        NewDocuments documents = NewDocuments.of(ex, api, ns);
        ObjectNode doc = documents.prepared(body);
        api.existingCollection(ns);
        return new WritePlan(ex, api, ns, doc.get("_id"), WriteModes.parse(ex, WriteMode.UPDATE),
                (stored, m, ifMatch) -> new WriteOp.Replace(ns, documents.access().admitDocument(doc, stored), m, ifMatch),
                Optional.empty());
    }

    /** PATCH: the request body's update applied to the document with {@code id}. */
    static WritePlan update(Exchange ex, Api api, Namespace ns, JsonNode id) {
        DocumentAccess access = ex.context().access(ns);
        DocumentIds.checkWritable(id, api.settings().maxIdBytes()); // wm=upsert may create it
        access.checkUpsertId(id);
        List<JsonNode> query = ReadParams.filterSpecs(ex, api);
        access.readFilter(query, api.limits()); // checked as a read's: it decides what a '$' updates
        Update update = parseUpdate(ex, api, access, query);
        api.existingCollection(ns);
        UpdateCheck check = UpdateCheck.of(access);
        return new WritePlan(ex, api, ns, id, WriteModes.parse(ex, WriteMode.UPDATE),
                (stored, m, ifMatch) -> new WriteOp.UpdateOne(ns, id, update, m, ifMatch, check.forOp()),
                Optional.of(check));
    }

    /**
     * A PATCH body, admitted first (a protected path is 403 even where the update is
     * unsupported), with {@code query} for its {@code $} and the {@code arrayFilters} parameter
     * for its {@code $[id]}, whose paths are checked as a read's filter would be.
     */
    static Update parseUpdate(Exchange ex, Api api, DocumentAccess access, List<JsonNode> query) {
        JsonNode given = api.jsonBody(ex);
        if (given.isArray()) {
            // a pipeline: what it writes is checked inside the write (UpdateCheck), what it reads here
            PipelineUpdate pipeline = PipelineUpdate.parse(given, api.limits());
            access.admitPipelineUpdate(pipeline.readPaths());
            return pipeline;
        }
        if (!given.isObject()) {
            throw WeftException.badRequest("request body must be a JSON object (update operators) or an array (an update pipeline)");
        }
        ObjectNode body = access.admitUpdate((ObjectNode) given);
        JsonNode arrayFilters = ex.param("arrayFilters").map(raw -> ReadParams.jsonParam(api, "arrayFilters", raw)).orElse(null);
        Update update = Update.parse(body, api.limits(), query, arrayFilters);
        update.probedPaths().forEach(path -> access.checkReadPath("arrayFilters", path));
        return update;
    }

    /** DELETE of the document with {@code id}. */
    static WritePlan delete(Exchange ex, Api api, Namespace ns, JsonNode id) {
        api.existingCollection(ns);
        return new WritePlan(ex, api, ns, id, WriteMode.UPDATE,
                (stored, m, ifMatch) -> new WriteOp.DeleteOne(ns, id, ifMatch), Optional.empty());
    }

    /** The {@code _id} written. */
    JsonNode id() {
        return id;
    }

    /** Runs the write with its checks; a refusal inside the write is thrown as the refusal itself. */
    WriteResult execute() {
        WriteResult result = guarded();
        return check.map(c -> c.answer(result)).orElse(result);
    }

    private WriteResult guarded() {
        if (!access.restrictsWrites() || mode == WriteMode.INSERT) {
            return store.write(op.op(Optional.empty(), mode, clientIfMatch), durability);
        }
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Optional<StoredDocument> current = store.get(ns, id);
            if (current.isEmpty()) {
                if (mode == WriteMode.UPDATE) {
                    return WriteResult.failed(Outcome.NOT_FOUND, "no document with _id " + json.text(id));
                }
                WriteResult result = store.write(op.op(Optional.empty(), WriteMode.INSERT, clientIfMatch), durability);
                if (result.outcome() == Outcome.CONFLICT && clientIfMatch.isEmpty()) {
                    continue; // inserted meanwhile: check the document that is there now
                }
                return result;
            }
            ObjectNode stored = json.parseObject(current.get().json(), "stored document");
            access.admitStored(stored);
            Optional<String> ifMatch = clientIfMatch.or(() -> Etags.of(current.get().json()));
            WriteResult result = store.write(op.op(Optional.of(stored), mode, ifMatch), durability);
            if (result.outcome() == Outcome.PRECONDITION_FAILED && clientIfMatch.isEmpty()) {
                continue; // changed meanwhile: check again
            }
            return result;
        }
        throw WeftException.conflict("the document kept changing while its access was checked; retry");
    }
}
