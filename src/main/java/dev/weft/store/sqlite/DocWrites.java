package dev.weft.store.sqlite;

import dev.weft.core.Json;
import dev.weft.core.ObjectIds;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.KeyEncoding;
import dev.weft.query.Update;
import dev.weft.query.UpdateDescription;
import dev.weft.store.ChangeEvent;
import dev.weft.store.ChangeEvent.Operation;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult;
import dev.weft.store.WriteResult.Outcome;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Applies {@link WriteOp}s on the writer connection, inside the writer's open transaction:
 * documents, their index keys, unique checks and change events. Client errors are thrown as
 * {@link WeftException} (the writer turns them into results and rolls the op back).
 */
final class DocWrites implements Writer.OpRunner {
    private final Json json;
    private final Supplier<Catalog> catalog;

    DocWrites(Json json, Supplier<Catalog> catalog) {
        this.json = json;
        this.catalog = catalog;
    }

    @Override
    public WriteResult apply(Sql sql, WriteOp op, List<ChangeEvent> events) throws SQLException {
        Catalog.Coll coll = catalog.get().colls().get(op.ns());
        if (coll == null) {
            return WriteResult.failed(Outcome.NOT_FOUND, "collection " + op.ns() + " does not exist");
        }
        return switch (op) {
            case WriteOp.InsertMany m -> insertMany(sql, coll, m.documents(), events);
            case WriteOp.Replace r -> replace(sql, coll, r, events);
            case WriteOp.UpdateOne u -> updateOne(sql, coll, u, events);
            case WriteOp.DeleteOne d -> deleteOne(sql, coll, d, events);
            case WriteOp.UpdateMany u -> updateMany(sql, coll, u.filter(), u.update(), events);
            case WriteOp.DeleteMany d -> deleteMany(sql, coll, d.filter(), events);
        };
    }

    private WriteResult insertMany(Sql sql, Catalog.Coll coll, List<ObjectNode> documents, List<ChangeEvent> events)
            throws SQLException {
        String etag = null;
        for (ObjectNode given : documents) {
            ObjectNode doc = withId(given);
            etag = stamp(doc);
            byte[] body = json.bytes(doc);
            insert(sql, coll, doc, body);
            event(events, coll, Operation.INSERT, doc, body, null, null);
        }
        return WriteResult.done(Outcome.CREATED, documents.size(), documents.size() == 1 ? etag : null);
    }

    private WriteResult replace(Sql sql, Catalog.Coll coll, WriteOp.Replace op, List<ChangeEvent> events)
            throws SQLException {
        ObjectNode doc = withId(op.document());
        byte[] oldBody = loadBody(sql, coll, key(doc.get("_id")));
        ObjectNode old = parse(oldBody);
        WriteResult refused = refuse(old, op.mode(), op.ifMatch(), doc.get("_id"));
        if (refused != null) {
            return refused;
        }
        return save(sql, coll, old, oldBody, doc, Operation.REPLACE, null, events);
    }

    private WriteResult updateOne(Sql sql, Catalog.Coll coll, WriteOp.UpdateOne op, List<ChangeEvent> events)
            throws SQLException {
        byte[] oldBody = loadBody(sql, coll, key(op.id()));
        ObjectNode old = parse(oldBody);
        WriteResult refused = refuse(old, op.mode(), op.ifMatch(), op.id());
        if (refused != null) {
            return refused;
        }
        ObjectNode doc;
        if (old == null) {
            doc = Json.NODES.objectNode();
            doc.set("_id", op.id());
        } else {
            doc = old.deepCopy();
        }
        UpdateDescription description = op.update().apply(doc, old == null);
        keepId(doc, op.id());
        return save(sql, coll, old, oldBody, doc, Operation.UPDATE, description, events);
    }

    /** Stamps a new _etag and stores the document: inserted when {@code old} is null, else rewritten. */
    private WriteResult save(Sql sql, Catalog.Coll coll, ObjectNode old, byte[] oldBody, ObjectNode doc,
                             Operation change, UpdateDescription description, List<ChangeEvent> events)
            throws SQLException {
        String etag = stamp(doc);
        byte[] body = json.bytes(doc);
        if (old == null) {
            insert(sql, coll, doc, body);
            event(events, coll, Operation.INSERT, doc, body, null, null);
            return WriteResult.done(Outcome.CREATED, 1, etag);
        }
        rewrite(sql, coll, old, doc, body);
        event(events, coll, change, doc, body, change == Operation.UPDATE ? withEtag(description, doc) : null, oldBody);
        return WriteResult.done(Outcome.UPDATED, 1, etag);
    }

