package dev.weft.store.txn;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.ChangeEvent;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.StoredDocument;
import dev.weft.store.Transaction;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.txn.Overlays.DocKey;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A transaction whose writes wait in memory until commit (see {@link Overlays}). What it wrote
 * is the overlay: per document, its state now (a body, or deleted). Its reads are the store's
 * committed documents with the overlay laid over them. For each document it writes it remembers
 * the state it first read ({@code bases}); the commit applies every change only if each document
 * is still in that state, else nothing (a write conflict).
 *
 * <p>Each op runs as if in a savepoint: what a refused op changed is undone from a journal, so a
 * refused op leaves no trace, as in the store. Reads are read-committed (each sees the latest
 * commit under the overlay), not one snapshot.
 */
final class OverlayTransaction implements Transaction {
    /**
     * A document as this transaction left it: its stored bytes, null when it deleted it. Only the
     * bytes are kept (parsed again when read), so what a transaction holds is what
     * {@code txn-max-bytes} counts, not a multiple of it.
     */
    record Entry(Namespace ns, JsonNode id, byte[] body) {
        boolean deleted() {
            return body == null;
        }
    }

    /** The committed state a written document was in when this transaction first read it. */
    record Base(boolean existed, String etag) {}

    /** How to undo one overlay change: the entry before it (null: none), and whether it took the claim. */
    private record Undo(DocKey key, Entry before, boolean claimed) {}

    private final Overlays overlays;
    private final OverlayWrites writes;
    final Map<DocKey, Entry> entries = new LinkedHashMap<>();
    final Map<DocKey, Base> bases = new HashMap<>();
    /** The {@code _id} of each encoded key met, so a load can ask the store for it. */
    final Map<DocKey, JsonNode> ids = new HashMap<>();
    private final List<Undo> journal = new ArrayList<>();
    private final List<ChangeEvent> events = new ArrayList<>();
    private long heldBytes;
    private boolean conflicted;
    /** Set by a write of the op running that would pass txn-max-bytes; {@code opBytes}: what the op wrote so far. */
    private boolean tooLarge;
    private long opBytes;
    private boolean open = true;

    OverlayTransaction(Overlays overlays) {
        this.overlays = overlays;
        this.writes = new OverlayWrites(overlays.json, overlays.queryTimeoutMs, overlays.base);
    }

    // --- reads -----------------------------------------------------------------------------------

    @Override
    public Optional<StoredDocument> get(Namespace ns, JsonNode id) {
        Entry e = entries.get(DocKey.of(ns, AbstractDocumentWrites.key(id)));
        if (e != null) {
            return e.deleted() ? Optional.empty() : Optional.of(new StoredDocument(e.body()));
        }
        return overlays.base.get(ns, id);
    }

    /**
     * The store's first skip+limit matches plus one per overlaid document (those it would have
     * returned in the overlay's place are dropped), merged with the overlay's matches in sort
     * order (ties by {@code _id}), then skipped and limited.
     */
    @Override
    public void find(Namespace ns, FindQuery query, Consumer<StoredDocument> sink) {
        List<Entry> mine = entriesOf(ns);
        if (mine.isEmpty()) {
            overlays.base.find(ns, query, sink);
            return;
        }
        record Found(byte[] key, JsonNode doc, byte[] body, double textScore) {}
        List<Found> found = new ArrayList<>();
        long wanted = saturatingAdd(saturatingAdd(query.skip(), query.limit()), mine.size());
        overlays.base.find(ns, new FindQuery(query.filter(), query.sort(), 0, wanted, query.hint()), stored -> {
            JsonNode doc = overlays.json.parse(stored.json(), "stored document");
            byte[] key = AbstractDocumentWrites.key(doc.get("_id"));
            if (!entries.containsKey(DocKey.of(ns, key))) {
                found.add(new Found(key, scored(doc, stored.textScore(), query), stored.json(), stored.textScore()));
            }
        });
        for (Entry e : mine) {
            JsonNode doc = parsed(e);
            if (doc != null && query.filter().matches(doc)) {
                // the transaction's own documents have no store score: MongoDB's per-document one
                JsonNode copy = scored(doc.deepCopy(), Double.NaN, query);
                found.add(new Found(AbstractDocumentWrites.key(e.id()), copy, e.body(), copy.path(dev.weft.query.Sort.TEXT_SCORE)
                        .asDouble(Double.NaN)));
            }
        }
        Comparator<JsonNode> bySort = query.sort().comparator();
        found.sort((a, b) -> {
            int c = bySort.compare(a.doc(), b.doc());
            return c != 0 ? c : Arrays.compareUnsigned(a.key(), b.key());
        });
        found.stream().skip(query.skip()).limit(query.limit()).forEach(f -> sink.accept(new StoredDocument(f.body(), f.textScore())));
    }

