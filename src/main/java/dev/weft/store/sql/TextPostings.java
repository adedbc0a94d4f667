package dev.weft.store.sql;

import dev.weft.query.TextIndex;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Where a dialect keeps the postings of a text index when not as rows of the generic index table
 * {@code i<id>(key, id)}: a full-text table of the database's own (SQLite's FTS5, PostgreSQL's
 * tsvector), holding each document's terms as Weft's analyzer derived them
 * ({@link TextIndex#termsByWeight}), kept apart by weight, so the database stems nothing again and
 * its ranking weighs the fields as the index does. Written in the transaction of the document; a
 * lookup returns exactly the documents holding any of the terms, a ranked lookup the same with
 * the database's relevance score, best first.
 */
public interface TextPostings {
    /** The DDL of the index's tables ({@code table} and whatever it names after it). */
    List<String> create(String table, TextIndex index);

    /** The DDL dropping them (each {@code IF EXISTS}). */
    List<String> drop(String table);

    /** Whether {@code table} was made by an older Weft in another shape (then it is built again at open). */
    boolean outdated(SqlConnection sql, String table) throws SQLException;

    /** Adds a document's terms by weight class ({@link TextIndex#termsByWeight}). */
    void add(SqlConnection sql, String table, TextIndex index, byte[] id, List<String> termsByWeight) throws SQLException;

    /** Adds the terms of several documents ({@code ids} and {@code termsByWeight} aligned), in as few statements as the dialect can. */
    default void addAll(SqlConnection sql, String table, TextIndex index, List<byte[]> ids, List<List<String>> termsByWeight)
            throws SQLException {
        for (int i = 0; i < ids.size(); i++) {
            add(sql, table, index, ids.get(i), termsByWeight.get(i));
        }
    }

    /** Adds the terms of the documents of an index's build over a collection's documents (by default as {@link #addAll}). */
    default void build(SqlConnection sql, String table, TextIndex index, List<byte[]> ids, List<List<String>> termsByWeight)
            throws SQLException {
        addAll(sql, table, index, ids, termsByWeight);
    }

    /** Called once per text index when the store opens, in its first transaction: what an older index lacks is made. */
    default void opened(SqlConnection sql, String table, TextIndex index) throws SQLException {}

    /**
     * Called in a query's snapshot before the index is looked up. A dialect whose lookups may
     * miss committed documents in some snapshots (documents it holds pending) throws there an
     * unchecked exception of its own, which its store handles by bringing the index up to date
     * and running the query again: every lookup reads exactly the snapshot's documents.
     */
    default void current(SqlConnection sql, String table) throws SQLException {}

    /** Removes a document's postings. */
    void remove(SqlConnection sql, String table, byte[] id) throws SQLException;

    /** A SELECT of the ids of the documents holding any of {@code terms}; its parameters are {@link #lookupArgs}. */
    String lookup(String table);

    List<Object> lookupArgs(List<String> terms);

    /**
     * A statement, ready to run, of the ids and relevance scores {@code (id, score)} of the
     * documents holding any of {@code terms}, highest score first, ties by ascending id.
     */
    PreparedStatement ranked(SqlConnection sql, String table, TextIndex index, List<String> terms) throws SQLException;

    /** A document holding a term, by id, with its relevance score. */
    record Ranked(byte[] id, double score) {}

    /**
     * A beginning of {@link #ranked}'s order: {@code ranked} holds its first documents,
     * {@code complete} when they are all the documents holding the terms.
     */
    record Top(List<Ranked> ranked, boolean complete) {}

    /**
     * About the first {@code n} of {@link #ranked}'s order ({@link Top}), never none while some
     * are left: a dialect whose database cannot keep ties in that order past a limit returns
     * fewer (up to the n-th's group of equal scores) or more (the whole group). A dialect may find
     * them without reading every document's score out of the database.
     */
    default Top top(SqlConnection sql, String table, TextIndex index, List<String> terms, int n) throws SQLException {
        PreparedStatement ps = ranked(sql, table, index, terms);
        List<Ranked> out = new java.util.ArrayList<>();
        try (java.sql.ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                double score = rs.getDouble(2);
                if (out.size() >= n && score != out.getLast().score()) {
                    return new Top(out, false);
                }
                out.add(new Ranked(rs.getBytes(1), score));
            }
        }
        return new Top(out, true);
    }

    /** Whether {@code table} has a column {@code column} (what {@link #outdated} looks at). */
    static boolean hasColumn(SqlConnection sql, String table, String column) throws SQLException {
        try (var st = sql.connection().createStatement(); var rs = st.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            var meta = rs.getMetaData();
            for (int i = 1; i <= meta.getColumnCount(); i++) {
                if (meta.getColumnName(i).equalsIgnoreCase(column)) {
                    return true;
                }
            }
            return false;
        }
    }
}
