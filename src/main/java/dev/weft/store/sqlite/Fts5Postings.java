package dev.weft.store.sqlite;

import dev.weft.query.TermsByWeight;
import dev.weft.query.TextIndex;
import dev.weft.store.sql.Dialect;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A text index on SQLite: {@code <table>(n, id)} numbers the documents it holds (a document table
 * has no rowid) and {@code <table>_t}, a contentless FTS5 table, holds their terms under that
 * number, one column {@code w<i>} per weight class of the index ({@link TextIndex#weightClasses},
 * heaviest first). The terms are already folded and stemmed, so the {@code ascii} tokenizer only
 * cuts them at spaces (an apostrophe stays inside a term, as in Weft's words; other characters of
 * a term are letters, digits or, past ASCII, token characters to {@code ascii}).
 *
 * <p>A ranked lookup scores with FTS5's {@code bm25}, each column weighted by its class's weight,
 * negated so that higher is better: it grows with a term's occurrences in the document, with the
 * term's rarity in the collection (its inverse document frequency) and falls with the document's
 * length. The best n are found with Weft's native {@code weft_top} where the store loaded it
 * ({@link NativeRanking}; the same scores, without the length lookup of a match that cannot be
 * among them), else with bm25 itself.
 *
 * <p>A write does not feed FTS5 itself: it numbers its documents and puts their terms in the
 * pending table {@code <table>_p(n, last, rows)}, one row for the write's documents, in its own
 * transaction ({@link PendingPostings}: the
 * writer puts them into FTS5 when idle, a write once more than {@code text-pending-rows} are
 * pending). FTS5's tokenizing and hashing of each write's terms, and the segments it made of them
 * at each savepoint, were most of what a text index added to the writer's work on an insert
 * (docs/benchmarks.md search-17). A lookup does not read the pending terms: bm25 counts documents
 * and lengths over the whole index, so a pending document could not be scored as a folded one
 * is. Instead a query that finds pending documents in its snapshot ({@link #current}) has them put
 * into FTS5 first: its store asks the writer to move them all, and runs the query again in a
 * snapshot taken on the writer right after that commit, before any other write. So every lookup
 * reads an index holding exactly the committed documents; the first query after a burst of writes
 * waits for those documents to be put into FTS5 (at most {@code text-pending-rows} of them).
 */
final class Fts5Postings implements TextPostings {
    /** The largest n {@code weft_top} takes (WEFT_TOP_MAX_N in weft_rank.c); past it, bm25 alone. */
    static final int NATIVE_MAX_N = 10_000_000;

    private final int pendingMax;
    private final PendingPostings pending;
    private final boolean nativeTop;

    /** {@code pendingMax}: {@code text-pending-rows}; {@code pending}: the store's pending documents; ranked with bm25 alone. */
    Fts5Postings(int pendingMax, PendingPostings pending) {
        this(pendingMax, pending, false);
    }

    /**
     * {@code nativeTop}: every connection this index is read on has {@link NativeRanking}'s
     * {@code weft_top}, which the best n are then found with ({@link #best}).
     */
    Fts5Postings(int pendingMax, PendingPostings pending, boolean nativeTop) {
        this.pendingMax = pendingMax;
        this.pending = pending;
        this.nativeTop = nativeTop;
    }

    @Override
    public List<String> create(String table, TextIndex index) {
        String columns = columns(index);
        return List.of("CREATE TABLE " + table + "(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(" + columns + ", content='', contentless_delete=1,"
                        + " tokenize=\"ascii tokenchars ''''\")", PendingPostings.createChunks(table));
    }

    /** FTS5's columns, one per weight class: {@code w0, w1, ...}. */
    private static String columns(TextIndex index) {
        StringBuilder columns = new StringBuilder();
        for (int i = 0; i < index.weightClasses().size(); i++) {
            columns.append(i == 0 ? "" : ", ").append("w").append(i);
        }
        return columns.toString();
    }

    @Override
    public List<String> drop(String table) {
        return List.of(pending.drop(table), "DROP TABLE IF EXISTS " + table + "_t", "DROP TABLE IF EXISTS " + table);
    }

    /** Made before the columns by weight: one column {@code terms}. */
    @Override
    public boolean outdated(SqlConnection sql, String table) throws SQLException {
        return TextPostings.hasColumn(sql, table + "_t", "terms");
    }

    /** An index made before pending documents gets their table; one with pending documents goes on the writer's to-do list. */
    @Override
    public void opened(SqlConnection sql, String table, TextIndex index) throws SQLException {
        pending.openedChunks(sql, table);
    }

    @Override
    public void add(SqlConnection sql, String table, TextIndex index, byte[] id, List<String> termsByWeight)
            throws SQLException {
        addAll(sql, table, index, List.of(id), List.of(termsByWeight));
    }

    /** Into the pending table as one chunk (unless {@code text-pending-rows} is 0), one statement per table. */
    @Override
    public void addAll(SqlConnection sql, String table, TextIndex index, List<byte[]> ids, List<List<String>> termsByWeight)
            throws SQLException {
        if (pendingMax == 0) {
            insert(sql, table, index, ids, termsByWeight);
            return;
        }
        if (!ids.isEmpty()) {
            pending.insertChunk(sql, table, ids, rows(termsByWeight));
            PendingPostings.boundChunks(sql, table, pendingMax);
        }
    }

    /**
     * An index's build: straight into FTS5, a statement per document and table. A statement of
     * one row opens no savepoint, so FTS5 keeps the whole build's postings in memory (up to its
     * own limit) and writes large segments; a statement of many rows would make FTS5 write a
     * segment for each (measured: a 100,000-document build ten times slower).
     */
    @Override
    public void build(SqlConnection sql, String table, TextIndex index, List<byte[]> ids, List<List<String>> termsByWeight)
            throws SQLException {
        for (int d = 0; d < ids.size(); d++) {
            // numbered by the insert, read back as last_insert_rowid(): a RETURNING costs SQLite more than this insert
            PreparedStatement number = sql.prepare("INSERT INTO " + table + "(id) VALUES (?)");
            number.setBytes(1, ids.get(d));
            number.executeUpdate();
            List<String> terms = termsByWeight.get(d);
            PreparedStatement ps = sql.prepare("INSERT INTO " + table + "_t(rowid, " + columns(index) + ") VALUES (last_insert_rowid()"
                    + ", ?".repeat(index.weightClasses().size()) + ")");
            for (int i = 0; i < index.weightClasses().size(); i++) {
                ps.setString(i + 1, i < terms.size() ? terms.get(i) : "");
            }
            ps.executeUpdate();
        }
    }

    /** Straight into FTS5 (no pending documents), one statement per table. */
    private void insert(SqlConnection sql, String table, TextIndex index, List<byte[]> ids, List<List<String>> termsByWeight)
            throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < index.weightClasses().size(); i++) {
            values.append(i == 0 ? "" : ", ").append("value ->> ").append(i);
        }
        pending.insert(sql, table, ids, rows(termsByWeight), columns(index), values.toString());
    }

    /**
     * The documents' rows as a JSON array of arrays of strings, written here: a term is letters,
     * digits, combining marks and apostrophes, which JSON holds as they are (a string that needs
     * escaping is escaped, but none does), so the rows are copied rather than serialized node by
     * node. A row known to be so ({@link TermsByWeight#jsonPlain}, as the analyzer found while
     * cutting its terms) is not read again character by character on the writer.
     */
    static String rows(List<List<String>> termsByWeight) {
        int chars = 2;
        for (List<String> terms : termsByWeight) {
            for (String t : terms) {
                chars += t.length() + 3;
            }
            chars += 3;
        }
        StringBuilder rows = new StringBuilder(chars).append('[');
        for (List<String> terms : termsByWeight) {
            rows.append(rows.length() == 1 ? "[" : ",[");
            boolean known = terms instanceof TermsByWeight t && t.jsonPlain();
            for (int i = 0; i < terms.size(); i++) {
                rows.append(i == 0 ? "" : ",");
                String t = terms.get(i);
                if (known) {
                    rows.append('"').append(t).append('"');
                } else {
                    PendingPostings.appendJsonString(rows, t);
                }
            }
            rows.append(']');
        }
        return rows.append(']').toString();
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        PendingPostings.removeFromChunks(sql, table, id);
    }

    /** Throws {@link PendingPostings.Lagging} when the index holds pending documents in this snapshot (its lookups read FTS5 alone). */
    @Override
    public void current(SqlConnection sql, String table) throws SQLException {
        if (PendingPostings.holdsPending(sql, table)) {
            throw new PendingPostings.Lagging(table);
        }
    }

    @Override
    public String lookup(String table) {
        return "SELECT m.id FROM " + table + " m WHERE m.n IN (SELECT rowid FROM " + table + "_t WHERE "
                + table + "_t MATCH ?)";
    }

    /** The terms ORed, each an FTS5 string (a term holds no double quote: it is letters, digits and apostrophes). */
    @Override
    public List<Object> lookupArgs(List<String> terms) {
        StringBuilder match = new StringBuilder();
        for (String term : terms) {
            match.append(match.isEmpty() ? "\"" : " OR \"").append(term).append('"');
        }
        return List.of(match.toString());
    }

    @Override
    public PreparedStatement ranked(SqlConnection sql, String table, TextIndex index, List<String> terms)
            throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT m.id, s.score FROM (" + scored(table, index) + ") s CROSS JOIN "
                + table + " m ON m.n = s.rowid ORDER BY s.score DESC, m.id");
        ps.setString(1, (String) lookupArgs(terms).getFirst());
        return ps;
    }

    /**
     * The best {@code n} scores kept by SQLite's sorter as FTS5 hands the matches over (what
     * FTS5's own {@code ORDER BY bm25 LIMIT n} costs); only those are joined to their ids and
     * sorted by id within a score. The n-th's group of equal scores may be cut by the limit, so
     * it is left out (fetched whole, by its score, when it is all there is). Two words are first
     * tried without scoring every match ({@link Fts5PairTop}).
     */
    @Override
    public Top top(SqlConnection sql, String table, TextIndex index, List<String> terms, int n) throws SQLException {
        List<Ranked> pair = terms.size() == 2 && !terms.get(0).equals(terms.get(1))
                ? new Fts5PairTop(sql, table, index, terms.get(0), terms.get(1), nativeTop).best(n) : null;
        List<Ranked> out = pair != null ? pair : best(sql, table, index, (String) lookupArgs(terms).getFirst(), n, nativeTop);
        if (out.size() < n) {
            return new Top(out, true); // a pair's cut has n
        }
        double last = out.getLast().score();
        List<Ranked> above = out.stream().filter(r -> r.score() != last).toList();
        if (!above.isEmpty()) {
            return new Top(above, false);
        }
        PreparedStatement tied = sql.prepare("SELECT m.id, s.score FROM (" + scored(table, index) + ") s CROSS JOIN "
                + table + " m ON m.n = s.rowid WHERE s.score = ? ORDER BY m.id");
        tied.setString(1, (String) lookupArgs(terms).getFirst());
        tied.setDouble(2, last);
        return new Top(rows(tied), false);
    }

    /**
     * The best {@code n} of the documents an FTS5 query {@code match} finds, by score then id
     * (of the n-th's score, some may be left out). With {@code nativeTop}, FTS5's matches are
     * scored by {@code weft_top} (src/main/c/weft_rank.c): bm25 bit for bit for every match that
     * may be among the best n, NULL (sorted last, cut by the limit) for one that cannot, without
     * its length looked up; so the same rows and scores as bm25's ORDER BY score DESC LIMIT n.
     */
    static List<Ranked> best(SqlConnection sql, String table, TextIndex index, String match, int n, boolean nativeTop)
            throws SQLException {
        boolean bounded = nativeTop && n >= 1 && n <= NATIVE_MAX_N;
        String scored = bounded
                ? "SELECT rowid, -weft_top(" + table + "_t, ?" + weights(index) + ") AS score FROM " + table + "_t WHERE " + table + "_t MATCH ?"
                : scored(table, index);
        PreparedStatement best = sql.prepare("SELECT m.id, s.score FROM (" + scored
                + " ORDER BY score DESC LIMIT " + Dialect.BOUND_COUNT_IN_EXPRESSION + ") s CROSS JOIN " + table + " m ON m.n = s.rowid ORDER BY s.score DESC, m.id");
        int p = 1;
        if (bounded) {
            best.setInt(p++, n);
        }
        best.setString(p++, match);
        best.setInt(p, n);
        return rows(best);
    }

    /** The matches' rowids and scores: FTS5's bm25, each column weighted by its class, negated so that higher is better. */
    private static String scored(String table, TextIndex index) {
        return "SELECT rowid, -bm25(" + table + "_t" + weights(index) + ") AS score FROM " + table + "_t WHERE " + table + "_t MATCH ?";
    }

    /** The columns' weights as bm25's (and weft_top's) arguments: {@code , 10.0, 1.0}. */
    private static String weights(TextIndex index) {
        StringBuilder weights = new StringBuilder();
        for (int weight : index.weightClasses()) {
            weights.append(", ").append(weight).append(".0");
        }
        return weights.toString();
    }

    private static List<Ranked> rows(PreparedStatement ps) throws SQLException {
        List<Ranked> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Ranked(rs.getBytes(1), rs.getDouble(2)));
            }
        }
        return out;
    }
}
