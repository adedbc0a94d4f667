package dev.weft.store;

import dev.weft.core.Json;
import dev.weft.core.ObjectIds;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.KeyEncoding;
import dev.weft.query.Trigrams;
import dev.weft.query.UpdateDescription;
import dev.weft.query.Values;
import dev.weft.store.ChangeEvent.Operation;
import dev.weft.store.WriteOp.WriteMode;
import dev.weft.store.WriteResult.Outcome;
import dev.weft.store.plan.PlanIndex;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rules of document writes, independent of the engine: write modes, If-Match, new
 * {@code _id}s and {@code _etag}s, update operators, change events. The SQL engine supplies the
 * row operations on the tables ({@code sql.SqlDocumentWrites}, inside the store's open
 * transaction {@code T}) for a collection {@code C}.
 * Client errors are thrown as {@link WeftException} (the store turns them into results and rolls
 * the op back).
 */
public abstract class AbstractDocumentWrites<T, C> {
    /** Documents of a bulk op read and locked in one go: a bound on the bodies held at once. */
    private static final int LOCK_BATCH = 500;

    protected final Json json;
    private final long queryTimeoutMs;

    protected AbstractDocumentWrites(Json json, long queryTimeoutMs) {
        this.json = json;
        this.queryTimeoutMs = queryTimeoutMs;
    }

    protected abstract Namespace ns(C coll);

    /** The stored document with this encoded _id, or null; a store with concurrent writers locks it. */
    protected abstract ObjectNode load(T tx, C coll, byte[] id) throws SQLException;

    /**
     * Documents a bulk op will {@link #load} next, one after the other: an engine may read and lock
     * them in one go (each is still loaded, and must then be the locked state).
     */
    protected void lockAll(T tx, C coll, List<byte[]> ids) throws SQLException {
        // each load reads its own document
    }

    /** Inserts a new document and its index keys; a duplicate _id or unique key throws 409. */
    protected abstract void insert(T tx, C coll, ObjectNode doc, byte[] body) throws SQLException;

    /** Inserts several new documents (all or nothing: the caller rolls back on failure). */
    protected void insertAll(T tx, C coll, List<ObjectNode> docs, List<byte[]> bodies) throws SQLException {
        for (int i = 0; i < docs.size(); i++) {
            insert(tx, coll, docs.get(i), bodies.get(i));
        }
    }

    /**
     * {@link #insertAll(Object, Object, List, List)} of a prepared insert, given what it carries
     * made before the write ({@link WriteOp.EncodedInsert#textTerms} and
     * {@link WriteOp.EncodedInsert#trigramTexts}; an index not there is analyzed now).
     */
    protected void insertAll(T tx, C coll, WriteOp.EncodedInsert op) throws SQLException {
        insertAll(tx, coll, op.documents(), op.bodies());
    }

    /** Replaces {@code old} by {@code doc}, keeping the index keys in step. */
    protected abstract void rewrite(T tx, C coll, ObjectNode old, ObjectNode doc, byte[] body) throws SQLException;

    protected abstract void remove(T tx, C coll, ObjectNode old) throws SQLException;

    /** Receives one stored document: its encoded _id and its body. */
    protected interface Row {
        void accept(byte[] id, byte[] body) throws SQLException;
    }

    /** Every document {@code filter} may match (a superset: the caller matches each), once each, in no order. */
    protected abstract void candidates(T tx, C coll, Filter filter, Row row) throws SQLException;

    /**
     * The ids of the documents matching a bulk op's filter, all collected before any is changed,
     * so that an update moving a document along the index being read cannot meet it twice. The
     * search is a query: {@code query-timeout-ms} (or the request's {@code maxTimeMS}) bounds it.
     */
    private List<byte[]> matchingIds(T tx, C coll, Filter filter) throws SQLException {
        List<byte[]> ids = new ArrayList<>();
        QueryTime time = QueryTime.start(queryTimeoutMs);
        candidates(tx, coll, filter, (id, body) -> {
            time.row();
            if (filter.matches(json.parse(body, "stored document"))) {
                ids.add(id);
            }
        });
        return ids;
    }

