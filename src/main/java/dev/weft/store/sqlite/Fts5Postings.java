package dev.weft.store.sqlite;

import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TextPostings;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * A text index on SQLite: {@code <table>(n, id)} numbers the documents it holds (a document table
 * has no rowid) and {@code <table>_t}, a contentless FTS5 table, holds their terms under that
 * number. The terms are already folded and stemmed, so the {@code ascii} tokenizer only cuts them
 * at spaces (an apostrophe stays inside a term, as in Weft's words; other characters of a term
 * are letters, digits or, past ASCII, token characters to {@code ascii}).
 */
final class Fts5Postings implements TextPostings {
    @Override
    public List<String> create(String table) {
        return List.of("CREATE TABLE " + table + "(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(terms, content='', contentless_delete=1,"
                        + " tokenize=\"ascii tokenchars ''''\")");
    }

    @Override
    public List<String> drop(String table) {
        return List.of("DROP TABLE IF EXISTS " + table + "_t", "DROP TABLE IF EXISTS " + table);
    }

    @Override
    public void add(SqlConnection sql, String table, byte[] id, String terms) throws SQLException {
        PreparedStatement number = sql.prepare("INSERT INTO " + table + "(id) VALUES (?) RETURNING n");
        number.setBytes(1, id);
        long n;
        try (ResultSet rs = number.executeQuery()) {
            rs.next();
            n = rs.getLong(1);
        }
        PreparedStatement ps = sql.prepare("INSERT INTO " + table + "_t(rowid, terms) VALUES (?, ?)");
        ps.setLong(1, n);
        ps.setString(2, terms);
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
}
