package dev.weft.store.txn;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.DuplicateKey;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.txn.Overlays.DocKey;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The store's write rules ({@link AbstractDocumentWrites}) run against an
 * {@link OverlayTransaction}: documents are read from the overlay, else from the store, and
 * written to the overlay only. Unique secondary indexes are checked at commit, by the store.
 */
final class OverlayWrites extends AbstractDocumentWrites<OverlayTransaction, Namespace> {
    private final Store base;

    OverlayWrites(Json json, long queryTimeoutMs, Store base) {
        super(json, queryTimeoutMs);
        this.base = base;
    }

    @Override
    protected Namespace ns(Namespace coll) {
        return coll;
    }

    @Override
    protected ObjectNode load(OverlayTransaction tx, Namespace ns, byte[] id) {
        return tx.load(ns, id);
    }

    @Override
    protected void insert(OverlayTransaction tx, Namespace ns, ObjectNode doc, byte[] body) {
        JsonNode id = doc.get("_id");
        byte[] key = key(id);
        tx.ids.putIfAbsent(DocKey.of(ns, key), id);
        if (tx.load(ns, key) != null) {
            throw WeftException.conflict(DuplicateKey.id(json.text(id)));
        }
        tx.write(ns, id, body);
    }

    @Override
    protected void rewrite(OverlayTransaction tx, Namespace ns, ObjectNode old, ObjectNode doc, byte[] body) {
        tx.write(ns, doc.get("_id"), body);
    }

    @Override
    protected void remove(OverlayTransaction tx, Namespace ns, ObjectNode old) {
        tx.write(ns, old.get("_id"), null);
    }

    /** The store's matches not overlaid, then the overlay's documents (the caller matches each). */
    @Override
    protected void candidates(OverlayTransaction tx, Namespace ns, Filter filter, Row row) throws SQLException {
        record Candidate(byte[] key, byte[] body) {}
        List<Candidate> found = new ArrayList<>();
        base.find(ns, new FindQuery(filter, null, 0, Long.MAX_VALUE, Optional.empty()), stored -> {
            JsonNode doc = json.parse(stored.json(), "stored document");
            byte[] key = key(doc.get("_id"));
            DocKey k = DocKey.of(ns, key);
            if (!tx.entries.containsKey(k) && filter.matches(doc)) {
                tx.ids.putIfAbsent(k, doc.get("_id"));
                found.add(new Candidate(key, stored.json()));
            }
        });
        for (OverlayTransaction.Entry e : tx.entries.values()) {
            if (e.ns().equals(ns) && !e.deleted()) {
                found.add(new Candidate(key(e.id()), e.body()));
            }
        }
        for (Candidate c : found) {
            row.accept(c.key(), c.body());
        }
    }
}
