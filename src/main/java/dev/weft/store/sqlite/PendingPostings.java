package dev.weft.store.sqlite;

import dev.weft.store.sql.SqlConnection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The pending documents of SQLite's FTS5 indexes (trigram and text), as PostgreSQL GIN's
 * {@code fastupdate}: an index {@code <table>(n, id)} numbers its documents, {@code <table>_t} is
 * the FTS5 table holding each under its number, and {@code <table>_p(n, last, rows)} holds the
 * documents writes added but did not put into FTS5 ({@link #createChunks}), a row per write: its
 * documents' rows (each a JSON array of FTS5's columns) as one JSON array, under the number of its
 * first document ({@code n}) and its last ({@code last}). A write puts its documents there in its
 * own transaction (so nothing acknowledged is missing from the index), the writer moves them into
 * FTS5 when idle ({@link #indexPending}), a chunk per transaction, and a write moves them all
 * once more than the index's bound are pending. A document is pending or in FTS5 in any
 * snapshot, never both nor neither.
 *
 * <p>FTS5 makes a segment of each statement's rows and writes out what it holds at every
 * savepoint of its transaction (SQLite opens one for each statement that may fail part way), so
 * the documents of a write go in with one statement per table, their ids and rows as JSON arrays
 * read by {@code json_each}; a chunk of pending documents goes into FTS5 as one statement too.
 *
 * <p>One row per write costs the write one B-tree insert where a row per document cost a
 * thousand; the JSON is read when the chunk goes into FTS5, and by a trigram lookup (which reads
 * pending documents; a text lookup does not). A document removed while pending leaves its chunk
 * as it is and only loses its number; a chunk goes into FTS5 without the documents whose numbers
 * are gone, and numbers are never given again while a chunk holds them. A pending table of a
 * row per document, as an older Weft made it, is put into FTS5 at open and made again.
 *
 * <p>Invariant of the to-do list ({@link #withPending}): only the writer thread changes it, and
 * an index holding pending documents in the committed state is on it, except after a drop (its
 * tables are gone) or a rolled back drop (then {@link #moveAll} and a restart find them again).
 */
final class PendingPostings {
    /**
     * Pending documents put into FTS5 per idle transaction: FTS5 makes a segment of each (it
     * merges them), and a write arriving meanwhile waits for one chunk, tens of milliseconds.
     */
    static final int IDLE_CHUNK = 2048;
    private static final HexFormat HEX = HexFormat.of();

    /** Thrown in a query's snapshot where an index it is about to read holds pending documents that its lookups do not read. */
    static final class Lagging extends RuntimeException {
        private final String table;

        Lagging(String table) {
            super("text index " + table + " holds pending documents", null, false, false);
            this.table = table;
        }

        String table() {
            return table;
        }
    }

    /** The index tables that may hold pending documents: the writer's to-do list, filled at open and by writes. */
    private final Set<String> withPending = ConcurrentHashMap.newKeySet();

    /** The DDL of a text index's pending table of chunks, a row per write; it may exist (an index rebuilt at open). */
    static String createChunks(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + "_p(n INTEGER PRIMARY KEY, last INTEGER NOT NULL, rows TEXT NOT NULL)";
    }

    /**
     * As {@link #opened}, for a text index's pending table of chunks: one of documents, as an
     * older Weft made it, has its documents put into FTS5 and is made again as chunks.
     */
    void openedChunks(SqlConnection sql, String table) throws SQLException {
        if (exists(sql, table + "_p") && !chunked(sql, table)) {
            move(sql, table, Long.MAX_VALUE);
            sql.exec("DROP TABLE " + table + "_p");
        }
        sql.exec(createChunks(table));
        if (holdsPending(sql, table)) {
            withPending.add(table);
        }
    }

    /** Whether the index's pending table holds chunks ({@link #createChunks}) rather than a row per document. */
    private static boolean chunked(SqlConnection sql, String table) throws SQLException {
        return pendingColumns(sql, table).equals(CHUNK_COLUMNS);
    }

    private static final List<String> CHUNK_COLUMNS = List.of("last", "rows");

    /**
     * Appends {@code text} as a JSON string, for the rows' JSON the writers build themselves: a
     * quote, a backslash and a control character (such as {@link dev.weft.query.Trigrams#SEPARATOR})
     * escaped, plain runs copied whole, so a plain text is read once.
     */
    static void appendJsonString(StringBuilder out, String text) {
        out.append('"');
        int plainFrom = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                out.append(text, plainFrom, i).append('\\');
                switch (c) {
                    case '\n' -> out.append('n');
                    case '"', '\\' -> out.append(c);
                    default -> out.append("u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
                }
                plainFrom = i + 1;
            }
        }
        out.append(text, plainFrom, text.length()).append('"');
    }

    /**
     * Numbers a write's documents after every number in use or held by a pending chunk, and puts
     * their rows ({@code rows}, a JSON array, a row per document as {@code values} reads it from
     * {@code json_each}'s {@code value}) into the pending table as one chunk.
     */
    void insertChunk(SqlConnection sql, String table, List<byte[]> ids, String rows) throws SQLException {
        long first = nextNumber(sql, table);
        number(sql, table, ids, first);
        PreparedStatement chunk = sql.prepare("INSERT INTO " + table + "_p(n, last, rows) VALUES (?, ?, ?)");
        chunk.setLong(1, first);
        chunk.setLong(2, first + ids.size() - 1);
        chunk.setString(3, rows);
        chunk.executeUpdate();
        withPending.add(table);
    }

    /** The first number after every number in use and every number a pending chunk holds (a removed document's among them). */
    private static long nextNumber(SqlConnection sql, String table) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT max(coalesce((SELECT max(n) FROM " + table + "), 0), coalesce((SELECT max(last) FROM "
                + table + "_p), 0)) + 1").executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Once the chunks span more than {@code bound} documents, all of them into FTS5 (in the write's transaction). */
    static void boundChunks(SqlConnection sql, String table, int bound) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT coalesce((SELECT max(last) FROM " + table + "_p) - (SELECT min(n) FROM "
                + table + "_p) + 1, 0)").executeQuery()) {
            rs.next();
            if (rs.getLong(1) > bound) {
                move(sql, table, Long.MAX_VALUE);
            }
        }
    }

    /** Removes a document of a text index: its number, and its postings from FTS5 unless a pending chunk holds it (then it is left out when the chunk goes in). */
    static void removeFromChunks(SqlConnection sql, String table, byte[] id) throws SQLException {
        PreparedStatement find = sql.prepare("SELECT n, (SELECT last FROM " + table + "_p p WHERE p.n <= m.n ORDER BY p.n DESC LIMIT 1)"
                + " FROM " + table + " m WHERE m.id = ?");
        find.setBytes(1, id);
        long n;
        boolean pending;
        try (ResultSet rs = find.executeQuery()) {
            if (!rs.next()) {
                return;
            }
            n = rs.getLong(1);
            long last = rs.getLong(2);
            pending = !rs.wasNull() && last >= n;
        }
        if (n > 0 && !pending) {
            delete(sql, "DELETE FROM " + table + "_t WHERE rowid = ?", n);
        }
        delete(sql, "DELETE FROM " + table + " WHERE n = ?", n);
    }

    /** Runs {@code delete}, a DELETE of one parameter, with {@code n}; the rows it deleted. */
    private static int delete(SqlConnection sql, String delete, long n) throws SQLException {
        PreparedStatement ps = sql.prepare(delete);
        ps.setLong(1, n);
        return ps.executeUpdate();
    }

    /** The DDL dropping the pending table; the index leaves the to-do list. */
    String drop(String table) {
        withPending.remove(table);
        return "DROP TABLE IF EXISTS " + table + "_p";
    }

    /**
     * Numbers documents as {@link #insertChunk} does and puts their rows straight into FTS5, one
     * statement per table. {@code rows} holds each document's row as {@code values} reads it from
     * {@code json_each}'s {@code value}, in the order of {@code columns}.
     */
    void insert(SqlConnection sql, String table, List<byte[]> ids, String rows, String columns, String values) throws SQLException {
        long first = nextNumber(sql, table);
        number(sql, table, ids, first);
        PreparedStatement postings = sql.prepare("INSERT INTO " + table + "_t(rowid, " + columns + ") SELECT ? + key, " + values
                + " FROM json_each(?)");
        postings.setLong(1, first);
        postings.setString(2, rows);
        postings.executeUpdate();
    }

    /** Numbers the documents {@code ids} from {@code first} in the index's numbering table, in one statement. */
    private static void number(SqlConnection sql, String table, List<byte[]> ids, long first) throws SQLException {
        StringBuilder hexIds = new StringBuilder(ids.size() * 28 + 2).append('[');
        for (byte[] id : ids) {
            HEX.formatHex(hexIds.append(hexIds.length() == 1 ? "\"" : ",\""), id).append('"');
        }
        PreparedStatement numbers = sql.prepare("INSERT INTO " + table + "(n, id) SELECT ? + key, unhex(value) FROM json_each(?)");
        numbers.setLong(1, first);
        numbers.setString(2, hexIds.append(']').toString());
        numbers.executeUpdate();
    }

    /** Whether the index holds pending documents in this snapshot (one row of the pending table looked at). */
    static boolean holdsPending(SqlConnection sql, String table) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT 1 FROM " + table + "_p LIMIT 1").executeQuery()) {
            return rs.next();
        }
    }

    /** Whether some index may hold pending documents (the writer's idle work). */
    boolean hasPending() {
        return !withPending.isEmpty();
    }

    /**
     * One step of the writer's idle work, inside its transaction: up to {@link #IDLE_CHUNK} of one
     * index's pending documents into FTS5. An index left with none, or dropped, leaves the to-do list.
     */
    void indexPending(SqlConnection sql) throws SQLException {
        Iterator<String> next = withPending.iterator();
        if (!next.hasNext()) {
            return;
        }
        String table = next.next();
        if (!exists(sql, table + "_p")) {
            withPending.remove(table);
            return;
        }
        long last;
        // chunks: those starting within IDLE_CHUNK numbers of the first (at least the first chunk, a write's documents)
        try (ResultSet rs = sql.prepare(chunked(sql, table)
                ? "SELECT (SELECT max(n) FROM " + table + "_p WHERE n < (SELECT min(n) FROM " + table + "_p) + " + IDLE_CHUNK + ")"
                        + " WHERE (SELECT max(n) FROM " + table + "_p) >= (SELECT min(n) FROM " + table + "_p) + " + IDLE_CHUNK
                : "SELECT n FROM " + table + "_p ORDER BY n LIMIT 1 OFFSET " + (IDLE_CHUNK - 1)).executeQuery()) {
            last = rs.next() ? rs.getLong(1) : Long.MAX_VALUE;
        }
        move(sql, table, last);
        if (last == Long.MAX_VALUE) {
            withPending.remove(table);
        }
    }

    /**
     * All of an index's pending documents into FTS5, inside the writer's transaction (a query's
     * request, {@link Lagging}); the index stays on the to-do list until the idle work finds it empty.
     */
    void moveAll(SqlConnection sql, String table) throws SQLException {
        if (exists(sql, table + "_p")) {
            move(sql, table, Long.MAX_VALUE);
        }
    }

    private static boolean exists(SqlConnection sql, String table) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
        ps.setString(1, table);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /**
     * The pending documents numbered up to {@code last} into FTS5, in one statement (one
     * segment); of chunks, those starting up to {@code last}, each document whose number is still
     * in use (not removed while pending).
     */
    private static void move(SqlConnection sql, String table, long last) throws SQLException {
        List<String> pendingColumns = pendingColumns(sql, table);
        boolean chunks = pendingColumns.equals(CHUNK_COLUMNS);
        String columns = String.join(", ", chunks ? ftsColumns(sql, table) : pendingColumns);
        PreparedStatement in = sql.prepare(chunks ? "INSERT INTO " + table + "_t(rowid, " + columns + ") SELECT p.n + j.key"
                + chunkValues(sql, table) + " FROM " + table + "_p p, json_each(p.rows) j WHERE p.n <= ?1 AND EXISTS (SELECT 1 FROM "
                + table + " m WHERE m.n = p.n + j.key)"
                : "INSERT INTO " + table + "_t(rowid, " + columns + ") SELECT n, " + columns + " FROM " + table + "_p WHERE n <= ?");
        in.setLong(1, last);
        in.executeUpdate();
        PreparedStatement out = sql.prepare("DELETE FROM " + table + "_p WHERE n <= ?");
        out.setLong(1, last);
        out.executeUpdate();
    }

    /** FTS5's columns of the index, in order. */
    private static List<String> ftsColumns(SqlConnection sql, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = sql.prepare("SELECT name FROM pragma_table_info('" + table + "_t') ORDER BY cid").executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** {@code , j.value ->> 0, j.value ->> 1, ...}: a chunk's document row, a value per FTS5 column. */
    private static String chunkValues(SqlConnection sql, String table) throws SQLException {
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < ftsColumns(sql, table).size(); i++) {
            values.append(", j.value ->> ").append(i);
        }
        return values.toString();
    }

    /** The pending table's columns but its number: FTS5's, in order (of a table of chunks: {@code last, rows}). */
    private static List<String> pendingColumns(SqlConnection sql, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = sql.prepare("SELECT name FROM pragma_table_info('" + table + "_p') ORDER BY cid").executeQuery()) {
            while (rs.next()) {
                if (!rs.getString(1).equals("n")) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }
}
