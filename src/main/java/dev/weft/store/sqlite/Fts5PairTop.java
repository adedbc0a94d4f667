package dev.weft.store.sqlite;

import dev.weft.query.TextIndex;
import dev.weft.store.sql.Dialect;
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
 * and at least FTS5's row count ({@link #rowCount}), with a margin. A word's documents are
 * counted only as far as the decision needs (up to the fewest that put its bound under θ), so the
 * decision, and so the page, is the one a full count gives.
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
    private final boolean nativeTop;

    /** {@code a} and {@code b}: two different terms (an FTS5 string each: no double quote); ranked with bm25 alone. */
    Fts5PairTop(SqlConnection sql, String table, TextIndex index, String a, String b) {
        this(sql, table, index, a, b, false);
    }

    /** {@code nativeTop}: the connection has {@code weft_top} ({@link Fts5Postings#best}). */
    Fts5PairTop(SqlConnection sql, String table, TextIndex index, String a, String b, boolean nativeTop) {
        this.sql = sql;
        this.table = table;
        this.index = index;
        this.a = a;
        this.b = b;
        this.nativeTop = nativeTop;
    }

    /**
     * Exactly n documents in {@code ORDER BY score DESC, id}, every document scoring above the
     * n-th among them: the best n of those holding a or b, but of the n-th's score some may be
     * left out; null when the cut does not apply.
     */
    List<Ranked> best(int n) throws SQLException {
        List<Ranked> both = Fts5Postings.best(sql, table, index, phrase(a) + " AND " + phrase(b), n, nativeTop);
        if (both.size() < n) {
            return null;
        }
        double theta = both.getLast().score();
        long rows = rowCount();
        if (rows <= 0) {
            return null;
        }
        // a word's bound (above any share of it in a score) falls as its documents grow: it is
        // under theta exactly when the word has at least the fewest documents that put it there,
        // so each word's documents are counted only up to that many (a common word's doclist read
        // in part), once for both words
        long fewest = fewestDocumentsBelow(rows, theta);
        if (fewest < 0) {
            return null;
        }
        boolean aAlone = documentsHolding(a, fewest) < fewest;
        boolean bAlone = documentsHolding(b, fewest) < fewest;
        if (aAlone && bAlone) {
            return null;
        }
        List<Ranked> out = new ArrayList<>(both);
        if (aAlone) {
            out.addAll(Fts5Postings.best(sql, table, index, phrase(a) + " NOT " + phrase(b), n, nativeTop));
        }
        if (bAlone) {
            out.addAll(Fts5Postings.best(sql, table, index, phrase(b) + " NOT " + phrase(a), n, nativeTop));
        }
        out.sort(Comparator.comparingDouble(Ranked::score).reversed().thenComparing(Ranked::id, Arrays::compareUnsigned));
        return out.subList(0, n);
    }

    private static String phrase(String term) {
        return "\"" + term + "\"";
    }

    /** The bound of a term held by {@code hits} of {@code rows} documents. */
    static double bound(long rows, long hits) {
        double idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
        return Math.max(idf, 1e-6) * (K1 + 1) * (1 + MARGIN);
    }

    /** The fewest documents in 0..rows for which {@link #bound} is below theta (it never rises with them); -1: none. */
    static long fewestDocumentsBelow(long rows, double theta) {
        if (!(bound(rows, rows) < theta)) {
            return -1;
        }
        long low = 0;
        long high = rows; // bound(high) < theta
        while (low < high) {
            long mid = low + (high - low) / 2;
            if (bound(rows, mid) < theta) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }

    /** The documents holding {@code term}, counted up to {@code most}. */
    private long documentsHolding(String term, long most) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + table + "_t WHERE " + table
                + "_t MATCH ? LIMIT " + Dialect.BOUND_COUNT_IN_EXPRESSION + ")");
        ps.setString(1, phrase(term));
        ps.setLong(2, most);
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