    /**
     * {@code doc} with its textScore where a sort compares it ({@link dev.weft.query.Sort#TEXT_SCORE}):
     * the store's, else (NaN) MongoDB's per-document one when the query has a {@code $text}.
     */
    private static JsonNode scored(JsonNode doc, double storeScore, FindQuery query) {
        var search = query.filter().textSearch();
        if (doc instanceof tools.jackson.databind.node.ObjectNode o && (!Double.isNaN(storeScore) || search.isPresent())) {
            o.put(dev.weft.query.Sort.TEXT_SCORE, Double.isNaN(storeScore) ? search.get().score(doc) : storeScore);
        }
        return doc;
    }

    @Override
    public long count(Namespace ns, Filter filter) {
        Filter f = filter == null ? Filter.all() : filter;
        long n = overlays.base.count(ns, f);
        for (Entry e : entriesOf(ns)) {
            Optional<StoredDocument> committed = overlays.base.get(ns, e.id());
            if (committed.isPresent() && f.matches(overlays.json.parse(committed.get().json(), "stored document"))) {
                n--;
            }
            JsonNode doc = parsed(e);
            if (doc != null && f.matches(doc)) {
                n++;
            }
        }
        return n;
    }

    /** The entry's document, or null when deleted. */
    private ObjectNode parsed(Entry e) {
        return e.deleted() ? null : overlays.json.parseObject(e.body(), "written document");
    }

    private List<Entry> entriesOf(Namespace ns) {
        return entries.values().stream().filter(e -> e.ns().equals(ns)).toList();
    }

    private static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    // --- writes ----------------------------------------------------------------------------------

    @Override
    public List<WriteResult> writeAll(List<WriteOp> ops) {
        requireOpen();
        List<WriteResult> results = new ArrayList<>(ops.size());
        for (WriteOp op : ops) {
            if (overlays.base.collection(op.ns()).isEmpty()) {
                throw WeftException.notFound("collection " + op.ns() + " does not exist");
            }
            results.add(apply(op));
        }
        return results;
    }

    /** One op, undone when refused, over txn-max-bytes, or in conflict (which also aborts this transaction). */
    private WriteResult apply(WriteOp op) {
        remember(op);
        int mark = journal.size();
        int eventMark = events.size();
        opBytes = 0;
        WriteResult result;
        try {
            result = writes.apply(this, op.ns(), op, events);
        } catch (WeftException e) {
            result = WriteResult.failed(e);
        } catch (SQLException e) {
            throw new IllegalStateException("an overlay write met a database error: " + e.getMessage(), e);
        }
        if (conflicted) {
            abort();
            throw TxnErrors.writeConflict();
        }
        long added = Transaction.bytesHeld(events.subList(eventMark, events.size()));
        boolean over = tooLarge || (result.ok() && heldBytes + added > overlays.maxBytes);
        tooLarge = false;
        if (over || !result.ok()) {
            undo(mark);
            events.subList(eventMark, events.size()).clear();
        } else {
            heldBytes += added;
        }
        journal.clear(); // an op that stands is never undone: the journal only spans the op running
        // what was read but not written needs no memory past the op
        bases.keySet().retainAll(entries.keySet());
        ids.keySet().retainAll(entries.keySet());
        if (over) {
            throw TxnErrors.tooLarge(overlays.maxBytes);
        }
        return result;
    }

