package dev.weft.store.sqlite;

import dev.weft.query.Trigrams;
import dev.weft.store.sql.Dialect;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TrigramPostings;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A trigram index on SQLite: {@code <table>(n, id)} numbers the documents it holds (a document
 * table has no rowid) and {@code <table>_t}, a contentless FTS5 table with the {@code trigram}
 * tokenizer, holds each document's {@link Trigrams#indexed} text under that number. The text is
 * folded already (Weft's lower-casing, the keys' and the queries'), so the tokenizer runs with
 * {@code case_sensitive 1} and folds nothing again; {@code detail=none} keeps only which documents
 * hold a trigram (a lookup asks for single trigrams, never for their positions), so a posting is
 * a few bytes of a compressed list instead of a B-tree row.
 *
 * <p>A document whose text has too many trigrams ({@link Trigrams.Indexed#overflow()}) gets a
 * negative number and nothing in FTS5: the rowid range {@code n < 0} is the list of those
 * documents, added to every lookup. A lookup is one FTS5 {@code MATCH} of the query's trigrams,
 * each a one-token phrase, joined with {@code AND} and {@code OR} as the query is.
 *
 * <p>The documents of one write go in with one statement per table, whatever their number (their
 * ids and texts as JSON arrays read by {@code json_each}). Not for the round trips: SQLite opens
 * a savepoint for each statement that may fail part way (a multi-row insert into the numbering
 * table, whose id is unique), and FTS5 writes its pending postings out as a new segment at every
 * savepoint of its transaction, so statements of 64 rows made a segment per 64 documents, and
 * merging those cost more than the postings themselves (inserts into an indexed collection ran
 * at 0.38 of those into one without, docs/benchmarks.md search-4).
 *
 * <p>A write does not feed FTS5 itself: it numbers its documents and puts their texts in
 * {@code <table>_p(n, last, rows)}, the pending documents (as PostgreSQL GIN's {@code fastupdate}),
 * in its own transaction, so nothing acknowledged is missing from the index: one row per write, its
 * documents' texts as a JSON array (each a one-element array, FTS5's row) under the numbers
 * {@code n..last} ({@link PendingPostings#insertChunk}, as a text index's; a row per document cost
 * the writer one B-tree insert each, trigram-insert-1 in docs/benchmarks.md). Cutting the trigrams and
 * FTS5's hashing were about 70% of what an index added to an insert (search-12); the writer does
 * that when idle ({@link PendingPostings}), a chunk per transaction, or a write does it for all
 * once more than {@code trigram-pending-rows} are pending. A lookup adds the pending documents
 * whose numbers are still in use (a document removed while pending loses its number, its chunk
 * stays) that hold its trigrams ({@code instr} over their texts read from the chunks with
 * {@code json_each}, the same AND / OR as the FTS5 query):
 * a document is pending or in FTS5 in any snapshot, never neither, so answers are exact at every
 * moment. The pending rows a lookup reads are bounded by that setting.
 */
final class Fts5Trigrams implements TrigramPostings {
    /**
     * Longest text (in chars) left pending; a longer one goes into FTS5 with its write. Every
     * lookup reads the pending texts, so they are bounded in bytes too: at most
     * {@code trigram-pending-rows} of this.
     */
    static final int PENDING_TEXT_MAX = 4096;
    /** FTS5's column. */
    private static final String COLUMN = "s";

    private final int pendingMax;
    private final PendingPostings pending;

    /** {@code pendingMax}: {@code trigram-pending-rows}; {@code pending}: the store's pending documents. */
    Fts5Trigrams(int pendingMax, PendingPostings pending) {
        this.pendingMax = pendingMax;
        this.pending = pending;
    }

    @Override
    public List<String> create(String table) {
        return List.of("CREATE TABLE " + table + "(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(s, content='', contentless_delete=1, detail=none,"
                        + " tokenize='trigram case_sensitive 1')", PendingPostings.createChunks(table));
    }

    /**
     * An index made before pending documents gets their table, one made before pending chunks has
     * its pending documents put into FTS5 and the table made again; one with pending documents
     * goes on the writer's to-do list.
     */
    @Override
    public void opened(SqlConnection sql, String table) throws SQLException {
        pending.openedChunks(sql, table);
    }

    @Override
    public List<String> drop(String table) {
        return List.of(pending.drop(table), "DROP TABLE IF EXISTS " + table + "_t", "DROP TABLE IF EXISTS " + table);
    }

    @Override
    public void addAll(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException {
        add(sql, table, ids, texts, pendingMax > 0);
        if (pendingMax > 0) {
            PendingPostings.boundChunks(sql, table, pendingMax);
        }
    }

    /** An index's build: straight into FTS5, whose segments are then as large as the build's batches. */
    @Override
    public void build(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException {
        add(sql, table, ids, texts, false);
    }

    private void add(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts, boolean toPending)
            throws SQLException {
        List<byte[]> pendingIds = new ArrayList<>();
        StringBuilder pendingTexts = new StringBuilder().append('[');
        List<byte[]> indexedIds = new ArrayList<>();
        StringBuilder indexedTexts = new StringBuilder().append('[');
        for (int i = 0; i < ids.size(); i++) {
            Trigrams.Indexed text = texts.get(i);
            if (text != null && text.overflow()) {
                addOverflow(sql, table, ids.get(i));
            } else if (text != null && toPending && text.text().length() <= PENDING_TEXT_MAX) {
                pendingIds.add(ids.get(i));
                pendingTexts.append(pendingTexts.length() == 1 ? "[" : ",[");
                PendingPostings.appendJsonString(pendingTexts, text.text()); // a row: one column's text
                pendingTexts.append(']');
            } else if (text != null) {
                indexedIds.add(ids.get(i));
                PendingPostings.appendJsonString(indexedTexts.append(indexedTexts.length() == 1 ? "" : ","), text.text());
            }
        }
        if (!indexedIds.isEmpty()) {
            pending.insert(sql, table, indexedIds, indexedTexts.append(']').toString(), COLUMN, "value");
        }
        if (!pendingIds.isEmpty()) {
            pending.insertChunk(sql, table, pendingIds, pendingTexts.append(']').toString());
        }
    }

    private static void addOverflow(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT INTO " + table + "(n, id) SELECT min(0, coalesce(min(n), 0)) - 1, ? FROM " + table);
        ps.setBytes(1, id);
        ps.executeUpdate();
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        PendingPostings.removeFromChunks(sql, table, id);
    }

    @Override
    public Lookup lookup(String table, Trigrams.Query query) {
        List<Object> args = new ArrayList<>();
        args.add(match(query));
        String pendingHolding = pendingHolding(query, args);
        return new Lookup("SELECT m.id FROM " + table + "_t CROSS JOIN " + table + " m ON m.n = " + table + "_t.rowid WHERE "
                + table + "_t MATCH ? UNION ALL SELECT id FROM " + overflowed(table)
                + " UNION ALL SELECT m.id FROM " + table + "_p p, json_each(p.rows) j CROSS JOIN " + table + " m ON m.n = p.n + j.key"
                + " WHERE " + pendingHolding,
                List.copyOf(args));
    }

    /**
     * The condition on a pending document's text (its row {@code j.value} of a chunk, a
     * one-element array) that FTS5's query is on a document's trigrams; its parameters go to {@code args}.
     */
    private static String pendingHolding(Trigrams.Query query, List<Object> args) {
        return TrigramPostings.expression(query, gram -> {
            args.add(new String(gram, StandardCharsets.UTF_8));
            return "instr(" + PENDING_TEXT + ", ?) > 0";
        });
    }

    /** A pending document's text in a lookup: its row of its chunk, {@code [text]}. */
    private static final String PENDING_TEXT = "j.value ->> 0";

    /** FTS5's documents holding the trigram, and the pending ones (removed ones among them: an estimate), counted up to {@code cap}. */
    @Override
    public long count(SqlConnection sql, String table, byte[] gram, long cap) throws SQLException {
        long inFts5 = TrigramPostings.super.count(sql, table, gram, cap);
        if (java.util.Arrays.equals(gram, Trigrams.OVERFLOW) || inFts5 >= cap) {
            return inFts5;
        }
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + table + "_p p, json_each(p.rows) j WHERE instr("
                + PENDING_TEXT + ", ?) > 0 LIMIT " + Dialect.BOUND_COUNT_IN_EXPRESSION + ") c");
        ps.setString(1, new String(gram, StandardCharsets.UTF_8));
        ps.setLong(2, cap - inFts5);
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return inFts5 + rs.getLong(1);
        }
    }

    @Override
    public String overflowed(String table) {
        return table + " WHERE n < 0";
    }

    @Override
    public String holding(String table) {
        return table + "_t WHERE " + table + "_t MATCH ?";
    }

    @Override
    public String term(byte[] gram) {
        return phrase(gram);
    }

    /** The FTS5 query of a lookup: each trigram a phrase. */
    static String match(Trigrams.Query query) {
        return TrigramPostings.expression(query, Fts5Trigrams::phrase);
    }

    /** A trigram as an FTS5 string: in double quotes, a double quote doubled. */
    private static String phrase(byte[] gram) {
        return '"' + new String(gram, StandardCharsets.UTF_8).replace("\"", "\"\"") + '"';
    }
}
