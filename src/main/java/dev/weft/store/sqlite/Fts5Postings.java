package dev.weft.store.sqlite;

import dev.weft.query.TextIndex;
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
 * length.
 *
 * <p>The first page by score ({@link #top}) computes the same bm25 here, not in SQLite: FTS5's
 * {@code bm25} looks up each match's length in {@code %_docsize}, about half of its 1.5-2 µs per
 * match (search-12: 16-19 ms of CPU for two words in 9,315 of 1,000,000 documents). A document's
 * number carries its length instead: {@code n = seq << 20 | tokens} (tokens as FTS5's
 * {@code ascii} tokenizer counts them, capped at 2^20 - 1), so the matches' occurrences, read from
 * {@code <table>_v} (an {@code fts5vocab} {@code instance} table: document, column, one row per
 * occurrence), are all a score needs besides the collection's row and token counts (FTS5's
 * averages record). The same doubles as FTS5's {@code bm25} ({@code Fts5PostingsScoreTest}).
 */
final class Fts5Postings implements TextPostings {
    /** Low bits of a document's number holding its length in tokens. */
    static final int LENGTH_BITS = 20;
    static final long LENGTH_MASK = (1L << LENGTH_BITS) - 1;
    /** FTS5's bm25 constants (fts5_aux.c). */
    private static final double K1 = 1.2;
    private static final double B = 0.75;
    /**
     * Most matches {@link #top} scores here (about 80 bytes each while it does, on a reader: at
     * most {@code sqlite-readers} at once); past it SQLite's sorter keeps the best n as FTS5 scores.
     */
    static final int MOST_SCORED_HERE = 200_000;

    @Override
    public List<String> create(String table, TextIndex index) {
        StringBuilder columns = new StringBuilder();
        for (int i = 0; i < index.weightClasses().size(); i++) {
            columns.append("w").append(i).append(", ");
        }
        return List.of("CREATE TABLE " + table + "(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(" + columns + "content='', contentless_delete=1,"
                        + " tokenize=\"ascii tokenchars ''''\")",
                "CREATE VIRTUAL TABLE " + table + "_v USING fts5vocab(" + table + "_t, 'instance')");
    }

    @Override
    public List<String> drop(String table) {
        return List.of("DROP TABLE IF EXISTS " + table + "_v", "DROP TABLE IF EXISTS " + table + "_t",
                "DROP TABLE IF EXISTS " + table);
    }

    /**
     * Made before the columns by weight (one column {@code terms}), or before numbers carried
     * lengths (a number below 2^20, or no {@code _v} table).
     */
    @Override
    public boolean outdated(SqlConnection sql, String table) throws SQLException {
        if (TextPostings.hasColumn(sql, table + "_t", "terms")) {
            return true;
        }
        PreparedStatement old = sql.prepare("SELECT (SELECT 1 FROM " + table + " WHERE n <= ? LIMIT 1) IS NOT NULL"
                + " OR NOT EXISTS (SELECT 1 FROM sqlite_master WHERE name = ?)");
        old.setLong(1, LENGTH_MASK);
        old.setString(2, table + "_v");
        try (ResultSet rs = old.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    @Override
    public void add(SqlConnection sql, String table, TextIndex index, byte[] id, List<String> termsByWeight)
            throws SQLException {
        // one row of VALUES, numbered here: an INSERT ... SELECT into this table (its id is unique) would open a statement
        // savepoint, at which FTS5 writes its pending postings out as a segment (one per document, then their merges)
        long last;
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(n), 0) FROM " + table).executeQuery()) {
            rs.next();
            last = rs.getLong(1);
        }
        PreparedStatement number = sql.prepare("INSERT INTO " + table + "(n, id) VALUES (?, ?)");
        number.setLong(1, ((last >> LENGTH_BITS) + 1) << LENGTH_BITS | Math.min(tokens(termsByWeight), LENGTH_MASK));
        number.setBytes(2, id);
        number.executeUpdate();
        StringBuilder columns = new StringBuilder("rowid");
        for (int i = 0; i < termsByWeight.size(); i++) {
            columns.append(", w").append(i);
        }
        PreparedStatement ps = sql.prepare("INSERT INTO " + table + "_t(" + columns + ") VALUES (last_insert_rowid()"
                + ", ?".repeat(termsByWeight.size()) + ")");
        for (int i = 0; i < termsByWeight.size(); i++) {
            ps.setString(i + 1, termsByWeight.get(i));
        }
        ps.executeUpdate();
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM " + table + "_t WHERE rowid = (SELECT n FROM " + table + " WHERE id = ?)");
        ps.setBytes(1, id);
        ps.executeUpdate();
        PreparedStatement row = sql.prepare("DELETE FROM " + table + " WHERE id = ?");
        row.setBytes(1, id);
        row.executeUpdate();
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
     * The first {@code n} of {@link #ranked}'s order: every match scored here from its
     * occurrences ({@link #scores}), those down to the n-th's score (its whole group of equal
     * scores) joined to their ids, sorted by score and id, cut at n.
     */
    @Override
    public Top top(SqlConnection sql, String table, TextIndex index, List<String> terms, int n) throws SQLException {
        return top(sql, table, index, terms, n, MOST_SCORED_HERE);
    }

    /** As {@link #top}, scored here up to {@code most} matches. */
    Top top(SqlConnection sql, String table, TextIndex index, List<String> terms, int n, int most) throws SQLException {
        Scores all = scores(sql, table, index, terms, most);
        if (all == null) {
            return topInSql(sql, table, index, terms, n);
        }
        if (all.size() == 0) {
            return new Top(List.of(), true);
        }
        double[] sorted = java.util.Arrays.copyOf(all.score, all.size());
        java.util.Arrays.sort(sorted);
        double least = sorted[Math.max(0, sorted.length - n)];
        tools.jackson.databind.node.ArrayNode numbers = dev.weft.core.Json.NODES.arrayNode();
        java.util.Map<Long, Double> scoreOf = new java.util.HashMap<>();
        for (int i = 0; i < all.size(); i++) {
            if (all.score[i] >= least) {
                numbers.add(all.doc[i]);
                scoreOf.put(all.doc[i], all.score[i]);
            }
        }
        PreparedStatement ids = sql.prepare("SELECT n, id FROM " + table + " WHERE n IN (SELECT value FROM json_each(?))");
        ids.setString(1, numbers.toString());
        List<Ranked> out = new ArrayList<>();
        try (ResultSet rs = ids.executeQuery()) {
            while (rs.next()) {
                out.add(new Ranked(rs.getBytes(2), scoreOf.get(rs.getLong(1))));
            }
        }
        out.sort(java.util.Comparator.comparingDouble(Ranked::score).reversed()
                .thenComparing(Ranked::id, java.util.Arrays::compareUnsigned));
        return new Top(out.size() > n ? List.copyOf(out.subList(0, n)) : out, all.size() <= n);
    }

    private Top topInSql(SqlConnection sql, String table, TextIndex index, List<String> terms, int n) throws SQLException {
        PreparedStatement best = sql.prepare("SELECT m.id, s.score FROM (" + scored(table, index)
                + " ORDER BY score DESC LIMIT ?) s CROSS JOIN " + table + " m ON m.n = s.rowid ORDER BY s.score DESC, m.id");
        best.setString(1, (String) lookupArgs(terms).getFirst());
        best.setInt(2, n);
        List<Ranked> out = rows(best);
        if (out.size() < n) {
            return new Top(out, true);
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

    /** Matching documents' numbers and scores, aligned. */
    record Scores(long[] doc, double[] score, int size) {}

    /**
     * FTS5's bm25 of each document holding a term (an OR of the terms, each a phrase), negated:
     * per term, idf = ln((N - hits + 0.5) / (hits + 0.5)) (1e-6 when not positive) times
     * f (k1 + 1) / (f + k1 (1 - b + b D / avgdl)), f the term's occurrences each weighted by its
     * column's weight, D the document's tokens (its number's low bits), avgdl the collection's
     * tokens per document; summed in the terms' order, as fts5_aux.c sums them. Null past
     * {@link #MOST_SCORED_HERE} matching documents.
     */
    static Scores scores(SqlConnection sql, String table, TextIndex index, List<String> terms) throws SQLException {
        return scores(sql, table, index, terms, MOST_SCORED_HERE);
    }

    /** As {@link #scores}, or null once more than {@code most} documents match. */
    static Scores scores(SqlConnection sql, String table, TextIndex index, List<String> terms, int most) throws SQLException {
        List<Integer> weights = index.weightClasses();
        double[] averages = averages(sql, table);
        double rows = averages[0];
        double avgdl = averages[1] / rows;
        java.util.Map<Long, double[]> freqs = new java.util.HashMap<>();
        int[] hits = new int[terms.size()];
        PreparedStatement occurrences = sql.prepare("SELECT doc, col FROM " + table + "_v WHERE term = ?");
        for (int t = 0; t < terms.size(); t++) {
            occurrences.setString(1, terms.get(t));
            try (ResultSet rs = occurrences.executeQuery()) {
                while (rs.next()) {
                    double[] f = freqs.computeIfAbsent(rs.getLong(1), d -> new double[terms.size()]);
                    if (f[t] == 0) {
                        hits[t]++;
                    }
                    if (freqs.size() > most) {
                        return null;
                    }
                    f[t] += weights.get(Integer.parseInt(rs.getString(2), 1, rs.getString(2).length(), 10));
                }
            }
        }
        double[] idf = new double[terms.size()];
        for (int t = 0; t < terms.size(); t++) {
            idf[t] = Math.log((rows - hits[t] + 0.5) / (hits[t] + 0.5));
            if (idf[t] <= 0.0) {
                idf[t] = 1e-6;
            }
        }
        long[] doc = new long[freqs.size()];
        double[] score = new double[freqs.size()];
        int i = 0;
        for (java.util.Map.Entry<Long, double[]> e : freqs.entrySet()) {
            double length = e.getKey() & LENGTH_MASK;
            double sum = 0;
            for (int t = 0; t < terms.size(); t++) {
                double f = e.getValue()[t];
                sum += idf[t] * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * length / avgdl)));
            }
            doc[i] = e.getKey();
            score[i++] = sum;
        }
        return new Scores(doc, score, i);
    }

    /** FTS5's averages record (rowid 1 of {@code %_data}): its row count, and its tokens summed over the columns. */
    private static double[] averages(SqlConnection sql, String table) throws SQLException {
        byte[] record;
        try (ResultSet rs = sql.prepare("SELECT block FROM " + table + "_t_data WHERE id = 1").executeQuery()) {
            record = rs.next() ? rs.getBytes(1) : null;
        }
        if (record == null || record.length == 0) {
            return new double[] {0, 0};
        }
        int[] at = {0};
        long rows = varint(record, at);
        long tokens = 0;
        while (at[0] < record.length) {
            tokens += varint(record, at);
        }
        return new double[] {rows, tokens};
    }

    /** SQLite's varint (big-endian, 7 bits a byte, the ninth byte whole), read at {@code at[0]}, which moves past it. */
    static long varint(byte[] b, int[] at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            int x = b[at[0]++] & 0xff;
            v = (v << 7) | (x & 0x7f);
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        return (v << 8) | (b[at[0]++] & 0xff);
    }

    /** A document's tokens as FTS5's {@code ascii} tokenizer with {@code '} a token character counts them. */
    static long tokens(List<String> termsByWeight) {
        long count = 0;
        for (String terms : termsByWeight) {
            boolean in = false;
            for (int i = 0; i < terms.length(); i++) {
                char c = terms.charAt(i);
                boolean token = c >= 0x80 || c == '\'' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
                if (token && !in) {
                    count++;
                }
                in = token;
            }
        }
        return count;
    }

    /** The matches' rowids and scores: FTS5's bm25, each column weighted by its class, negated so that higher is better. */
    private static String scored(String table, TextIndex index) {
        StringBuilder weights = new StringBuilder();
        for (int weight : index.weightClasses()) {
            weights.append(", ").append(weight).append(".0");
        }
        return "SELECT rowid, -bm25(" + table + "_t" + weights + ") AS score FROM " + table + "_t WHERE " + table + "_t MATCH ?";
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
