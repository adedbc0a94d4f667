package dev.weft.store.postgres;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.store.Catalog;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.DuplicateKey;
import dev.weft.store.Namespace;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rows of document writes in PostgreSQL, inside the caller's transaction. Concurrency is the
 * database's: a single-document write locks the row it reads ({@code SELECT ... FOR UPDATE}), so
 * If-Match and read-modify-write cannot lose an update, also between Weft nodes. Duplicate
 * {@code _id}s and unique keys are refused by the database's own constraints (the primary key of
 * {@code d<id>}, a unique index on the key of a unique index's table {@code i<id>}), whose
 * violation (SQLSTATE 23505) the store reports as 409.
 */
final class PostgresDocumentWrites extends AbstractDocumentWrites<Connection, Catalog.Coll> {
    private final PostgresStore store;

    PostgresDocumentWrites(Json json, long queryTimeoutMs, PostgresStore store) {
        super(json, queryTimeoutMs);
        this.store = store;
    }

    @Override
    protected Namespace ns(Catalog.Coll coll) {
        return coll.ns();
    }

    @Override
    protected ObjectNode load(Connection c, Catalog.Coll coll, byte[] id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT body FROM " + coll.table() + " WHERE id = ? FOR UPDATE")) {
            ps.setBytes(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? json.parseObject(rs.getBytes(1), "stored document") : null;
            }
        }
    }

    @Override
    protected void insert(Connection c, Catalog.Coll coll, ObjectNode doc, byte[] body) throws SQLException {
        insertAll(c, coll, List.of(doc), List.of(body));
    }

    /** One multi-row INSERT for the documents and one per index for their keys. */
    @Override
    protected void insertAll(Connection c, Catalog.Coll coll, List<ObjectNode> docs, List<byte[]> bodies)
            throws SQLException {
        byte[][] ids = new byte[docs.size()][];
        String[] texts = new String[docs.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = key(docs.get(i).get("_id"));
            texts[i] = new String(bodies.get(i), java.nio.charset.StandardCharsets.UTF_8);
        }
        String sql = "INSERT INTO " + coll.table() + "(id, body, doc) SELECT i, convert_to(t, 'UTF8'), t::jsonb"
                + " FROM unnest(?::bytea[], ?::text[]) AS u(i, t) ON CONFLICT (id) DO NOTHING";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("bytea", ids));
            ps.setArray(2, c.createArrayOf("text", texts));
            int inserted = ps.executeUpdate();
            if (inserted != ids.length) {
                throw dev.weft.core.WeftException.conflict(docs.size() == 1
                        ? DuplicateKey.id(json.text(docs.getFirst().get("_id")))
                        : DuplicateKey.ids(ids.length - inserted));
            }
        }
        for (Catalog.Index index : coll.indexes()) {
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> keyIds = new ArrayList<>();
            for (int i = 0; i < ids.length; i++) {
                ObjectNode doc = docs.get(i);
                markMultikey(c, index, doc);
                for (byte[] k : keys(index, doc)) {
                    keys.add(k);
                    keyIds.add(ids[i]);
                }
            }
            addKeys(c, index, keys, keyIds);
        }
    }

    @Override
    protected void rewrite(Connection c, Catalog.Coll coll, ObjectNode old, ObjectNode doc, byte[] body)
            throws SQLException {
        byte[] id = key(doc.get("_id"));
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + coll.table() + " SET body = ?, doc = ?::jsonb WHERE id = ?")) {
            ps.setBytes(1, body);
            ps.setString(2, new String(body, java.nio.charset.StandardCharsets.UTF_8));
            ps.setBytes(3, id);
            ps.executeUpdate();
        }
        for (Catalog.Index index : coll.indexes()) {
            KeyChange change = keyChange(index, old, doc);
            removeKeys(c, index, id, change.gone());
            markMultikey(c, index, doc);
            addKeys(c, index, new ArrayList<>(change.added()), java.util.Collections.nCopies(change.added().size(), id));
        }
    }

    @Override
    protected void remove(Connection c, Catalog.Coll coll, ObjectNode old) throws SQLException {
        byte[] id = key(old.get("_id"));
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + coll.table() + " WHERE id = ?")) {
            ps.setBytes(1, id);
            ps.executeUpdate();
        }
        for (Catalog.Index index : coll.indexes()) {
            removeKeys(c, index, id, keys(index, old));
        }
    }

    @Override
    protected void candidates(Connection c, Catalog.Coll coll, Filter filter, Row row) throws SQLException {
        store.candidates(c, coll, filter, row::accept);
    }

    /**
     * Sets the index's multikey flag in the same transaction that stores the first array on its
     * paths, so a reader whose snapshot sees the flag unset sees no such document (readers check
     * the flag in their snapshot before trusting an index's order or its single-key ranges).
     */
    private static void markMultikey(Connection c, Catalog.Index index, ObjectNode doc) throws SQLException {
        if (!index.multikey() && dev.weft.query.KeyEncoding.isMultikey(doc, index.fields())) {
            try (PreparedStatement ps = c.prepareStatement("UPDATE weft_indexes SET multikey = 1 WHERE id = ? AND multikey = 0")) {
                ps.setLong(1, index.id());
                ps.executeUpdate();
            }
            index.markMultikey();
        }
    }

    private static void addKeys(Connection c, Catalog.Index index, List<byte[]> keys, List<byte[]> ids)
            throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + index.table()
                + "(key, id) SELECT * FROM unnest(?::bytea[], ?::bytea[]) ON CONFLICT (key, id) DO NOTHING")) {
            ps.setArray(1, array(c, keys));
            ps.setArray(2, array(c, ids));
            ps.executeUpdate();
        }
    }

    private static void removeKeys(Connection c, Catalog.Index index, byte[] id, TreeSet<byte[]> keys)
            throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + index.table() + " WHERE id = ? AND key = ANY(?::bytea[])")) {
            ps.setBytes(1, id);
            ps.setArray(2, array(c, new ArrayList<>(keys)));
            ps.executeUpdate();
        }
    }

    static Array array(Connection c, List<byte[]> values) throws SQLException {
        return c.createArrayOf("bytea", values.toArray(new byte[0][]));
    }
}