    /** Applies one op inside the open transaction; {@code events} null when nobody listens. */
    public WriteResult apply(T tx, C coll, WriteOp op, List<ChangeEvent> events) throws SQLException {
        return switch (op) {
            case WriteOp.InsertMany m -> insert(tx, coll, prepare(m), events);
            case WriteOp.EncodedInsert e -> insert(tx, coll, e, events);
            case WriteOp.Replace r -> replace(tx, coll, r, events);
            case WriteOp.UpdateOne u -> updateOne(tx, coll, u, events);
            case WriteOp.DeleteOne d -> deleteOne(tx, coll, d, events);
            case WriteOp.UpdateMany u -> updateMany(tx, coll, u, events);
            case WriteOp.DeleteMany d -> deleteMany(tx, coll, d.filter(), events);
        };
    }

    /**
     * {@code op}, with an insert's stamping and encoding done now, on the calling thread: a store
     * with a single writer calls this before queueing, so that the writer only stores bytes.
     */
    public WriteOp prepare(WriteOp op) {
        return op instanceof WriteOp.InsertMany m ? prepare(m) : op;
    }

    private WriteOp.EncodedInsert prepare(WriteOp.InsertMany op) {
        String etag = null;
        List<ObjectNode> docs = new ArrayList<>(op.documents().size());
        List<byte[]> bodies = new ArrayList<>(op.documents().size());
        for (ObjectNode given : op.documents()) {
            ObjectNode doc = withId(given);
            etag = stamp(doc);
            docs.add(doc);
            bodies.add(json.bytes(doc));
        }
        return new WriteOp.EncodedInsert(op.ns(), docs, bodies, etag);
    }

    private WriteResult insert(T tx, C coll, WriteOp.EncodedInsert op, List<ChangeEvent> events) throws SQLException {
        insertAll(tx, coll, op);
        for (int i = 0; i < op.documents().size(); i++) {
            event(events, coll, Operation.INSERT, op.documents().get(i), op.bodies().get(i), null, null);
        }
        int n = op.documents().size();
        return WriteResult.done(Outcome.CREATED, n, n == 1 ? op.etag() : null);
    }

    private WriteResult replace(T tx, C coll, WriteOp.Replace op, List<ChangeEvent> events)
            throws SQLException {
        ObjectNode doc = withId(op.document());
        ObjectNode old = load(tx, coll, key(doc.get("_id")));
        WriteResult refused = refuse(old, op.mode(), op.ifMatch(), doc.get("_id"));
        if (refused != null) {
            return refused;
        }
        return save(tx, coll, old, doc, Operation.REPLACE, null, events);
    }

    private WriteResult updateOne(T tx, C coll, WriteOp.UpdateOne op, List<ChangeEvent> events)
            throws SQLException {
        ObjectNode old = load(tx, coll, key(op.id()));
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
        op.check().admit(old, doc);
        return save(tx, coll, old, doc, Operation.UPDATE, description, events);
    }

    /** Stamps a new _etag and stores the document: inserted when {@code old} is null, else rewritten. */
    private WriteResult save(T tx, C coll, ObjectNode old, ObjectNode doc, Operation change,
                             UpdateDescription description, List<ChangeEvent> events) throws SQLException {
        String etag = stamp(doc);
        byte[] body = json.bytes(doc);
        if (old == null) {
            insert(tx, coll, doc, body);
            event(events, coll, Operation.INSERT, doc, body, null, null);
            return WriteResult.done(Outcome.CREATED, 1, etag);
        }
        rewrite(tx, coll, old, doc, body);
        event(events, coll, change, doc, body, change == Operation.UPDATE ? withEtag(description, doc) : null, old);
        return WriteResult.done(Outcome.UPDATED, 1, etag);
    }

    private WriteResult deleteOne(T tx, C coll, WriteOp.DeleteOne op, List<ChangeEvent> events)
            throws SQLException {
        ObjectNode old = load(tx, coll, key(op.id()));
        if (old == null) {
            return WriteResult.failed(Outcome.NOT_FOUND, "no document with _id " + json.text(op.id()));
        }
        WriteResult refused = refuse(old, WriteMode.UPDATE, op.ifMatch(), op.id());
        if (refused != null) {
            return refused;
        }
        remove(tx, coll, old);
        event(events, coll, Operation.DELETE, old, null, null, old);
        return WriteResult.done(Outcome.DELETED, 1, null);
    }