    /** The {@code _id} a single-document op loads by its key. */
    private void remember(WriteOp op) {
        JsonNode id = switch (op) {
            case WriteOp.UpdateOne u -> u.id();
            case WriteOp.DeleteOne d -> d.id();
            case WriteOp.Replace r -> r.document().get("_id");
            default -> null;
        };
        if (id != null) {
            ids.putIfAbsent(DocKey.of(op.ns(), AbstractDocumentWrites.key(id)), id);
        }
    }

    /** The document as this transaction sees it (null: none), remembering the committed state first read. */
    ObjectNode load(Namespace ns, byte[] key) {
        DocKey k = DocKey.of(ns, key);
        Entry e = entries.get(k);
        if (e != null) {
            return parsed(e);
        }
        JsonNode id = ids.get(k);
        ObjectNode doc = id == null ? null : overlays.base.get(ns, id)
                .map(s -> overlays.json.parseObject(s.json(), "stored document")).orElse(null);
        bases.putIfAbsent(k, new Base(doc != null, doc == null ? null : AbstractDocumentWrites.etagOf(doc)));
        return doc;
    }

    /** Records the document's new state (its bytes; null: deleted); a document another open transaction wrote is a conflict. */
    void write(Namespace ns, JsonNode id, byte[] body) {
        DocKey k = DocKey.of(ns, AbstractDocumentWrites.key(id));
        ids.putIfAbsent(k, id);
        if (!entries.containsKey(k) && !bases.containsKey(k)) {
            load(ns, k.key().array());
        }
        opBytes += body == null ? 0 : body.length;
        if (heldBytes + opBytes > overlays.maxBytes) {
            tooLarge = true;
            throw TxnErrors.tooLarge(overlays.maxBytes);
        }
        boolean claimedNow = !entries.containsKey(k);
        if (claimedNow && !overlays.claim(k, this)) {
            conflicted = true;
            throw TxnErrors.writeConflict();
        }
        journal.add(new Undo(k, entries.get(k), claimedNow));
        entries.put(k, new Entry(ns, id, body));
    }

    private void undo(int mark) {
        for (int i = journal.size() - 1; i >= mark; i--) {
            Undo u = journal.remove(i);
            if (u.before() == null) {
                entries.remove(u.key());
            } else {
                entries.put(u.key(), u.before());
            }
            if (u.claimed()) {
                overlays.release(u.key(), this);
            }
        }
    }

    // --- end -------------------------------------------------------------------------------------

    @Override
    public void commit() {
        requireOpen();
        List<DocumentChange> changes = new ArrayList<>();
        entries.forEach((k, e) -> {
            Base base = bases.getOrDefault(k, new Base(false, null));
            if (base.existed() || !e.deleted()) {
                changes.add(new DocumentChange(e.ns(), e.id(), base.existed(), base.etag(), parsed(e), e.body()));
            }
        });
        try {
            if (!changes.isEmpty() || !events.isEmpty()) {
                overlays.applier.apply(changes, List.copyOf(events));
            }
        } finally {
            end();
        }
    }

    @Override
    public void abort() {
        if (open) {
            end();
        }
    }

    @Override
    public boolean open() {
        return open;
    }

    private void requireOpen() {
        if (!open) {
            throw TxnErrors.notInProgress();
        }
    }

    private void end() {
        open = false;
        entries.keySet().forEach(k -> overlays.release(k, this));
        entries.clear();
        bases.clear();
        ids.clear();
        journal.clear();
        events.clear();
    }
}
