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
 */
final class Fts5Postings implements TextPostings {
    @Override
    public List<String> create(String table, TextIndex index) {
        StringBuilder columns = new StringBuilder();
        for (int i = 0; i < index.weightClasses().size(); i++) {
            columns.append("w").append(i).append(", ");
        }
        return List.of("CREATE TABLE " + table + "(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(" + columns + "content='', contentless_delete=1,"
                        + " tokenize=\"ascii tokenchars ''''\")");
    }

    @Override
    public List<String> drop(String table) {
        return List.of("DROP TABLE IF EXISTS " + table + "_t", "DROP TABLE IF EXISTS " + table);
    }

    /** Made before the columns by weight: one column {@code terms}. */
    @Override
    public boolean outdated(SqlConnection sql, String table) throws SQLException {
        return TextPostings.hasColumn(sql, table + "_t", "terms");
    }

    @Override
    public void add(SqlConnection sql, String table, TextIndex index, byte[] id, List<String> termsByWeight)
            throws SQLException {
        // numbered by the insert, read back as last_insert_rowid(): a RETURNING costs SQLite more than this insert
        PreparedStatement number = sql.prepare("INSERT INTO " + table + "(id) VALUES (?)");
        number.setBytes(1, id);
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
     * The best {@code n} scores kept by SQLite's sorter as FTS5 hands the matches over (what
     * FTS5's own {@code ORDER BY bm25 LIMIT n} costs); only those are joined to their ids and
     * sorted by id within a score. The n-th's group of equal scores may be cut by the limit, so
     * it is left out (fetched whole, by its score, when it is all there is).
     */
    @Override
    public Top top(SqlConnection sql, String table, TextIndex index, List<String> terms, int n) throws SQLException {
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
