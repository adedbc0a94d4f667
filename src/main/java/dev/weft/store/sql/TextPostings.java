package dev.weft.store.sql;

import java.sql.SQLException;
import java.util.List;

/**
 * Where a dialect keeps the postings of a text index when not as rows of the generic index table
 * {@code i<id>(key, id)}: a full-text table of the database's own (SQLite's FTS5), holding each
 * document's terms as Weft's analyzer derived them ({@link dev.weft.query.TextIndex#terms}), so
 * the database's tokenizer only splits them at spaces and stems nothing again. Written in the
 * transaction of the document; a lookup returns exactly the documents holding any of the terms.
 */
public interface TextPostings {
    /** The DDL of the index's tables ({@code table} and whatever it names after it). */
    List<String> create(String table);

    /** The DDL dropping them (each {@code IF EXISTS}). */
    List<String> drop(String table);

    /** Adds a document's terms (space-joined, in order). */
    void add(SqlConnection sql, String table, byte[] id, String terms) throws SQLException;

    /** Removes a document's postings. */
    void remove(SqlConnection sql, String table, byte[] id) throws SQLException;

    /** A SELECT of the ids of the documents holding any of {@code terms}; its parameters are {@link #lookupArgs}. */
    String lookup(String table);

    List<Object> lookupArgs(List<String> terms);
}