    private WriteResult deleteOne(Sql sql, Catalog.Coll coll, WriteOp.DeleteOne op, List<ChangeEvent> events)
            throws SQLException {
        byte[] oldBody = loadBody(sql, coll, key(op.id()));
        ObjectNode old = parse(oldBody);
        if (old == null) {
            return WriteResult.failed(Outcome.NOT_FOUND, "no document with _id " + json.text(op.id()));
        }
        WriteResult refused = refuse(old, WriteMode.UPDATE, op.ifMatch(), op.id());
        if (refused != null) {
            return refused;
        }
        remove(sql, coll, old);
        event(events, coll, Operation.DELETE, old, null, null, oldBody);
        return WriteResult.done(Outcome.DELETED, 1, null);
    }

    private WriteResult updateMany(Sql sql, Catalog.Coll coll, Filter filter, Update update, List<ChangeEvent> events)
            throws SQLException {
        long n = 0;
        for (byte[] id : matchingIds(sql, coll, filter)) {
            byte[] oldBody = loadBody(sql, coll, id);
            ObjectNode old = parse(oldBody);
            ObjectNode doc = old.deepCopy();
            UpdateDescription description = update.apply(doc, false);
            keepId(doc, old.get("_id"));
            stamp(doc);
            byte[] body = json.bytes(doc);
            rewrite(sql, coll, old, doc, body);
            event(events, coll, Operation.UPDATE, doc, body, withEtag(description, doc), oldBody);
            n++;
        }
        return WriteResult.done(Outcome.BULK_DONE, n, null);
    }

    private WriteResult deleteMany(Sql sql, Catalog.Coll coll, Filter filter, List<ChangeEvent> events)
            throws SQLException {
        long n = 0;
        for (byte[] id : matchingIds(sql, coll, filter)) {
            byte[] oldBody = loadBody(sql, coll, id);
            ObjectNode old = parse(oldBody);
            remove(sql, coll, old);
            event(events, coll, Operation.DELETE, old, null, null, oldBody);
            n++;
        }
        return WriteResult.done(Outcome.BULK_DONE, n, null);
    }

    /**
     * The ids of the documents matching a bulk op's filter, all collected before any is changed,
     * so that an update moving a document along the index being read cannot meet it twice.
     */
    private List<byte[]> matchingIds(Sql sql, Catalog.Coll coll, Filter filter) throws SQLException {
        Planner.Plan plan = Planner.plan(sql, coll, filter, null, 0, Long.MAX_VALUE, Optional.empty());
        List<byte[]> ids = new ArrayList<>();
        Scan.candidates(sql, coll, plan, (id, body) -> {
            if (filter.matches(json.parse(body, "stored document"))) {
                ids.add(id);
            }
            return true;
        });
        return ids;
    }

    // --- rules --------------------------------------------------------------------------

    /** The refusal of a single-document write by write mode and If-Match, or null to go on. */
    private WriteResult refuse(ObjectNode old, WriteMode mode, Optional<String> ifMatch, JsonNode id) {
        if (old == null) {
            if (mode == WriteMode.UPDATE) {
                return WriteResult.failed(Outcome.NOT_FOUND, "no document with _id " + json.text(id));
            }
            if (ifMatch.isPresent()) {
                return WriteResult.failed(Outcome.PRECONDITION_FAILED,
                        "If-Match given but no document with _id " + json.text(id) + " exists");
            }
            return null;
        }
        if (mode == WriteMode.INSERT) {
            return WriteResult.failed(Outcome.CONFLICT, "duplicate _id: a document with _id " + json.text(id)
                    + " already exists");
        }
        if (ifMatch.isPresent() && !ifMatch.get().equals(etagOf(old))) {
            return WriteResult.failed(Outcome.PRECONDITION_FAILED, "the document's _etag does not match If-Match");
        }
        return null;
    }

    static String etagOf(JsonNode doc) {
        JsonNode etag = doc.get("_etag");
        if (etag == null) {
            return null;
        }
        return etag.isObject() && etag.has("$oid") ? etag.get("$oid").asString() : etag.asString();
    }

