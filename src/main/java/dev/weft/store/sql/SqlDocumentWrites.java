package dev.weft.store.sql;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.KeyEncoding;
import dev.weft.query.TextIndex;
import dev.weft.query.Trigrams;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.Catalog;
import dev.weft.store.DuplicateKey;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ObjectNode;

/**
 * The rows of document writes, inside the caller's transaction: the rules are
 * {@link AbstractDocumentWrites}'; here are the document rows, their index keys, unique keys and
 * multikey flags.
 *
 * <p>Unique keys: where the {@link Dialect} has a constraint, the database refuses a duplicate
 * (also one written concurrently by another transaction) and the engine reports its violation;
 * otherwise (one writer) each new key is looked up before it is inserted, key by key, so two
 * documents of one insert that share a key are refused too.
 *
 * <p>Multikey: an index's flag is set, in the same transaction, before the first document with
 * an array on its paths is stored, so that no reader sees such a document while trusting the
 * index's order (see {@link Catalog.Index}).
 */
final class SqlDocumentWrites extends AbstractDocumentWrites<SqlConnection, Catalog.Coll> {
    private final SqlEngine engine;
    private final Dialect dialect;

    SqlDocumentWrites(SqlEngine engine, Dialect dialect, Json json, long queryTimeoutMs) {
        super(json, queryTimeoutMs);
        this.engine = engine;
        this.dialect = dialect;
    }

    @Override
    protected Namespace ns(Catalog.Coll coll) {
        return coll.ns();
    }

    @Override
    protected void candidates(SqlConnection sql, Catalog.Coll coll, Filter filter, Row row) throws SQLException {
        engine.candidates(sql, coll, filter, (id, body) -> {
            row.accept(id.get(), body);
            return true;
        });
    }

