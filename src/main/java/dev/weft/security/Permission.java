package dev.weft.security;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the authorize stage grants one request: the restrictions its endpoint applies while it
 * plans. Each endpoint applies a permission in one place: reads narrow their filter with
 * {@link #narrowRead} and project with {@link #projection}; single-document writes check the
 * stored document with {@link #admitStored} and the new one with {@link #admitDocument} or
 * {@link #admitUpdate} (the body) and {@link #admitUpdated} (each document an update leaves
 * behind, checked inside the write); bulk writes match with {@link #narrowWrite} and need
 * {@link #admitBulkPatch}/{@link #admitBulkDelete}; a {@code wm} parameter needs
 * {@link #admitWriteMode}; database, collection and index changes call {@link #admitManagement}.
 *
 * <p>Invariants: a permission is immutable and built for one principal (its filters already hold
 * the principal's variables); {@link #ALL} restricts nothing; {@link #cacheKey} is equal for two
 * permissions only when they narrow and project reads identically, so cached results are shared
 * exactly between requests that would compute the same bytes.
 */
public final class Permission {
    /** Everything, for the built-in {@code admin} role and for servers without security. */
    public static final Permission ALL = new Permission(false, Optional.empty(), Optional.empty(), Optional.empty(),
            List.of(), Optional.empty(), Allowances.ALL, "");

    /**
     * Nothing beyond reading what holds no data: the permission of open routes (the console's
     * files, the API description), which skip authentication and rules.
     */
    public static final Permission NOTHING = new Permission(true, Optional.empty(), Optional.empty(), Optional.empty(),
            List.of(), Optional.empty(), Allowances.NONE, "");

    /**
     * RESTHeart's switches for what a rule allows beyond single-document reads and writes, each
     * false unless the rule says so.
     *
     * @param management database, collection and index changes ({@code allowManagementRequests})
     * @param bulkPatch  {@code PATCH /db/coll/*} ({@code allowBulkPatch})
     * @param bulkDelete {@code DELETE /db/coll/*} ({@code allowBulkDelete})
     * @param writeMode  the {@code wm} query parameter ({@code allowWriteMode})
     * @param adhocAggregation a pipeline in a request body, {@code POST /db/coll/_aggrs} ({@code allowAdhocAggregations}, Weft's)
     */
    public record Allowances(boolean management, boolean bulkPatch, boolean bulkDelete, boolean writeMode,
                             boolean adhocAggregation) {
        public static final Allowances NONE = new Allowances(false, false, false, false, false);
        public static final Allowances ALL = new Allowances(true, true, true, true, true);
    }

    private final boolean anonymous;
    private final Optional<Filter> read;
    private final Optional<Filter> write;
    private final Optional<Projection> projection;
    private final List<String> protectedFields;
    private final Optional<ObjectNode> merge;
    private final Allowances allows;
    private final String cacheKey;

    /**
     * @param anonymous       granted to a request without credentials (denials are then 401)
     * @param read            documents outside it are invisible to every read and write
     * @param write           documents a write may touch, before and after it
     * @param projection      applied last to every document a read returns
     * @param protectedFields dotted paths a write may not set or change
     * @param merge           fields set on every document written whole (after the protected check)
     * @param allows          the bulk, write-mode and management switches
     * @param cacheKey        the normalized text of {@code read} and {@code projection}
     */
    public Permission(boolean anonymous, Optional<Filter> read, Optional<Filter> write, Optional<Projection> projection,
                      List<String> protectedFields, Optional<ObjectNode> merge, Allowances allows, String cacheKey) {
        this.anonymous = anonymous;
        this.read = read;
        this.write = write;
        this.projection = projection;
        this.protectedFields = List.copyOf(protectedFields);
        this.merge = merge;
        this.allows = allows;
        this.cacheKey = cacheKey;
    }

    /** 401 for an anonymous request (credentials might help), 403 for an authenticated one. */
    public static WeftException denied(boolean anonymous, String message) {
        return anonymous ? new WeftException(401, message) : new WeftException(403, message);
    }

    public WeftException denied(String message) {
        return denied(anonymous, message);
    }

    // --- reads -------------------------------------------------------------------------------

    /**
     * The read filter ANDed with the client's; 403 (401 anonymous) when the client's filter names
     * a field {@code projectResponse} hides, since matching on it would reveal it. The rule comes
     * first, so the client's filter never runs on a document the caller may not read: its cost
     * (a match budget, a time limit) cannot depend on what such a document holds.
     */
    public Filter narrowRead(Filter client) {
        checkShown("filter", client);
        return read.map(r -> client == Filter.all() ? r : Filter.and(List.of(r, client))).orElse(client);
    }

    /** For bulk writes: the read and the write filter ANDed with the client's, rules first as for reads. */
    public Filter narrowWrite(Filter client) {
        checkShown("filter", client);
        List<Filter> all = new ArrayList<>(3);
        read.ifPresent(all::add);
        write.ifPresent(all::add);
        if (client != Filter.all()) {
            all.add(client);
        }
        return Filter.and(all);
    }

    /** 403 (401 anonymous) when {@code path}, used by {@code param} (a sort, say), names a hidden field. */
    public void checkShown(String param, String path) {
        checkShown(param, path, path);
    }

    /**
     * 403 (401 anonymous) when the document path {@code path}, which {@code param} names as
     * {@code written} (a change stream's {@code fullDocument.x} for {@code x}, say), is hidden.
     */
    public void checkShown(String param, String written, String path) {
        if (projection.isPresent() && !projection.get().shows(path)) {
            throw denied(param + " names '" + written + "', which this user's projectResponse hides");
        }
    }

    private void checkShown(String param, Filter client) {
        if (projection.isPresent()) {
            client.paths().forEach(path -> checkShown(param, path));
        }
    }

    /** True when reads see every document (no read filter), so a read need not parse them. */
    public boolean readsEverything() {
        return read.isEmpty();
    }

    /** True when a read's answer depends on the stored documents alone: no read filter, no projection. */
    public boolean seesEverything() {
        return read.isEmpty() && projection.isEmpty();
    }

    public boolean canRead(JsonNode document) {
        return read.map(r -> r.matches(document)).orElse(true);
    }

    /** The projection applied after the client's {@code keys} to every document a read returns. */
    public Optional<Projection> projection() {
        return projection;
    }

    public String cacheKey() {
        return cacheKey;
    }

    // --- writes ------------------------------------------------------------------------------

    /** True when single-document writes must read the stored document first to be checked. */
    public boolean restrictsWrites() {
        return read.isPresent() || write.isPresent() || !protectedFields.isEmpty() || merge.isPresent();
    }

    /** A write may touch a stored document only inside the read filter (else 404) and the write filter (else 403). */
    public void admitStored(JsonNode stored) {
        if (!canRead(stored)) {
            throw WeftException.notFound("document " + stored.get("_id") + " does not exist");
        }
        if (write.isPresent() && !write.get().matches(stored)) {
            throw denied("the document is outside this user's writeFilter");
        }
    }

    /**
     * Checks a document written whole (insert or replacement) and returns what to store: a
     * protected field may only carry the value it already has (the stored value on a replacement;
     * on an insert, the value {@code mergeRequest} gives it, or none), then {@code mergeRequest}
     * is applied, then the result must match the write filter.
     */
    public ObjectNode admitDocument(ObjectNode document, Optional<? extends JsonNode> stored) {
        if (!restrictsWrites()) {
            return document;
        }
        JsonNode base = stored.isPresent() ? stored.get() : merge.map(m -> (JsonNode) m).orElse(null);
        ObjectNode result = document;
        if (merge.isPresent()) {
            result = document.deepCopy();
            for (Map.Entry<String, JsonNode> e : merge.get().properties()) {
                result.set(e.getKey(), e.getValue());
            }
        }
        for (String field : protectedFields) {
            Map<String, JsonNode> given = ProtectedPaths.reached(document, field);
            Map<String, JsonNode> allowed = ProtectedPaths.reached(base, field);
            boolean clientChanges = !given.isEmpty() && !ProtectedPaths.same(given, allowed);
            if (clientChanges || !ProtectedPaths.same(ProtectedPaths.reached(result, field), allowed)) {
                throw protectedField(field);
            }
        }
        admitResult(result);
        return result;
    }

    /** The document a write leaves behind must match the write filter (403 otherwise). */
    public void admitResult(JsonNode result) {
        if (write.isPresent() && !write.get().matches(result)) {
            throw denied("the written document would be outside this user's writeFilter");
        }
    }

    /**
     * What an update did to one document ({@code before} null when it creates it): no protected
     * path may reach other values than before, and the result must match the write filter.
     * Called inside the write, for every document a single or bulk PATCH changes.
     */
    public void admitUpdated(JsonNode before, JsonNode after) {
        for (String field : protectedFields) {
            if (ProtectedPaths.differ(before, after, field)) {
                throw protectedField(field);
            }
        }
        admitResult(after);
    }

    private WeftException protectedField(String field) {
        return denied("field " + field + " is protected: a write may not set or change it");
    }

    /**
     * A PATCH body may not name a protected field, or a parent or child of one, in any operator
     * (a plain object is {@code $set} of its fields; {@code $rename} names two paths; array
     * indexes and positional operators do not count, so {@code items.$[].price} is
     * {@code items.price}); nor may it read a field {@code projectResponse} hides into another
     * place ({@code $rename} from it, or from one of its parents).
     */
    public void admitUpdate(JsonNode body) {
        if ((protectedFields.isEmpty() && projection.isEmpty()) || !body.isObject()) {
            return;
        }
        for (Map.Entry<String, JsonNode> op : body.properties()) {
            if (!op.getKey().startsWith("$")) {
                checkUpdatePath(op.getKey());
                continue;
            }
            if (op.getValue().isObject()) {
                for (Map.Entry<String, JsonNode> target : op.getValue().properties()) {
                    checkUpdatePath(target.getKey());
                    if (op.getKey().equals("$rename")) {
                        checkShown("$rename", target.getKey());
                        if (target.getValue().isString()) {
                            checkUpdatePath(target.getValue().asString());
                        }
                    }
                }
            }
        }
    }

    private void checkUpdatePath(String path) {
        String field = ProtectedPaths.overlapped(path, protectedFields);
        if (field != null) {
            throw protectedField(field);
        }
    }

    /** Bulk PATCH needs {@code allowBulkPatch}. */
    public void admitBulkPatch() {
        require(allows.bulkPatch(), "bulk PATCH (allowBulkPatch)");
    }

    /** Bulk DELETE needs {@code allowBulkDelete}. */
    public void admitBulkDelete() {
        require(allows.bulkDelete(), "bulk DELETE (allowBulkDelete)");
    }

    /** The {@code wm} query parameter needs {@code allowWriteMode}. */
    public void admitWriteMode() {
        require(allows.writeMode(), "the wm parameter (allowWriteMode)");
    }

    /** An ad-hoc aggregation pipeline needs {@code allowAdhocAggregations}. */
    public void admitAdhocAggregation() {
        require(allows.adhocAggregation(), "ad-hoc aggregation pipelines (allowAdhocAggregations)");
    }

    /** Creating or dropping databases, collections and indexes needs {@code allowManagementRequests}. */
    public void admitManagement() {
        require(allows.management(), "database, collection or index changes (allowManagementRequests)");
    }

    private void require(boolean allowed, String what) {
        if (!allowed) {
            throw denied("this rule does not allow " + what);
        }
    }
}
