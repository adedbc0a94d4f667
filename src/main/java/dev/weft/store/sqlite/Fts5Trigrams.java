package dev.weft.store.sqlite;

import dev.weft.core.Json;
import dev.weft.query.Trigrams;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TrigramPostings;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;

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
 * {@code <table>_p(n, s)}, the pending documents (as PostgreSQL GIN's {@code fastupdate}), in its
 * own transaction, so nothing acknowledged is missing from the index. Cutting the trigrams and
 * FTS5's hashing were about 70% of what an index added to an insert (search-12); the writer does
 * that when idle ({@link #indexPending}), a chunk per transaction, or a write does it for all
 * once more than {@code trigram-pending-rows} are pending. A lookup adds the pending documents
 * that hold its trigrams ({@code instr} over their texts, the same AND / OR as the FTS5 query):
 * a document is pending or in FTS5 in any snapshot, never neither, so answers are exact at every
 * moment. The pending rows a lookup reads are bounded by that setting.
 */
final class Fts5Trigrams implements TrigramPostings {
    /**
     * Pending documents put into FTS5 per idle transaction: FTS5 makes a segment of each (it
     * merges them), and a write arriving meanwhile waits for one chunk, tens of milliseconds.
     */
    static final int IDLE_CHUNK = 2048;
    /**
     * Longest text (in chars) left pending; a longer one goes into FTS5 with its write. Every
     * lookup reads the pending texts, so they are bounded in bytes too: at most
     * {@code trigram-pending-rows} of this.
     */
    static final int PENDING_TEXT_MAX = 4096;

    private final int pendingMax;
    /** The index tables that may hold pending documents: the writer's to-do list, filled at open and by writes. */
    private final java.util.Set<String> withPending = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** {@code pendingMax}: {@code trigram-pending-rows}. */
    Fts5Trigrams(int pendingMax) {
        this.pendingMax = pendingMax;
    }

    @Override
    public List<String> create(String table) {
        return List.of("CREATE TABLE " + table + "(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(s, content='', contentless_delete=1, detail=none,"
                        + " tokenize='trigram case_sensitive 1')", pendingTable(table));
    }

    private static String pendingTable(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + "_p(n INTEGER PRIMARY KEY, s TEXT NOT NULL)";
    }

    /** An index made before pending documents gets their table; one with pending documents goes on the writer's to-do list. */
    @Override
    public void opened(SqlConnection sql, String table) throws SQLException {
        sql.exec(pendingTable(table));
        if (pendingSpan(sql, table) > 0) {
            withPending.add(table);
        }
    }

    @Override
    public List<String> drop(String table) {
        withPending.remove(table);
        return List.of("DROP TABLE IF EXISTS " + table + "_p", "DROP TABLE IF EXISTS " + table + "_t",
                "DROP TABLE IF EXISTS " + table);
    }

    /**
     * Numbers are given here, after the greatest in use (one writer: nothing else numbers
     * meanwhile), so that all the documents go in one statement per table.
     */
    @Override
    public void addAll(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException {
        add(sql, table, ids, texts, pendingMax > 0);
        if (pendingMax > 0 && pendingSpan(sql, table) > pendingMax) {
            movePending(sql, table, Long.MAX_VALUE);
        }
    }

    /** An index's build: straight into FTS5, whose segments are then as large as the build's batches. */
    @Override
    public void build(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException {
        add(sql, table, ids, texts, false);
    }

    private void add(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts, boolean pending)
            throws SQLException {
        List<byte[]> pendingIds = new ArrayList<>();
        List<String> pendingTexts = new ArrayList<>();
        List<byte[]> indexedIds = new ArrayList<>();
        List<String> indexedTexts = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            Trigrams.Indexed text = texts.get(i);
            if (text != null && text.overflow()) {
                addOverflow(sql, table, ids.get(i));
            } else if (text != null && pending && text.text().length() <= PENDING_TEXT_MAX) {
                pendingIds.add(ids.get(i));
                pendingTexts.add(text.text());
            } else if (text != null) {
                indexedIds.add(ids.get(i));
                indexedTexts.add(text.text());
            }
        }
        if (!indexedIds.isEmpty()) {
            insert(sql, table, indexedIds, indexedTexts, false);
        }
        if (!pendingIds.isEmpty()) {
            insert(sql, table, pendingIds, pendingTexts, true);
            withPending.add(table);
        }
    }

    private static void insert(SqlConnection sql, String table, List<byte[]> ids, List<String> texts, boolean pending)
            throws SQLException {
        long first;
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(n), 0) + 1 FROM " + table).executeQuery()) {
            rs.next();
            first = Math.max(1, rs.getLong(1));
        }
        ArrayNode hexIds = Json.NODES.arrayNode();
        ids.forEach(id -> hexIds.add(HexFormat.of().formatHex(id)));
        ArrayNode strings = Json.NODES.arrayNode();
        texts.forEach(strings::add);
        PreparedStatement numbers = sql.prepare("INSERT INTO " + table + "(n, id) SELECT ? + key, unhex(value) FROM json_each(?)");
        numbers.setLong(1, first);
        numbers.setString(2, hexIds.toString());
        numbers.executeUpdate();
        PreparedStatement postings = sql.prepare("INSERT INTO " + table + (pending ? "_p(n" : "_t(rowid") + ", s)"
                + " SELECT ? + key, value FROM json_each(?)");
        postings.setLong(1, first);
        postings.setString(2, strings.toString());
        postings.executeUpdate();
    }

    private static void addOverflow(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT INTO " + table + "(n, id) SELECT min(0, coalesce(min(n), 0)) - 1, ? FROM " + table);
        ps.setBytes(1, id);
        ps.executeUpdate();
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement find = sql.prepare("SELECT n FROM " + table + " WHERE id = ?");
        find.setBytes(1, id);
        long n;
        try (ResultSet rs = find.executeQuery()) {
            if (!rs.next()) {
                return;
            }
            n = rs.getLong(1);
        }
        if (n > 0) {
            PreparedStatement pending = sql.prepare("DELETE FROM " + table + "_p WHERE n = ?");
            pending.setLong(1, n);
            if (pending.executeUpdate() == 0) {
                PreparedStatement postings = sql.prepare("DELETE FROM " + table + "_t WHERE rowid = ?");
                postings.setLong(1, n);
                postings.executeUpdate();
            }
        }
        PreparedStatement number = sql.prepare("DELETE FROM " + table + " WHERE n = ?");
        number.setLong(1, n);
        number.executeUpdate();
    }

    @Override
    public Lookup lookup(String table, Trigrams.Query query) {
        List<Object> args = new ArrayList<>();
        args.add(match(query));
        String pending = pendingHolding(query, args);
        return new Lookup("SELECT m.id FROM " + table + "_t CROSS JOIN " + table + " m ON m.n = " + table + "_t.rowid WHERE "
                + table + "_t MATCH ? UNION ALL SELECT id FROM " + overflowed(table)
                + " UNION ALL SELECT m.id FROM " + table + "_p p CROSS JOIN " + table + " m ON m.n = p.n WHERE " + pending,
                List.copyOf(args));
    }

    /** The condition on a pending text {@code p.s} that FTS5's query is on a document's trigrams; its parameters go to {@code args}. */
    private static String pendingHolding(Trigrams.Query query, List<Object> args) {
        return TrigramPostings.expression(query, gram -> {
            args.add(new String(gram, StandardCharsets.UTF_8));
            return "instr(p.s, ?) > 0";
        });
    }

    /** FTS5's documents holding the trigram, and the pending ones, counted up to {@code cap}. */
    @Override
    public long count(SqlConnection sql, String table, byte[] gram, long cap) throws SQLException {
        long inFts5 = TrigramPostings.super.count(sql, table, gram, cap);
        if (java.util.Arrays.equals(gram, Trigrams.OVERFLOW) || inFts5 >= cap) {
            return inFts5;
        }
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + table + "_p WHERE instr(s, ?) > 0 LIMIT ?) c");
        ps.setString(1, new String(gram, StandardCharsets.UTF_8));
        ps.setLong(2, cap - inFts5);
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return inFts5 + rs.getLong(1);
        }
    }

    /** At least the number of pending documents (numbers are given in order; a removed one leaves a gap): cheap to ask at each write. */
    private static long pendingSpan(SqlConnection sql, String table) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(n) - min(n) + 1, 0) FROM " + table + "_p").executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Whether some index may hold pending documents (the writer's idle work). */
    boolean hasPending() {
        return !withPending.isEmpty();
    }

    /**
     * One step of the writer's idle work, inside its transaction: up to {@link #IDLE_CHUNK} of one
     * index's pending documents into FTS5. An index left with none, or dropped, leaves the to-do list.
     */
    void indexPending(SqlConnection sql) throws SQLException {
        java.util.Iterator<String> next = withPending.iterator();
        if (!next.hasNext()) {
            return;
        }
        String table = next.next();
        if (!exists(sql, table + "_p")) {
            withPending.remove(table);
            return;
        }
        long last;
        try (ResultSet rs = sql.prepare("SELECT n FROM " + table + "_p ORDER BY n LIMIT 1 OFFSET " + (IDLE_CHUNK - 1))
                .executeQuery()) {
            last = rs.next() ? rs.getLong(1) : Long.MAX_VALUE;
        }
        movePending(sql, table, last);
        if (last == Long.MAX_VALUE) {
            withPending.remove(table);
        }
    }

    private static boolean exists(SqlConnection sql, String table) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
        ps.setString(1, table);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /** The pending documents numbered up to {@code last} into FTS5, in one statement (one segment). */
    private static void movePending(SqlConnection sql, String table, long last) throws SQLException {
        PreparedStatement in = sql.prepare("INSERT INTO " + table + "_t(rowid, s) SELECT n, s FROM " + table + "_p WHERE n <= ?");
        in.setLong(1, last);
        in.executeUpdate();
        PreparedStatement out = sql.prepare("DELETE FROM " + table + "_p WHERE n <= ?");
        out.setLong(1, last);
        out.executeUpdate();
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