    /**
     * With several writers the row is locked, so If-Match and read-modify-write cannot lose an
     * update; or the connection assumes the stored bytes and checks them under the same lock.
     */
    @Override
    protected ObjectNode load(SqlConnection sql, Catalog.Coll coll, byte[] id) throws SQLException {
        byte[] assumed = sql.assumedBody(coll.table(), id);
        if (assumed != null) {
            return assumed == SqlConnection.ABSENT ? null : json.parseObject(assumed, "stored document");
        }
        PreparedStatement ps = sql.prepare("SELECT body FROM " + coll.table() + " WHERE id = ?"
                + (dialect.severalWriters() ? " FOR UPDATE" : ""));
        ps.setBytes(1, id);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? json.parseObject(rs.getBytes(1), "stored document") : null;
        }
    }

    @Override
    protected void lockAll(SqlConnection sql, Catalog.Coll coll, List<byte[]> ids) throws SQLException {
        sql.lockAll(coll.table(), ids);
    }

    @Override
    protected void insert(SqlConnection sql, Catalog.Coll coll, ObjectNode doc, byte[] body) throws SQLException {
        insertAll(sql, coll, List.of(doc), List.of(body));
    }

    @Override
    protected void insertAll(SqlConnection sql, Catalog.Coll coll, List<ObjectNode> docs, List<byte[]> bodies)
            throws SQLException {
        insertAll(sql, coll, docs, bodies, Map.of(), Map.of());
    }

    @Override
    protected void insertAll(SqlConnection sql, Catalog.Coll coll, WriteOp.EncodedInsert op) throws SQLException {
        insertAll(sql, coll, op.documents(), op.bodies(), op.textTerms(), op.trigramTexts());
    }

    /**
     * {@code op} made ready on the calling thread ({@link #prepare(WriteOp)}) and, for an insert
     * into a collection with a text index of the dialect's postings, its documents' terms
     * analyzed now: tokenizing, folding and stemming are most of a text index's insert cost, and
     * with one writer they would run on it. So with a trigram index's texts ({@link Trigrams#indexed}:
     * a document's strings at the path, folded), about a microsecond a document off the writer.
     */
    WriteOp prepare(WriteOp op, Catalog.Coll coll) {
        WriteOp ready = prepare(op);
        if (coll == null || !(ready instanceof WriteOp.EncodedInsert insert)) {
            return ready;
        }
        Map<TextIndex, List<List<String>>> terms = new HashMap<>(insert.textTerms());
        Map<String, List<Trigrams.Indexed>> texts = new HashMap<>(insert.trigramTexts());
        boolean analyzed = false;
        boolean cut = false;
        for (Catalog.Index index : coll.indexes()) {
            List<List<String>> known = terms.get(index.spec().text());
            // an insert prepared once already (an ndjson chunk, then the store's write) is not analyzed again
            if (postings(index) != null && (known == null || known.size() != insert.documents().size())) {
                terms.put(index.spec().text(), analyze(index.spec().text(), insert.documents()));
                analyzed = true;
            }
            if (trigramPostings(index) != null && !cutAlready(texts, index, insert.documents())) {
                texts.put(trigramPath(index), indexedTexts(index, insert.documents()));
                cut = true;
            }
        }
        WriteOp.EncodedInsert out = analyzed ? insert.withTextTerms(terms) : insert;
        return cut ? out.withTrigramTexts(texts) : out;
    }

    /** Whether {@code texts} holds the trigram index's texts of {@code docs} (an insert prepared before). */
    private static boolean cutAlready(Map<String, List<Trigrams.Indexed>> texts, Catalog.Index index, List<ObjectNode> docs) {
        List<Trigrams.Indexed> known = texts.get(trigramPath(index));
        return known != null && known.size() == docs.size();
    }

    private static List<Trigrams.Indexed> indexedTexts(Catalog.Index index, List<ObjectNode> docs) {
        List<Trigrams.Indexed> texts = new ArrayList<>(docs.size());
        for (ObjectNode doc : docs) {
            texts.add(indexed(index, doc));
        }
        return texts;
    }

    private static List<List<String>> analyze(TextIndex index, List<ObjectNode> docs) {
        List<List<String>> terms = new ArrayList<>(docs.size());
        for (ObjectNode doc : docs) {
            terms.add(index.termsByWeight(doc));
        }
        return terms;
    }

    /** The documents in one statement where the dialect can, then each index's keys. */
    private void insertAll(SqlConnection sql, Catalog.Coll coll, List<ObjectNode> docs, List<byte[]> bodies,
                           Map<TextIndex, List<List<String>>> textTerms, Map<String, List<Trigrams.Indexed>> trigramTexts)
            throws SQLException {
        List<byte[]> ids = new ArrayList<>(docs.size());
        for (ObjectNode doc : docs) {
            ids.add(key(doc.get("_id")));
        }
        int inserted = dialect.insertDocuments(sql, coll.table(), ids, bodies);
        if (inserted != ids.size()) {
            throw WeftException.conflict(docs.size() == 1
                    ? DuplicateKey.id(json.text(docs.getFirst().get("_id")))
                    : DuplicateKey.ids(ids.size() - inserted));
        }
        for (Catalog.Index index : coll.indexes()) {
            TextPostings postings = postings(index);
            if (postings != null) {
                List<List<String>> terms = textTerms.get(index.spec().text());
                if (terms == null || terms.size() != docs.size()) {
                    terms = analyze(index.spec().text(), docs);
                }
                postings.addAll(sql, index.table(), index.spec().text(), ids, terms);
                continue;
            }
            TrigramPostings trigrams = trigramPostings(index);
            if (trigrams != null) {
                for (ObjectNode doc : docs) {
                    markMultikey(sql, index, doc);
                }
                List<Trigrams.Indexed> texts = cutAlready(trigramTexts, index, docs)
                        ? trigramTexts.get(trigramPath(index)) : indexedTexts(index, docs);
                trigrams.addAll(sql, index.table(), ids, texts);
                continue;
            }
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> keyIds = new ArrayList<>();
            for (int i = 0; i < ids.size(); i++) {
                ObjectNode doc = docs.get(i);
                markMultikey(sql, index, doc);
                for (byte[] k : keys(index, doc)) {
                    keys.add(k);
                    keyIds.add(ids.get(i));
                }
                if (checksUniqueKeys(index)) {
                    addKeys(sql, index, doc, keys, keyIds);
                    keys.clear();
                    keyIds.clear();
                }
            }
            addKeys(sql, index, null, keys, keyIds);
        }
    }

    @Override
    protected void rewrite(SqlConnection sql, Catalog.Coll coll, ObjectNode old, ObjectNode doc, byte[] body)
            throws SQLException {
        byte[] id = key(doc.get("_id"));
        dialect.updateDocument(sql, coll.table(), id, body);
        for (Catalog.Index index : coll.indexes()) {
            TextPostings postings = postings(index);
            if (postings != null) {
                List<String> terms = index.spec().text().termsByWeight(doc);
                if (!terms.equals(index.spec().text().termsByWeight(old))) {
                    postings.remove(sql, index.table(), id);
                    postings.add(sql, index.table(), index.spec().text(), id, terms);
                }
                continue;
            }
            TrigramPostings trigrams = trigramPostings(index);
            if (trigrams != null) {
                Trigrams.Indexed text = indexed(index, doc);
                if (!java.util.Objects.equals(text, indexed(index, old))) {
                    trigrams.remove(sql, index.table(), id);
                    markMultikey(sql, index, doc);
                    trigrams.addAll(sql, index.table(), List.of(id), java.util.Collections.singletonList(text));
                }
                continue;
            }
            KeyChange change = keyChange(index, old, doc);
            deleteKeys(sql, index, id, change.gone());
            markMultikey(sql, index, doc);
            addKeys(sql, index, doc, new ArrayList<>(change.added()), java.util.Collections.nCopies(change.added().size(), id));
        }
    }

    @Override
    protected void remove(SqlConnection sql, Catalog.Coll coll, ObjectNode old) throws SQLException {
        byte[] id = key(old.get("_id"));
        dialect.deleteDocument(sql, coll.table(), id);
        for (Catalog.Index index : coll.indexes()) {
            TextPostings postings = postings(index);
            TrigramPostings trigrams = trigramPostings(index);
            if (postings != null) {
                postings.remove(sql, index.table(), id);
            } else if (trigrams != null) {
                trigrams.remove(sql, index.table(), id);
            } else {
                deleteKeys(sql, index, id, keys(index, old));
            }
        }
    }

    /** The dialect's own postings of a text index, or null when its keys are rows of its table. */
    private TextPostings postings(Catalog.Index index) {
        return index.spec().isText() ? dialect.textPostings().orElse(null) : null;
    }

    /** The dialect's own postings of a trigram index, or null when its keys are rows of its table. */
    private TrigramPostings trigramPostings(Catalog.Index index) {
        return index.spec().trigram() ? dialect.trigramPostings().orElse(null) : null;
    }

    static Trigrams.Indexed indexed(Catalog.Index index, tools.jackson.databind.JsonNode doc) {
        return Trigrams.indexed(doc, trigramPath(index));
    }

    /** The path a trigram index reads: its one field's. */
    private static String trigramPath(Catalog.Index index) {
        return index.fields().getFirst().path();
    }

    private boolean checksUniqueKeys(Catalog.Index index) {
        return index.spec().unique() && dialect.uniqueKeyConstraint(index.table()).isEmpty();
    }

    private static void markMultikey(SqlConnection sql, Catalog.Index index, ObjectNode doc) throws SQLException {
        if (!index.multikey() && KeyEncoding.isMultikey(doc, index.fields())) {
            PreparedStatement ps = sql.prepare("UPDATE weft_indexes SET multikey = 1 WHERE id = ? AND multikey = 0");
            ps.setLong(1, index.id());
            ps.executeUpdate();
            index.markMultikey();
        }
    }

    /** Adds keys of {@code doc} (null: of several documents, with no check of ours to make). */
    private void addKeys(SqlConnection sql, Catalog.Index index, ObjectNode doc, List<byte[]> keys, List<byte[]> ids)
            throws SQLException {
        if (keys.isEmpty()) {
            return;
        }
        if (doc != null && checksUniqueKeys(index)) {
            PreparedStatement check = sql.prepare("SELECT 1 FROM " + index.table() + " WHERE key = ? AND id <> ? LIMIT 1");
            for (int i = 0; i < keys.size(); i++) {
                check.setBytes(1, keys.get(i));
                check.setBytes(2, ids.get(i));
                try (ResultSet rs = check.executeQuery()) {
                    if (rs.next()) {
                        throw WeftException.conflict(DuplicateKey.uniqueIndex(index.spec().name(), json.text(doc.get("_id"))));
                    }
                }
            }
        }
        dialect.insertKeys(sql, index.table(), keys, ids);
    }

    private void deleteKeys(SqlConnection sql, Catalog.Index index, byte[] id, Collection<byte[]> keys) throws SQLException {
        if (!keys.isEmpty()) {
            dialect.deleteKeys(sql, index.table(), id, keys);
        }
    }
}
