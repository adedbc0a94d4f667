package dev.weft.store.sqlite;

import dev.weft.core.Json;
import dev.weft.query.Trigrams;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.sql.TrigramPostings;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import tools.jackson.databind.node.ArrayNode;

/**
 * A trigram index on SQLite: {@code <table>(n, id)} numbers the documents it holds (a document
 * table has no rowid) and {@code <table>_t}, a contentless FTS5 table with the {@code trigram}
 * tokenizer, holds each document's {@link Trigrams#indexed} text under that number. The text is
 * folded already (Weft's lower-casing, the keys' and the queries'), so the tokenizer runs with
 * {@code case_sensitive 1} and folds nothing again; {@code detail=none} keeps only which documents
 * hold a trigram (a lookup asks for single trigrams, never for their positions), so a posting is
 * a few bytes of a compressed list instead of a B-tree row.
 *
 * <p>A document whose text has too many trigrams ({@link Trigrams.Indexed#overflow()}) gets a
 * negative number and nothing in FTS5: the rowid range {@code n < 0} is the list of those
 * documents, added to every lookup. A lookup is one FTS5 {@code MATCH} of the query's trigrams,
 * each a one-token phrase, joined with {@code AND} and {@code OR} as the query is.
 *
 * <p>The documents of one write go in with one statement per table, whatever their number (their
 * ids and texts as JSON arrays read by {@code json_each}). Not for the round trips: SQLite opens
 * a savepoint for each statement that may fail part way (a multi-row insert into the numbering
 * table, whose id is unique), and FTS5 writes its pending postings out as a new segment at every
 * savepoint of its transaction, so statements of 64 rows made a segment per 64 documents, and
 * merging those cost more than the postings themselves (inserts into an indexed collection ran
 * at 0.38 of those into one without, docs/benchmarks.md search-4).
 */
final class Fts5Trigrams implements TrigramPostings {

    @Override
    public List<String> create(String table) {
        return List.of("CREATE TABLE " + table + "(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)",
                "CREATE VIRTUAL TABLE " + table + "_t USING fts5(s, content='', contentless_delete=1, detail=none,"
                        + " tokenize='trigram case_sensitive 1')");
    }

    @Override
    public List<String> drop(String table) {
        return List.of("DROP TABLE IF EXISTS " + table + "_t", "DROP TABLE IF EXISTS " + table);
    }

    /**
     * Numbers are given here, after the greatest in use (one writer: nothing else numbers
     * meanwhile), so that all the documents go in one statement per table.
     */
    @Override
    public void addAll(SqlConnection sql, String table, List<byte[]> ids, List<Trigrams.Indexed> texts) throws SQLException {
        List<byte[]> someIds = new ArrayList<>();
        List<String> someTexts = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            Trigrams.Indexed text = texts.get(i);
            if (text != null && text.overflow()) {
                addOverflow(sql, table, ids.get(i));
            } else if (text != null) {
                someIds.add(ids.get(i));
                someTexts.add(text.text());
            }
        }
        if (!someIds.isEmpty()) {
            insert(sql, table, someIds, someTexts);
        }
    }

    private static void insert(SqlConnection sql, String table, List<byte[]> ids, List<String> texts) throws SQLException {
        long first;
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(n), 0) + 1 FROM " + table).executeQuery()) {
            rs.next();
            first = Math.max(1, rs.getLong(1));
        }
        ArrayNode hexIds = Json.NODES.arrayNode();
        ids.forEach(id -> hexIds.add(HexFormat.of().formatHex(id)));
        ArrayNode strings = Json.NODES.arrayNode();
        texts.forEach(strings::add);
        PreparedStatement numbers = sql.prepare("INSERT INTO " + table + "(n, id) SELECT ? + key, unhex(value) FROM json_each(?)");
        numbers.setLong(1, first);
        numbers.setString(2, hexIds.toString());
        numbers.executeUpdate();
        PreparedStatement postings = sql.prepare("INSERT INTO " + table + "_t(rowid, s) SELECT ? + key, value FROM json_each(?)");
        postings.setLong(1, first);
        postings.setString(2, strings.toString());
        postings.executeUpdate();
    }

    private static void addOverflow(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT INTO " + table + "(n, id) SELECT min(0, coalesce(min(n), 0)) - 1, ? FROM " + table);
        ps.setBytes(1, id);
        ps.executeUpdate();
    }

    @Override
    public void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement find = sql.prepare("SELECT n FROM " + table + " WHERE id = ?");
        find.setBytes(1, id);
        long n;
        try (ResultSet rs = find.executeQuery()) {
            if (!rs.next()) {
                return;
            }
            n = rs.getLong(1);
        }
        if (n > 0) {
            PreparedStatement postings = sql.prepare("DELETE FROM " + table + "_t WHERE rowid = ?");
            postings.setLong(1, n);
            postings.executeUpdate();
        }
        PreparedStatement number = sql.prepare("DELETE FROM " + table + " WHERE n = ?");
        number.setLong(1, n);
        number.executeUpdate();
    }

    @Override
    public Lookup lookup(String table, Trigrams.Query query) {
        return new Lookup("SELECT m.id FROM " + table + "_t CROSS JOIN " + table + " m ON m.n = " + table + "_t.rowid WHERE "
                + table + "_t MATCH ? UNION ALL SELECT id FROM " + overflowed(table), List.of(match(query)));
    }

    @Override
    public String overflowed(String table) {
        return table + " WHERE n < 0";
    }

    @Override
    public String holding(String table) {
        return table + "_t WHERE " + table + "_t MATCH ?";
    }

    @Override
    public String term(byte[] gram) {
        return phrase(gram);
    }

    /** The FTS5 query of a lookup: each trigram a phrase. */
    static String match(Trigrams.Query query) {
        return TrigramPostings.expression(query, Fts5Trigrams::phrase);
    }

    /** A trigram as an FTS5 string: in double quotes, a double quote doubled. */
    private static String phrase(byte[] gram) {
        return '"' + new String(gram, StandardCharsets.UTF_8).replace("\"", "\"\"") + '"';
    }
}
