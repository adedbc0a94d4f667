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
 * {@link #admitUpdate}/{@link #admitResult}; bulk writes match with {@link #narrowWrite};
 * database, collection and index changes call {@link #admitManagement}.
 *
 * <p>Invariants: a permission is immutable and built for one principal (its filters already hold
 * the principal's variables); {@link #ALL} restricts nothing; {@link #cacheKey} is equal for two
 * permissions only when they narrow and project reads identically, so cached results are shared
 * exactly between requests that would compute the same bytes.
 */
public final class Permission {
    /** Everything, for the built-in {@code admin} role and for servers without security. */
    public static final Permission ALL = new Permission(false, Optional.empty(), Optional.empty(), Optional.empty(),
            List.of(), Optional.empty(), true, "");

    private final boolean anonymous;
    private final Optional<Filter> read;
    private final Optional<Filter> write;
    private final Optional<Projection> projection;
    private final List<String> protectedFields;
    private final Optional<ObjectNode> merge;
    private final boolean management;
    private final String cacheKey;

    /**
     * @param anonymous       granted to a request without credentials (denials are then 401)
     * @param read            documents outside it are invisible to every read and write
     * @param write           documents a write may touch, before and after it
     * @param projection      applied last to every document a read returns
     * @param protectedFields dotted paths a write may not set or change
     * @param merge           fields set on every document written whole (after the protected check)
     * @param management      whether database, collection and index changes are allowed
     * @param cacheKey        the normalized text of {@code read} and {@code projection}
     */
    public Permission(boolean anonymous, Optional<Filter> read, Optional<Filter> write, Optional<Projection> projection,
                      List<String> protectedFields, Optional<ObjectNode> merge, boolean management, String cacheKey) {
        this.anonymous = anonymous;
        this.read = read;
        this.write = write;
        this.projection = projection;
        this.protectedFields = List.copyOf(protectedFields);
        this.merge = merge;
        this.management = management;
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
     * The client's filter ANDed with the read filter; 403 (401 anonymous) when the client's
     * filter names a field {@code projectResponse} hides, since matching on it would reveal it.
     */
    public Filter narrowRead(Filter client) {
        checkShown("filter", client);
        return read.map(r -> client == Filter.all() ? r : Filter.and(List.of(client, r))).orElse(client);
    }

    /** For bulk writes: the client's filter ANDed with the read and the write filter. */
    public Filter narrowWrite(Filter client) {
        checkShown("filter", client);
        List<Filter> all = new ArrayList<>(3);
        if (client != Filter.all()) {
            all.add(client);
        }
        read.ifPresent(all::add);
        write.ifPresent(all::add);
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
            JsonNode given = at(document, field);
            JsonNode allowed = base == null ? null : at(base, field);
            boolean clientChanges = given != null && !given.equals(allowed);
            boolean resultChanges = !java.util.Objects.equals(at(result, field), allowed);
            if (clientChanges || resultChanges) {
                throw denied("field " + field + " is protected: a write may not set or change it");
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
     * A PATCH body may not name a protected field, or a parent or child of one, in any operator
     * (a plain object is {@code $set} of its fields; {@code $rename} names two paths).
     */
    public void admitUpdate(JsonNode body) {
        if (protectedFields.isEmpty() || !body.isObject()) {
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
                    if (op.getKey().equals("$rename") && target.getValue().isString()) {
                        checkUpdatePath(target.getValue().asString());
                    }
                }
            }
        }
    }

    private void checkUpdatePath(String path) {
        for (String field : protectedFields) {
            if (path.equals(field) || path.startsWith(field + ".") || field.startsWith(path + ".")) {
                throw denied("field " + field + " is protected: a write may not set or change it");
            }
        }
    }

    /** Creating or dropping databases, collections and indexes needs {@code allowManagementRequests}. */
    public void admitManagement() {
        if (!management) {
            throw denied("this rule does not allow database, collection or index changes (allowManagementRequests)");
        }
    }

    /** The value at a dotted path through objects, or null when absent. */
    private static JsonNode at(JsonNode doc, String path) {
        JsonNode node = doc;
        for (String part : path.split("\\.")) {
            if (node == null || !node.isObject()) {
                return null;
            }
            node = node.get(part);
        }
        return node;
    }
}
