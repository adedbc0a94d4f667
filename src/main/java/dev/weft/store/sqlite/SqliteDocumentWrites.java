package dev.weft.store.sqlite;

import dev.weft.store.Catalog;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.KeyEncoding;
import dev.weft.store.ChangeEvent;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.DuplicateKey;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.WriteResult.Outcome;
import dev.weft.store.plan.QueryPlanner;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;
import tools.jackson.databind.node.ObjectNode;

/**
 * Applies {@link WriteOp}s on the writer connection, inside the writer's open transaction: the
 * rules are {@link AbstractDocumentWrites}'; here are the rows of documents, their index keys
 * and unique checks. Client errors are thrown as {@link WeftException} (the writer turns them
 * into results and rolls the op back).
 */
final class SqliteDocumentWrites extends AbstractDocumentWrites<Sql, Catalog.Coll> implements Writer.OpRunner {
    private final Supplier<Catalog> catalog;
    private final Supplier<Boolean> wantEvents;

    SqliteDocumentWrites(Json json, long queryTimeoutMs, Supplier<Catalog> catalog, Supplier<Boolean> wantEvents) {
        super(json, queryTimeoutMs);
        this.catalog = catalog;
        this.wantEvents = wantEvents;
    }

    @Override
    public WriteResult apply(Sql sql, WriteOp op, List<ChangeEvent> events) throws SQLException {
        Catalog.Coll coll = catalog.get().colls().get(op.ns());
        if (coll == null) {
            return WriteResult.failed(Outcome.NOT_FOUND, "collection " + op.ns() + " does not exist");
        }
        return apply(sql, coll, op, wantEvents.get() ? events : null);
    }

    @Override
    protected Namespace ns(Catalog.Coll coll) {
        return coll.ns();
    }

    @Override
    protected void candidates(Sql sql, Catalog.Coll coll, Filter filter, Row row) throws SQLException {
        QueryPlanner.Plan<Catalog.Index> plan = Planner.plan(sql, coll, filter, null, 0, Long.MAX_VALUE, Optional.empty());
        Scan.candidates(sql, coll, plan, filter, (id, body) -> {
            row.accept(id, body);
            return true;
        });
    }

    // --- rows ---------------------------------------------------------------------------

    @Override
    protected ObjectNode load(Sql sql, Catalog.Coll coll, byte[] id) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT body FROM " + coll.table() + " WHERE id = ?");
        ps.setBytes(1, id);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? json.parseObject(rs.getBytes(1), "stored document") : null;
        }
    }

    @Override
    protected void insert(Sql sql, Catalog.Coll coll, ObjectNode doc, byte[] body) throws SQLException {
        byte[] id = key(doc.get("_id"));
        PreparedStatement ps = sql.prepare("INSERT OR IGNORE INTO " + coll.table() + "(id, body) VALUES (?, ?)");
        ps.setBytes(1, id);
        ps.setBytes(2, body);
        if (ps.executeUpdate() == 0) {
            throw WeftException.conflict(DuplicateKey.id(json.text(doc.get("_id"))));
        }
        for (Catalog.Index index : coll.indexes()) {
            addKeys(sql, coll, index, doc, id, keys(index, doc));
        }
    }

    @Override
    protected void rewrite(Sql sql, Catalog.Coll coll, ObjectNode old, ObjectNode doc, byte[] body) throws SQLException {
        byte[] id = key(doc.get("_id"));
        PreparedStatement ps = sql.prepare("UPDATE " + coll.table() + " SET body = ? WHERE id = ?");
        ps.setBytes(1, body);
        ps.setBytes(2, id);
        ps.executeUpdate();
        for (Catalog.Index index : coll.indexes()) {
            KeyChange change = keyChange(index, old, doc);
            removeKeys(sql, index, id, change.gone());
            addKeys(sql, coll, index, doc, id, change.added());
        }
    }

    @Override
    protected void remove(Sql sql, Catalog.Coll coll, ObjectNode old) throws SQLException {
        byte[] id = key(old.get("_id"));
        PreparedStatement ps = sql.prepare("DELETE FROM " + coll.table() + " WHERE id = ?");
        ps.setBytes(1, id);
        ps.executeUpdate();
        for (Catalog.Index index : coll.indexes()) {
            removeKeys(sql, index, id, keys(index, old));
        }
    }

    private void addKeys(Sql sql, Catalog.Coll coll, Catalog.Index index, ObjectNode doc, byte[] id,
                         TreeSet<byte[]> keys) throws SQLException {
        if (!index.multikey() && KeyEncoding.isMultikey(doc, index.fields())) {
            // set before the commit that stores the array: see Catalog.Index
            index.markMultikey();
            PreparedStatement mark = sql.prepare("UPDATE weft_indexes SET multikey = 1 WHERE id = ?");
            mark.setLong(1, index.id());
            mark.executeUpdate();
        }
        if (index.spec().unique()) {
            PreparedStatement check = sql.prepare("SELECT 1 FROM " + index.table() + " WHERE key = ? AND id <> ? LIMIT 1");
            for (byte[] k : keys) {
                check.setBytes(1, k);
                check.setBytes(2, id);
                try (ResultSet rs = check.executeQuery()) {
                    if (rs.next()) {
                        throw WeftException.conflict(DuplicateKey.uniqueIndex(index.spec().name(),
                                json.text(doc.get("_id"))));
                    }
                }
            }
        }
        PreparedStatement ps = sql.prepare("INSERT OR IGNORE INTO " + index.table() + "(key, id) VALUES (?, ?)");
        for (byte[] k : keys) {
            ps.setBytes(1, k);
            ps.setBytes(2, id);
            ps.executeUpdate();
        }
    }

    private static void removeKeys(Sql sql, Catalog.Index index, byte[] id, TreeSet<byte[]> keys) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM " + index.table() + " WHERE key = ? AND id = ?");
        for (byte[] k : keys) {
            ps.setBytes(1, k);
            ps.setBytes(2, id);
            ps.executeUpdate();
        }
    }
}
