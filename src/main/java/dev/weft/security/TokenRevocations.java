package dev.weft.security;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * When each user's auth tokens were last revoked, kept in the store (collection
 * {@code tokens-revoked} beside the users collection, one document {@code {_id: user,
 * revokedAt: ms}} per user who ever revoked) so that every node refuses them. Read into memory
 * again whenever the collection changes ({@link Store#version}), so checking a token costs a map
 * lookup; its size is bounded by the number of users.
 */
final class TokenRevocations {
    static final String COLLECTION = "tokens-revoked";

    private record Snapshot(long version, Map<String, Long> revokedAt) {}

    private final Store store;
    private final Namespace ns;
    private final Json json;
    private final LongSupplier clockMs;
    private volatile Snapshot snapshot = new Snapshot(Long.MIN_VALUE, Map.of());

    TokenRevocations(Store store, String db, Json json, LongSupplier clockMs) {
        this.store = store;
        this.ns = new Namespace(db, COLLECTION);
        this.json = json;
        this.clockMs = clockMs;
        if (store.collection(ns).isEmpty()) {
            store.putCollection(ns, Json.NODES.objectNode(), Optional.empty());
        }
    }

    /** When {@code user}'s tokens were last revoked, {@link Long#MIN_VALUE} when never. */
    long revokedAt(String user) {
        return current().revokedAt().getOrDefault(user, Long.MIN_VALUE);
    }

    /** Revokes every token of {@code user} issued until now. */
    void revoke(String user) {
        ObjectNode doc = Json.NODES.objectNode().put("_id", user).put("revokedAt", clockMs.getAsLong());
        WriteResult result = store.write(new WriteOp.Replace(ns, doc, WriteOp.WriteMode.UPSERT, Optional.empty()));
        if (!result.ok()) {
            throw new WeftException(503, "the revocation of " + user + "'s tokens was not stored; retry");
        }
    }

    private Snapshot current() {
        long version = store.version(ns);
        Snapshot s = snapshot;
        if (s.version() == version) {
            return s;
        }
        Map<String, Long> revoked = new HashMap<>();
        store.find(ns, new FindQuery(Filter.all(), Sort.ID_DESCENDING, 0, Long.MAX_VALUE, Optional.empty()), doc -> {
            JsonNode d = json.parse(doc.json(), "token revocation");
            if (d.path("_id").isString() && d.path("revokedAt").canConvertToLong()) {
                revoked.put(d.get("_id").stringValue(), d.get("revokedAt").longValue());
            }
        });
        Snapshot fresh = new Snapshot(version, Map.copyOf(revoked));
        snapshot = fresh;
        return fresh;
    }
}