    private WriteResult updateMany(T tx, C coll, WriteOp.UpdateMany op, List<ChangeEvent> events)
            throws SQLException {
        Filter filter = op.filter();
        long n = 0;
        List<byte[]> ids = matchingIds(tx, coll, filter);
        for (int i = 0; i < ids.size(); i++) {
            byte[] id = ids.get(i);
            lockNext(tx, coll, ids, i);
            ObjectNode old = load(tx, coll, id);
            if (old == null || !filter.matches(old)) {
                continue; // changed by a concurrent writer (stores with several writers) since it matched
            }
            ObjectNode doc = old.deepCopy();
            UpdateDescription description = op.update().apply(doc, false);
            keepId(doc, old.get("_id"));
            op.check().admit(old, doc);
            stamp(doc);
            byte[] body = json.bytes(doc);
            rewrite(tx, coll, old, doc, body);
            event(events, coll, Operation.UPDATE, doc, body, withEtag(description, doc), old);
            n++;
        }
        return WriteResult.done(Outcome.BULK_DONE, n, null);
    }

    private WriteResult deleteMany(T tx, C coll, Filter filter, List<ChangeEvent> events)
            throws SQLException {
        long n = 0;
        List<byte[]> ids = matchingIds(tx, coll, filter);
        for (int i = 0; i < ids.size(); i++) {
            byte[] id = ids.get(i);
            lockNext(tx, coll, ids, i);
            ObjectNode old = load(tx, coll, id);
            if (old == null || !filter.matches(old)) {
                continue;
            }
            remove(tx, coll, old);
            event(events, coll, Operation.DELETE, old, null, null, old);
            n++;
        }
        return WriteResult.done(Outcome.BULK_DONE, n, null);
    }

    /** At every {@link #LOCK_BATCH}th id, the next batch of ids is handed to {@link #lockAll}. */
    private void lockNext(T tx, C coll, List<byte[]> ids, int i) throws SQLException {
        if (i % LOCK_BATCH == 0) {
            lockAll(tx, coll, ids.subList(i, Math.min(ids.size(), i + LOCK_BATCH)));
        }
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
            return WriteResult.failed(Outcome.CONFLICT, DuplicateKey.id(json.text(id)));
        }
        if (ifMatch.isPresent() && !ifMatch.get().equals(etagOf(old))) {
            return WriteResult.failed(Outcome.PRECONDITION_FAILED, "the document's _etag does not match If-Match");
        }
        return null;
    }

    public static String etagOf(JsonNode doc) {
        JsonNode etag = doc.get("_etag");
        if (etag == null) {
            return null;
        }
        return etag.isObject() && etag.has("$oid") ? etag.get("$oid").asString() : etag.asString();
    }

    /** Compares by BSON value, as MongoDB matches _id: a stored int 1 is the URL's long 1 (or 1.0). */
    private static void keepId(ObjectNode doc, JsonNode id) {
        JsonNode now = doc.get("_id");
        if (now == null || !Values.equal(now, id)) {
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

    /** Records the change; {@code previous} (the pre-image, null for an insert) lets streams tell a document left a filter. */
    private void event(List<ChangeEvent> events, C coll, Operation op, ObjectNode doc, byte[] body,
                       UpdateDescription description, ObjectNode previous) {
        if (events != null) {
            events.add(new ChangeEvent(ns(coll), op, doc.get("_id"), body, description,
                    previous == null ? null : json.bytes(previous)));
        }
    }

    // --- keys ---------------------------------------------------------------------------

    public static byte[] key(JsonNode id) {
        return KeyEncoding.encode(id);
    }

    /** A document's distinct keys in an index: none when the index does not hold it (sparse, partial). */
    public static TreeSet<byte[]> keys(PlanIndex index, JsonNode doc) {
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        if (index.spec().trigram()) {
            return Trigrams.keys(doc, index.fields().getFirst().path());
        }
        if (index.spec().isText()) {
            return index.spec().text().keys(doc, Trigrams.MAX_KEYS_PER_DOCUMENT);
        }
        if (index.spec().holds(doc)) {
            keys.addAll(KeyEncoding.indexKeys(doc, index.fields()));
        }
        return keys;
    }

    /** An index's keys that a rewrite takes away ({@code gone}) and brings ({@code added}); keys kept are in neither. */
    protected record KeyChange(TreeSet<byte[]> gone, TreeSet<byte[]> added) {}

    /** How the keys of {@code index} change when {@code old} is replaced by {@code doc}. */
    protected static KeyChange keyChange(PlanIndex index, JsonNode old, JsonNode doc) {
        TreeSet<byte[]> before = keys(index, old);
        TreeSet<byte[]> after = keys(index, doc);
        TreeSet<byte[]> gone = new TreeSet<>(before);
        gone.removeAll(after);
        after.removeAll(before);
        return new KeyChange(gone, after);
    }
}
