package dev.weft.store.sqlite;

import dev.weft.query.TextIndex;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings.Ranked;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The best n documents holding either of two words, by FTS5's bm25, without scoring every one
 * of them (a cut by score bound, as MaxScore): bm25 is a sum over the query's words, and a
 * word's share is below {@code idf * (k1 + 1)} (FTS5's {@code k1} is 1.2), whatever the
 * document. So the n-th best score θ of the documents holding both words (a small set, found by
 * FTS5's {@code AND}) is at most the n-th best score of all; a document holding only word w
 * scores below w's bound, and when that bound is under θ no such document can be among the best
 * n. Then only the documents holding the other word alone ({@code NOT}) are scored: about the
 * rarer word's documents instead of both words' (at 1M English-like documents, ~27,000 instead
 * of ~80,000 for two common words). When neither bound is under θ, or fewer than n documents
 * hold both words, there is no cut ({@link #best} says null).
 *
 * <p>The scores are FTS5's own, bit for bit: bm25 adds the words' shares in the query's order,
 * and for {@code "a" AND "b"}, {@code "a" OR "b"} and {@code "b" NOT "a"} the words are the same
 * phrases with the same idf (a query word's idf counts the documents holding it alone), a
 * missing word adding exactly 0. The idf bound is FTS5's formula over the word's document count
 * and at least FTS5's row count ({@link #rowCount}), with a margin.
 */
final class Fts5PairTop {
    /** FTS5's bm25 k1: a word's share is below idf * (K1 + 1). */
    private static final double K1 = 1.2;
    /** Relative margin on a bound (Java's log beside C's). */
    private static final double MARGIN = 1e-9;

    private final SqlConnection sql;
    private final String table;
    private final TextIndex index;
    private final String a;
    private final String b;

    /** {@code a} and {@code b}: two different terms (an FTS5 string each: no double quote). */
    Fts5PairTop(SqlConnection sql, String table, TextIndex index, String a, String b) {
        this.sql = sql;
        this.table = table;
        this.index = index;
        this.a = a;
        this.b = b;
    }

    /**
     * Exactly n documents in {@code ORDER BY score DESC, id}, every document scoring above the
     * n-th among them: the best n of those holding a or b, but of the n-th's score some may be
     * left out; null when the cut does not apply.
     */
    List<Ranked> best(int n) throws SQLException {
        List<Ranked> both = Fts5Postings.best(sql, table, index, phrase(a) + " AND " + phrase(b), n);
        if (both.size() < n) {
            return null;
        }
        double theta = both.getLast().score();
        long rows = rowCount();
        if (rows <= 0) {
            return null;
        }
        boolean aAlone = bound(rows, a) >= theta;
        boolean bAlone = bound(rows, b) >= theta;
        if (aAlone && bAlone) {
            return null;
        }
        List<Ranked> out = new ArrayList<>(both);
        if (aAlone) {
            out.addAll(Fts5Postings.best(sql, table, index, phrase(a) + " NOT " + phrase(b), n));
        }
        if (bAlone) {
            out.addAll(Fts5Postings.best(sql, table, index, phrase(b) + " NOT " + phrase(a), n));
        }
        out.sort(Comparator.comparingDouble(Ranked::score).reversed().thenComparing(Ranked::id, Arrays::compareUnsigned));
        return out.subList(0, n);
    }

    private static String phrase(String term) {
        return "\"" + term + "\"";
    }

    /** Above any share of {@code term} in a score: idf * (k1 + 1), idf as FTS5's bm25 has it. */
    private double bound(long rows, String term) throws SQLException {
        long hits = documentsHolding(term);
        double idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
        return Math.max(idf, 1e-6) * (K1 + 1) * (1 + MARGIN);
    }

    private long documentsHolding(String term) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM " + table + "_t WHERE " + table + "_t MATCH ?");
        ps.setString(1, phrase(term));
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * At least the row count bm25 divides by (idf grows with it): the greatest document number
     * in use, numbers being given in order (FTS5's own count, in its averages record, is written
     * at commit and so may lag inside a transaction that added documents).
     */
    private long rowCount() throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(n), 0) FROM " + table).executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
