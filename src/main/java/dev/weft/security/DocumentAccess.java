package dev.weft.security;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import dev.weft.query.QueryLimits;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one principal may do with the documents of one collection: the request's
 * {@link Permission} (access rules: read and write filters, response projection, protected
 * fields) together with the collection's {@link DocumentPolicy} (what the collection itself lets
 * in and out, such as hashed and hidden passwords). It is the one place that decides what a
 * principal may see of a document and may ask about it, used by every read path (lists, by id,
 * counts, ndjson export, change streams): a client's filter, keys, sort and stream filter are
 * admitted here, and stored documents become what the principal may see only through
 * {@link #view}. Writes ask it what a new, replaced or updated document must pass.
 *
 * <p>Immutable; made once per request and collection, so a request cannot mix the rules of two
 * principals or forget the policy of its collection.
 */
public final class DocumentAccess {
    private final Permission permission;
    private final DocumentPolicy policy;
    /** The policy for this principal's writes: its refusals describe documents as the principal sees them. */
    private final DocumentPolicy writes;

    private DocumentAccess(Permission permission, DocumentPolicy policy) {
        this.permission = permission;
        this.policy = policy;
        this.writes = policy.seenThrough(this::seen);
    }

    /** A document as this principal reads it (the policy's view, then the response projection); changed in place. */
    private ObjectNode seen(ObjectNode document) {
        ObjectNode readable = policy.readable(document);
        return permission.projection().map(p -> p.apply(readable)).orElse(readable);
    }

    public static DocumentAccess of(Permission permission, DocumentPolicy policy) {
        return new DocumentAccess(permission, policy);
    }

    /** The same collection's policy under {@code permission}: a long-lived read's access after the rules changed. */
    public DocumentAccess regranted(Permission permission) {
        return new DocumentAccess(permission, policy);
    }

    // --- what a client may ask -----------------------------------------------------------------

    /**
     * The client's {@code filter} specs (ANDed) narrowed to what the principal may read: each
     * must pass the policy (400), must not name a hidden field (403, 401 anonymous), and is
     * ANDed with the read filter.
     */
    public Filter readFilter(List<JsonNode> clientSpecs, QueryLimits limits) {
        return readFilter(clientSpecs, spec -> Filter.parse(spec, limits));
    }

    /**
     * As {@link #readFilter(List, QueryLimits)}, each spec compiled by {@code compile} (which must
     * give what {@link Filter#parse} gives, e.g. from a memo of filters that depend on no
     * principal) only after the policy has checked it; the principal's narrowing is applied here,
     * on every call.
     */
    public Filter readFilter(List<JsonNode> clientSpecs, Function<JsonNode, Filter> compile) {
        return permission.narrowRead(clientFilter(clientSpecs, compile));
    }

    /** As {@link #readFilter}, also narrowed to what the principal may write: for bulk writes. */
    public Filter writeFilter(List<JsonNode> clientSpecs, QueryLimits limits) {
        return permission.narrowWrite(clientFilter(clientSpecs, spec -> Filter.parse(spec, limits)));
    }

    private Filter clientFilter(List<JsonNode> specs, Function<JsonNode, Filter> compile) {
        List<Filter> parsed = new ArrayList<>(specs.size());
        for (JsonNode spec : specs) {
            policy.checkQuery("filter", spec);
            parsed.add(compile.apply(spec));
        }
        return Filter.and(parsed);
    }

    /** A {@code filter} a change stream will compile itself: only the policy's check (400). */
    public void checkStreamFilter(JsonNode spec) {
        policy.checkQuery("filter", spec);
    }

    /** A sort path: 400 when the policy hides it, 403 (401) when the response projection does. */
    public void checkSortPath(String path) {
        checkReadPath("sort", path);
    }

    /** A path {@code param} reads values at (a sort, an array filter): as {@link #checkSortPath}. */
    public void checkReadPath(String param, String path) {
        policy.checkPath(param, path);
        permission.checkShown(param, path);
    }

    /** An index key path: 400 when the policy hides it (an index would order by it). */
    public void checkIndexPath(String path) {
        policy.checkPath("an index", path);
    }

    /** A wildcard text index ({@code $**}) would index every field: 400 where the policy hides some. */
    public void checkWildcardIndex() {
        if (policy != DocumentPolicy.NONE) {
            throw dev.weft.core.WeftException.badRequest("a wildcard text index would index fields this collection hides");
        }
    }

    /**
     * The document paths a change stream's filter reads, keyed by how the client wrote them
     * ({@code fullDocument.x} for {@code x}): 400 when the policy hides one, 403 (401) when the
     * response projection does.
     */
    public void checkStreamPaths(Map<String, String> documentPaths) {
        documentPaths.values().forEach(path -> policy.checkPath("the stream's filter", path));
        documentPaths.forEach((written, path) -> permission.checkShown("the stream's filter", written, path));
    }

    /** The read filter alone, for matching change events; empty when the principal reads everything. */
    public Optional<Filter> eventFilter() {
        return permission.readsEverything() ? Optional.empty() : Optional.of(permission.narrowRead(Filter.all()));
    }

    /** The response projection, applied last to every document and event the principal reads. */
    public Optional<Projection> responseProjection() {
        return permission.projection();
    }

    /**
     * How documents read with the client's {@code keys} (merged, empty when absent) are shown:
     * 400 when the keys touch what the policy hides.
     */
    public View view(Optional<ObjectNode> keys, Json json) {
        return view(keys, List.of(), json);
    }

    /**
     * {@link #view(Optional, Json)} for a read whose {@code filter}s are {@code query}: what a
     * positional {@code a.$} in the keys refers to. An {@code $elemMatch} in the keys tests its
     * array: 403 (401) when the response projection hides any of it, as for a filter.
     */
    public View view(Optional<ObjectNode> keys, List<JsonNode> query, Json json) {
        return view(keys, query, json, Map.of());
    }

    /**
     * {@link #view(Optional, List, Json)} with {@code computed} fields (a {@code textScore}) set
     * on each document after the client's projection, computed from the document before it; the
     * response projection still applies after them.
     */
    public View view(Optional<ObjectNode> keys, List<JsonNode> query, Json json,
                     Map<String, java.util.function.ToDoubleFunction<JsonNode>> computed) {
        Optional<Projection> projected = keys.map(k -> {
            policy.checkQuery("keys", k);
            Projection parsed = Projection.parse(k, query);
            parsed.probedPaths().forEach(path -> permission.checkShown("keys", path));
            return parsed;
        });
        Optional<Projection> client = computed.isEmpty() ? projected : Optional.of(doc -> {
            Map<String, Double> values = new java.util.LinkedHashMap<>();
            computed.forEach((name, f) -> values.put(name, f.applyAsDouble(doc)));
            ObjectNode out = projected.isPresent() ? projected.get().apply(doc) : (ObjectNode) doc;
            values.forEach(out::put);
            return out;
        });
        Optional<Projection> acl = permission.projection();
        Optional<Projection> both = client.isEmpty() || acl.isEmpty()
                ? client.or(() -> acl)
                : Optional.of(doc -> acl.get().apply(client.get().apply(doc)));
        return new View(permission, policy, both, json);
    }

    /**
     * Stored documents as one principal may see them, with one request's {@code keys}: the
     * policy's {@link DocumentPolicy#readable}, then the client's projection, then the
     * permission's. Immutable.
     */
    public static final class View {
        private final Permission permission;
        private final DocumentPolicy policy;
        private final Optional<Projection> projection;
        private final Json json;

        private View(Permission permission, DocumentPolicy policy, Optional<Projection> projection, Json json) {
            this.permission = permission;
            this.policy = policy;
            this.projection = projection;
            this.json = json;
        }

        /**
         * A document a read's narrowed filter ({@link #readFilter}) matched. Without a projection
         * the stored bytes are passed through the policy only, never re-encoded.
         */
        public byte[] matched(byte[] stored) {
            byte[] readable = policy.readable(stored);
            if (projection.isEmpty()) {
                return readable;
            }
            return json.bytes(projection.get().apply(json.parse(readable, "stored document")));
        }

        /** A document fetched by id: empty when it is outside the read filter (it reads as missing). */
        public Optional<byte[]> byId(byte[] stored) {
            if (permission.readsEverything()) {
                return Optional.of(matched(stored));
            }
            ObjectNode tree = json.parseObject(stored, "stored document");
            if (!permission.canRead(tree)) {
                return Optional.empty();
            }
            if (projection.isEmpty()) {
                return Optional.of(policy.readable(stored));
            }
            return Optional.of(json.bytes(projection.get().apply(policy.readable(tree))));
        }
    }

    // --- what a write must pass ----------------------------------------------------------------

    /** True when a single-document write must read the stored document first to be checked. */
    public boolean restrictsWrites() {
        return permission.restrictsWrites();
    }

    /** A stored document a write would touch: 404 outside the read filter, 403 outside the write filter. */
    public void admitStored(JsonNode stored) {
        permission.admitStored(stored);
    }

    /** A whole document as the client sent it, in the form the collection's policy stores. */
    public ObjectNode entering(ObjectNode client) {
        return policy.entering(client);
    }

    /** A whole document with its {@code _id}, readied by the policy for storage (it may change it). */
    public ObjectNode toStore(ObjectNode document) {
        return writes.stored(document);
    }

    /** A document written whole: protected fields and {@code mergeRequest}, then the write filter. */
    public ObjectNode admitDocument(ObjectNode document, Optional<? extends JsonNode> stored) {
        return permission.admitDocument(document, stored);
    }

    /** The {@code _id} of a document an upsert PATCH may create. */
    public void checkUpsertId(JsonNode id) {
        policy.checkId(id);
    }

    /**
     * A PATCH body, readied by the policy and checked by the permission (no protected path, no
     * {@code $rename} out of a hidden field), before it is compiled.
     */
    public ObjectNode admitUpdate(ObjectNode body) {
        ObjectNode ready = policy.update(body);
        permission.admitUpdate(ready);
        return ready;
    }

    /**
     * A pipeline update (PATCH with an array body), known by the stored paths it reads: each is
     * checked as a read's (400 policy, 403 {@code projectResponse}), since the pipeline could
     * copy a hidden value into a visible field. What it writes is checked on its result
     * ({@link #admitUpdated}). A collection with its own policy (the users collection) takes
     * only operator updates, whose fields the policy can see before they are written (400).
     */
    public void admitPipelineUpdate(java.util.Set<String> readPaths) {
        if (policy != DocumentPolicy.NONE) {
            throw dev.weft.core.WeftException.badRequest("this collection takes update operators, not an update pipeline");
        }
        readPaths.forEach(path -> checkReadPath("the update pipeline", path));
    }

    /** Whether {@link #admitUpdated} checks anything, so updates need to hand it their results. */
    public boolean checksUpdates() {
        return permission.restrictsWrites() || policy.checksUpdates();
    }

    /** What an update did to one document, inside the write ({@code before} null when it creates it). */
    public void admitUpdated(ObjectNode before, ObjectNode after) {
        permission.admitUpdated(before, after);
        writes.updated(after);
    }
}