    private static void keepId(ObjectNode doc, JsonNode id) {
        JsonNode now = doc.get("_id");
        if (now == null || !now.equals(id)) {
            throw WeftException.badRequest("an update cannot change _id");
        }
    }

    /** The document, with a new ObjectId first if it has no _id (the HTTP layer normally sets one). */
    private static ObjectNode withId(ObjectNode doc) {
        if (doc.has("_id")) {
            return doc;
        }
        ObjectNode copy = Json.NODES.objectNode();
        copy.putObject("_id").put("$oid", ObjectIds.next());
        copy.setAll(doc);
        return copy;
    }

    private static String stamp(ObjectNode doc) {
        String etag = ObjectIds.next();
        doc.putObject("_etag").put("$oid", etag);
        return etag;
    }

    private static UpdateDescription withEtag(UpdateDescription d, ObjectNode doc) {
        if (d == null) {
            return null;
        }
        ObjectNode fields = d.updatedFields() == null ? Json.NODES.objectNode() : d.updatedFields().deepCopy();
        fields.set("_etag", doc.get("_etag"));
        return new UpdateDescription(fields, d.removedFields());
    }

    private static void event(List<ChangeEvent> events, Catalog.Coll coll, Operation op, ObjectNode doc, byte[] body,
                              UpdateDescription description, byte[] previous) {
        events.add(new ChangeEvent(coll.ns(), op, doc.get("_id"), body, description, previous));
    }

    // --- rows ---------------------------------------------------------------------------

    static byte[] key(JsonNode id) {
        return KeyEncoding.encode(id);
    }

    /** The stored bytes of the document with key {@code id}, or null (they become the event's pre-image). */
    private static byte[] loadBody(Sql sql, Catalog.Coll coll, byte[] id) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT body FROM " + coll.table() + " WHERE id = ?");
        ps.setBytes(1, id);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getBytes(1) : null;
        }
    }

    private ObjectNode parse(byte[] body) {
        return body == null ? null : json.parseObject(body, "stored document");
    }

    private void insert(Sql sql, Catalog.Coll coll, ObjectNode doc, byte[] body) throws SQLException {
        byte[] id = key(doc.get("_id"));
        PreparedStatement ps = sql.prepare("INSERT OR IGNORE INTO " + coll.table() + "(id, body) VALUES (?, ?)");
        ps.setBytes(1, id);
        ps.setBytes(2, body);
        if (ps.executeUpdate() == 0) {
            throw WeftException.conflict("duplicate _id: a document with _id " + json.text(doc.get("_id"))
                    + " already exists");
        }
        for (Catalog.Index index : coll.indexes()) {
            addKeys(sql, coll, index, doc, id, keys(index, doc));
        }
    }

    private void rewrite(Sql sql, Catalog.Coll coll, ObjectNode old, ObjectNode doc, byte[] body) throws SQLException {
        byte[] id = key(doc.get("_id"));
        PreparedStatement ps = sql.prepare("UPDATE " + coll.table() + " SET body = ? WHERE id = ?");
        ps.setBytes(1, body);
        ps.setBytes(2, id);
        ps.executeUpdate();
        for (Catalog.Index index : coll.indexes()) {
            TreeSet<byte[]> before = keys(index, old);
            TreeSet<byte[]> after = keys(index, doc);
            TreeSet<byte[]> gone = new TreeSet<>(before);
            gone.removeAll(after);
            after.removeAll(before);
            removeKeys(sql, index, id, gone);
            addKeys(sql, coll, index, doc, id, after);
        }
    }

    private void remove(Sql sql, Catalog.Coll coll, ObjectNode old) throws SQLException {
        byte[] id = key(old.get("_id"));
        PreparedStatement ps = sql.prepare("DELETE FROM " + coll.table() + " WHERE id = ?");
        ps.setBytes(1, id);
        ps.executeUpdate();
        for (Catalog.Index index : coll.indexes()) {
            removeKeys(sql, index, id, keys(index, old));
        }
    }

    /** A document's distinct keys in an index. */
    static TreeSet<byte[]> keys(Catalog.Index index, JsonNode doc) {
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        keys.addAll(KeyEncoding.indexKeys(doc, index.fields()));
        return keys;
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
                        throw WeftException.conflict("duplicate key: unique index '" + index.spec().name()
                                + "' already has this key for another document (writing _id "
                                + json.text(doc.get("_id")) + ")");
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
