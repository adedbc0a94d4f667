package dev.weft.store.sql;

import dev.weft.query.Trigrams;
import java.sql.SQLException;
import java.util.List;

/**
 * Where a dialect keeps a trigram index when not as rows {@code (trigram, id)} of the generic
 * index table: a structure of the database's own that cuts each document's
 * {@link Trigrams#indexed} text into trigrams and keeps compact posting lists (SQLite's FTS5
 * {@code trigram} tokenizer, PostgreSQL's {@code pg_trgm} GIN index). Written in the document's
 * transaction. A lookup returns at least every document holding the trigrams of a
 * {@link Trigrams.Query}, and every document whose text was too long to index
 * ({@link Trigrams.Indexed#overflow()}); the filter decides each.
 */
public interface TrigramPostings {
    /** The DDL of the index's tables ({@code table} and whatever it names after it). */
    List<String> create(String table);

    /** The DDL dropping them (each {@code IF EXISTS}). */
    List<String> drop(String table);

    /** Adds documents ({@code ids} and {@code texts} aligned; a null text is skipped), in as few statements as the dialect can. */
    void addAll(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException;

    /** Adds the documents of an index's build over a collection's documents (by default as {@link #addAll}). */
    default void build(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException {
        addAll(sql, table, ids, texts);
    }

    /** Called once per trigram index when the store opens, in its first transaction: what an older index lacks is made. */
    default void opened(SqlConnection sql, String table) throws SQLException {}

    /** Removes a document's postings, if it has any. */
    void remove(SqlConnection sql, String table, byte[] id) throws SQLException;

    /** A SELECT of the ids of the candidates of {@code query}, and its parameters in order. */
    Lookup lookup(String table, Trigrams.Query query);

    record Lookup(String sql, List<Object> args) {}

    /**
     * Documents holding the trigram {@code gram} (or, for {@link Trigrams#OVERFLOW}, the documents
     * too long to index), counted up to {@code cap}: the planner's estimate.
     */
    default long count(SqlConnection sql, String table, byte[] gram, long cap) throws SQLException {
        boolean overflow = java.util.Arrays.equals(gram, Trigrams.OVERFLOW);
        java.sql.PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM "
                + (overflow ? overflowed(table) : holding(table)) + " LIMIT " + Dialect.BOUND_COUNT_IN_EXPRESSION + ") c");
        int p = 1;
        if (!overflow) {
            ps.setString(p++, term(gram));
        }
        ps.setLong(p, cap);
        try (java.sql.ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The FROM and WHERE of the documents too long to index. */
    String overflowed(String table);

    /** The FROM and WHERE of the documents holding one trigram, {@link #term} its one parameter. */
    String holding(String table);

    /** A trigram as {@link #holding}'s parameter. */
    String term(byte[] gram);

    /** A query as an expression: each trigram as {@code gram} writes it, an AND or OR of parts in parentheses. */
    static String expression(Trigrams.Query query, java.util.function.Function<byte[], String> gram) {
        return switch (query) {
            case Trigrams.Gram g -> gram.apply(g.key());
            case Trigrams.All a -> join(a.parts(), " AND ", gram);
            case Trigrams.Any o -> join(o.parts(), " OR ", gram);
        };
    }

    private static String join(List<Trigrams.Query> parts, String op, java.util.function.Function<byte[], String> gram) {
        StringBuilder s = new StringBuilder("(");
        for (Trigrams.Query part : parts) {
            s.append(s.length() > 1 ? op : "").append(expression(part, gram));
        }
        return s.append(')').toString();
    }
}
