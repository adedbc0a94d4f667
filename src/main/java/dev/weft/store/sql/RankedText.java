package dev.weft.store.sql;

import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.query.StoredMatcher;
import dev.weft.query.TextSearch;
import dev.weft.store.Catalog;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.store.plan.TopK;
import java.nio.ByteBuffer;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@code $text} find ranked by the store ({@link TextPostings#ranked}): the candidates arrive
 * best first with their scores, their bodies are read a batch at a time by id, and the filter
 * (its other terms, the read rule, phrases and negated words) decides on each. Sorted by
 * {@code textScore} alone (ties by ascending {@code _id}, the store's order), the read stops once
 * skip + limit documents matched, so only about a page of documents is read and decoded, however
 * many hold the words. Sorted otherwise, every candidate goes through the top-k heap with its
 * score. Each document carries its score out ({@link StoredDocument#textScore}).
 */
final class RankedText {
    /** Bodies read by id in one statement (a short batch is padded with its last id: one statement text). */
    private static final int BATCH = 64;
    /** Rounds of the best n candidates (n, then 4n) before a page not yet full reads one full ranking. */
    private static final int TOP_ROUNDS = 2;

    private final SqlConnection sql;
    private final Dialect dialect;
    private final Catalog.Coll coll;
    private final QueryTime time;

    private RankedText(SqlConnection sql, Dialect dialect, Catalog.Coll coll, QueryTime time) {
        this.sql = sql;
        this.dialect = dialect;
        this.coll = coll;
        this.time = time;
    }

    /** Receives a match with its id and score; returns false once it wants no more. */
    private interface Matches {
        boolean accept(byte[] id, byte[] body, double score) throws SQLException;
    }

    /**
     * The page of a ranked find, or null when the store does not rank this one: no postings of
     * the dialect's own, a plan not on the text index, or a reader who may not see every
     * document ({@link TextSearch#rankedByStore}).
     */
    static List<StoredDocument> page(SqlConnection sql, Dialect dialect, Catalog.Coll coll, Catalog.Index index,
                                     TextSearch search, StoredMatcher matcher, Sort sort, long skip, long limit,
                                     QueryTime time, long maxSortBytes) throws SQLException {
        TextPostings postings = dialect.textPostings().orElse(null);
        if (postings == null || index == null || !index.spec().isText() || !search.rankedByStore()) {
            return null;
        }
        List<String> terms = search.lookupTerms();
        if (terms.isEmpty()) {
            return List.of();
        }
        postings.current(sql, index.table());
        RankedText read = new RankedText(sql, dialect, coll, time);
        List<StoredDocument> out = new ArrayList<>();
        if (inRankOrder(sort)) {
            read.firstMatches(postings, index, search, terms, matcher, skip, limit, out);
            return out;
        }
        PreparedStatement ranked = postings.ranked(sql, index.table(), search.index(), terms);
        TopK top = new TopK(sort, skip, limit, maxSortBytes);
        Map<byte[], Double> scores = new IdentityHashMap<>();
        read.matches(ranked, 0, null, (id, body, score) -> {
            JsonNode doc = matcher.readIfMatches(body);
            if (doc instanceof ObjectNode o) {
                o.put(Sort.TEXT_SCORE, score);
                scores.put(body, score);
                top.offer(id, body, doc);
            }
            return true;
        });
        for (byte[] body : top.result()) {
            out.add(new StoredDocument(body, scores.get(body)));
        }
        return out;
    }

    /**
     * The page in rank order from about the best {@code n} candidates ({@link TextPostings#top}),
     * n twice the page at first and four times more once if the filter (its other terms, or the
     * reader's rule) turned down so many that the page is not full and more candidates are left:
     * the database keeps only the best n as it scores, and only those are joined to their ids and
     * read. Past those {@link #TOP_ROUNDS}, every further candidate comes from one full ranking
     * ({@link TextPostings#ranked}, the same order) read on from where the rounds stopped: each
     * round scores every match again, so growing n on would rank them about once per factor of
     * four (up to six times on PostgreSQL's ts_rank over a common word, for a reader who may read
     * few of them).
     */
    private void firstMatches(TextPostings postings, Catalog.Index index, TextSearch search, List<String> terms,
                              StoredMatcher matcher, long skip, long limit, List<StoredDocument> out) throws SQLException {
        long[] toSkip = {skip};
        Matches page = (id, body, score) -> {
            if (toSkip[0] > 0) {
                toSkip[0]--;
            } else {
                out.add(new StoredDocument(body, score));
            }
            return out.size() < limit;
        };
        int handed = 0;
        long n = Math.max(2 * (skip + limit), BATCH);
        for (int round = 0; round < TOP_ROUNDS; round++, n *= 4) {
            TextPostings.Top top = postings.top(sql, index.table(), search.index(), terms, (int) Math.min(n, Integer.MAX_VALUE));
            List<TextPostings.Ranked> fresh = top.ranked().subList(Math.min(handed, top.ranked().size()), top.ranked().size());
            List<byte[]> ids = new ArrayList<>(BATCH);
            List<Double> scores = new ArrayList<>(BATCH);
            for (TextPostings.Ranked r : fresh) {
                ids.add(r.id());
                scores.add(r.score());
                if (ids.size() == BATCH && !batch(ids, scores, matcher, page)) {
                    return;
                }
            }
            if (!batch(ids, scores, matcher, page) || top.complete()) {
                return;
            }
            handed = top.ranked().size();
        }
        matches(postings.ranked(sql, index.table(), search.index(), terms), handed, matcher, page);
    }

    /** Whether {@code sort} is the store's order: textScore, then (if at all) ascending _id. */
    static boolean inRankOrder(Sort sort) {
        List<IndexField> fields = sort.fields();
        return !fields.isEmpty() && fields.getFirst().path().equals(Sort.TEXT_SCORE)
                && (fields.size() == 1 || fields.size() == 2 && fields.get(1).equals(new IndexField("_id", 1)));
    }

    /**
     * The candidates in rank order past the first {@code handedAlready} (read before, from a
     * beginning of the same order), each body read, handed on if {@code matcher} (null: any)
     * takes it.
     */
    private void matches(PreparedStatement ranked, long handedAlready, StoredMatcher matcher, Matches out) throws SQLException {
        if (dialect.fetchRows() > 0) {
            ranked.setFetchSize(dialect.fetchRows());
        }
        List<byte[]> ids = new ArrayList<>(BATCH);
        List<Double> scores = new ArrayList<>(BATCH);
        try (ResultSet rs = ranked.executeQuery()) {
            for (long passed = 0; passed < handedAlready && rs.next(); passed++) {
                // read before
            }
            while (rs.next()) {
                ids.add(rs.getBytes(1));
                scores.add(rs.getDouble(2));
                if (ids.size() == BATCH && !batch(ids, scores, matcher, out)) {
                    return;
                }
            }
        }
        batch(ids, scores, matcher, out);
    }

    /** One batch of candidates: their bodies read, each handed on in rank order; false once no more are wanted. */
    private boolean batch(List<byte[]> ids, List<Double> scores, StoredMatcher matcher, Matches out) throws SQLException {
        if (ids.isEmpty()) {
            return true;
        }
        Map<ByteBuffer, byte[]> bodies = bodies(ids);
        try {
            for (int i = 0; i < ids.size(); i++) {
                byte[] body = bodies.get(ByteBuffer.wrap(ids.get(i)));
                if (body == null) {
                    continue;
                }
                time.row();
                if ((matcher == null || matcher.matches(body)) && !out.accept(ids.get(i), body, scores.get(i))) {
                    return false;
                }
            }
            return true;
        } finally {
            ids.clear();
            scores.clear();
        }
    }

    private Map<ByteBuffer, byte[]> bodies(List<byte[]> ids) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT id, body FROM " + coll.table() + " WHERE id IN (?"
                + ", ?".repeat(BATCH - 1) + ")");
        for (int i = 0; i < BATCH; i++) {
            ps.setBytes(i + 1, ids.get(Math.min(i, ids.size() - 1)));
        }
        Map<ByteBuffer, byte[]> out = new HashMap<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(ByteBuffer.wrap(rs.getBytes(1)), rs.getBytes(2));
            }
        }
        return out;
    }
}
