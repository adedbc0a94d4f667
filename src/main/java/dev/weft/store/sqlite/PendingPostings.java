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
import tools.jackson.databind.node.ArrayNode;

/**
 * The pending documents of SQLite's FTS5 indexes (trigram and text), as PostgreSQL GIN's
 * {@code fastupdate}: an index {@code <table>(n, id)} numbers its documents, {@code <table>_t} is
 * the FTS5 table holding each under its number, and {@code <table>_p(n, <columns>)} holds the
 * documents a write added but did not put into FTS5, with the same columns as {@code _t}. A write
 * puts its documents there in its own transaction (so nothing acknowledged is missing from the
 * index), the writer moves them into FTS5 when idle ({@link #indexPending}), a chunk per
 * transaction, and a write moves them all once more than the index's bound are pending. A
 * document is pending or in FTS5 in any snapshot, never both nor neither.
 *
 * <p>FTS5 makes a segment of each statement's rows and writes out what it holds at every
 * savepoint of its transaction (SQLite opens one for each statement that may fail part way), so
 * the documents of a write go in with one statement per table, their ids and rows as JSON arrays
 * read by {@code json_each}; a chunk of pending documents goes into FTS5 as one statement too.
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

    /** The pending table, made if missing (an index made before pending documents), and the index on the to-do list if it holds some. */
    void opened(SqlConnection sql, String table, String columns) throws SQLException {
        sql.exec(create(table, columns));
        if (span(sql, table) > 0) {
            withPending.add(table);
        }
    }

    /** The pending table's DDL, {@code columns} as FTS5's (with their types, if any); it may exist (an index rebuilt at open). */
    static String create(String table, String columns) {
        return "CREATE TABLE IF NOT EXISTS " + table + "_p(n INTEGER PRIMARY KEY, " + columns + ")";
    }

    /** The DDL dropping the pending table; the index leaves the to-do list. */
    String drop(String table) {
        withPending.remove(table);
        return "DROP TABLE IF EXISTS " + table + "_p";
    }

    /**
     * Numbers documents after the greatest number in use (one writer: nothing else numbers
     * meanwhile) and puts their rows into the pending table ({@code pending}) or FTS5, one
     * statement per table. {@code rows} holds each document's row as {@code values} reads it from
     * {@code json_each}'s {@code value}, in the order of {@code columns}.
     */
    void insert(SqlConnection sql, String table, List<byte[]> ids, ArrayNode rows, String columns, String values,
                boolean pending) throws SQLException {
        insert(sql, table, ids, rows.toString(), columns, values, pending);
    }

    /** As {@link #insert(SqlConnection, String, List, ArrayNode, String, String, boolean)}, the rows given as their JSON text. */
    void insert(SqlConnection sql, String table, List<byte[]> ids, String rows, String columns, String values,
                boolean pending) throws SQLException {
        long first;
        try (ResultSet rs = sql.prepare("SELECT coalesce(max(n), 0) + 1 FROM " + table).executeQuery()) {
            rs.next();
            first = Math.max(1, rs.getLong(1));
        }
        StringBuilder hexIds = new StringBuilder(ids.size() * 28 + 2).append('[');
        for (byte[] id : ids) {
            HEX.formatHex(hexIds.append(hexIds.length() == 1 ? "\"" : ",\""), id).append('"');
        }
        PreparedStatement numbers = sql.prepare("INSERT INTO " + table + "(n, id) SELECT ? + key, unhex(value) FROM json_each(?)");
        numbers.setLong(1, first);
        numbers.setString(2, hexIds.append(']').toString());
        numbers.executeUpdate();
        PreparedStatement postings = sql.prepare("INSERT INTO " + table + (pending ? "_p(n, " : "_t(rowid, ") + columns + ")"
                + " SELECT ? + key, " + values + " FROM json_each(?)");
        postings.setLong(1, first);
        postings.setString(2, rows);
        postings.executeUpdate();
        if (pending) {
            withPending.add(table);
        }
    }

    /** Once more than {@code bound} documents are pending, all of them into FTS5 (in the write's transaction). */
    static void bound(SqlConnection sql, String table, int bound) throws SQLException {
        if (span(sql, table) > bound) {
            move(sql, table, Long.MAX_VALUE);
        }
    }

    /** Removes a document: from the pending table or else from FTS5 (a number below 1 has neither), and its number. */
    static void remove(SqlConnection sql, String table, byte[] id) throws SQLException {
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
            PreparedStatement pending = sql.prepare("DELETE FROM " + table + "_p WHERE n = ?");
            pending.setLong(1, n);
            if (pending.executeUpdate() == 0) {
                PreparedStatement postings = sql.prepare("DELETE FROM " + table + "_t WHERE rowid = ?");
                postings.setLong(1, n);
                postings.executeUpdate();
            }
        }
        PreparedStatement number = sql.prepare("DELETE FROM " + table + " WHERE n = ?");
        number.setLong(1, n);
        number.executeUpdate();
    }

    /**
     * At least the number of pending documents (numbers are given in order; a removed one leaves
     * a gap): cheap to ask at each write, two B-tree descents (SQLite finds a lone {@code min} or
     * {@code max} at an end of the tree, but scans the table for both in one SELECT).
     */
    static long span(SqlConnection sql, String table) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT coalesce((SELECT max(n) FROM " + table + "_p) - (SELECT min(n) FROM "
                + table + "_p) + 1, 0)").executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
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
        try (ResultSet rs = sql.prepare("SELECT n FROM " + table + "_p ORDER BY n LIMIT 1 OFFSET " + (IDLE_CHUNK - 1))
                .executeQuery()) {
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

    /** The pending documents numbered up to {@code last} into FTS5, in one statement (one segment). */
    private static void move(SqlConnection sql, String table, long last) throws SQLException {
        String columns = String.join(", ", pendingColumns(sql, table));
        PreparedStatement in = sql.prepare("INSERT INTO " + table + "_t(rowid, " + columns + ") SELECT n, " + columns
                + " FROM " + table + "_p WHERE n <= ?");
        in.setLong(1, last);
        in.executeUpdate();
        PreparedStatement out = sql.prepare("DELETE FROM " + table + "_p WHERE n <= ?");
        out.setLong(1, last);
        out.executeUpdate();
    }

    /** The pending table's columns but its number: FTS5's, in order. */
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
