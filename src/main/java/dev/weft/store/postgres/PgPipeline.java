package dev.weft.store.postgres;

import dev.weft.store.sql.SqlConnection;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A write transaction's connection that holds back the statements whose answer nobody waits for
 * (document, index and event rows, the catalog check) and sends them together with the next
 * statement that needs an answer, or with COMMIT: a single-document insert is then one round
 * trip (BEGIN, its rows, COMMIT in one burst of protocol messages), an update or delete two (the
 * read of the locked row, then the rest with COMMIT).
 *
 * <p>Why a burst: PostgreSQL runs the messages of one burst in order and, after the first error,
 * skips the rest up to the burst's end, so the transaction is as if each statement had been sent
 * alone, only without a wait between them (the driver sends a statement text of several
 * statements, with their parameters numbered across them, in one go). Measured against one
 * statement with data-modifying CTEs and a PL/pgSQL function, the three shapes were within the
 * noise of each other, and the burst keeps the engine's statements as they are
 * (bench/lib/PgWriteShapes.java, docs/decisions/0004-postgresql-write-round-trips.md).
 *
 * <p>Invariant: held-back statements run before any statement prepared for immediate use
 * ({@link #prepare} sends them first), so the order of statements is the engine's; a rollback
 * drops them unsent. With {@code holding} false (several ops with a savepoint each, whose errors
 * must surface op by op) every statement runs at once.
 *
 * <p>Assumed documents: given the node's {@link KnownDocuments}, a replace, update or delete
 * takes the bytes this node last saw stored for its document instead of reading it, and holds
 * back, as the first statement of its burst, a check that locks the row and fails the
 * transaction ({@link PgWrites#EXPECTED}, "version") unless those are the stored bytes: its
 * whole transaction is then one round trip. The entry is taken out when used (the write puts
 * the new bytes back after its commit), so a stale guess is paid for once.
 *
 * <p>Several documents: {@link #lockAll} reads and locks the documents an op (or a batch of
 * ops) will load in one statement; each load then takes its document from there, once.
 */
final class PgPipeline extends SqlConnection {
    /** Binds a statement's parameters from {@code first}; returns the next free parameter. */
    interface Binder {
        int bind(PreparedStatement ps, int first) throws SQLException;
    }

    /**
     * A statement about one document that a group's writes share ({@link #shareStatements}): the
     * check of an assumed document, or the update of a document's body.
     */
    private record Row(boolean check, String table, byte[] id, byte[] body) {}

    private record Held(String sql, Binder binder, Row row) {}

    private record Locked(String table, ByteBuffer id) {}

    private record Taken(String table, byte[] id, byte[] body) {}

    private final List<Held> held = new ArrayList<>();
    private final boolean holding;
    private final KnownDocuments known;
    private boolean assumed;
    private boolean sharing;
    /** The known documents this transaction assumed (and took out of {@link #known}). */
    private final List<Taken> taken = new ArrayList<>();
    /** Bursts sent so far. */
    private int flushes;
    /** Documents read under their row lock by {@link #lockAll}, each given to one load. */
    private final Map<Locked, byte[]> locked = new HashMap<>();

    PgPipeline(Connection connection, boolean holding) {
        this(connection, holding, null);
    }

    /** {@code known}: the documents a write may assume (null: it reads each one). */
    PgPipeline(Connection connection, boolean holding, KnownDocuments known) {
        super(connection);
        this.holding = holding;
        this.known = known;
    }

    /** One statement reads and locks the documents (in key order, as every such read does) for the loads that follow. */
    @Override
    public void lockAll(String table, List<byte[]> ids) throws SQLException {
        PreparedStatement ps = prepare("SELECT id, body FROM " + table + " WHERE id = ANY(?) ORDER BY id FOR UPDATE");
        ps.setArray(1, PostgresDialect.array(ps, ids));
        for (byte[] id : ids) {
            locked.put(new Locked(table, ByteBuffer.wrap(id)), ABSENT);
        }
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                locked.put(new Locked(table, ByteBuffer.wrap(rs.getBytes(1))), rs.getBytes(2));
            }
        }
        if (known != null) { // what the node assumed of them may be stale: KnownDocuments marks those shared
            Set<ByteBuffer> once = new HashSet<>();
            for (byte[] id : ids) {
                byte[] body = locked.get(new Locked(table, ByteBuffer.wrap(id)));
                if (once.add(ByteBuffer.wrap(id))) {
                    known.readLocked(table, id, body == ABSENT ? null : body);
                }
            }
        }
    }

    /**
     * A document this transaction itself just wrote ({@code body}, null: deleted): its row is locked
     * until the transaction ends, so the next load of it in this transaction takes these bytes,
     * with neither a read nor a check (a group's second write of a hot document).
     */
    void wrote(String table, byte[] id, byte[] body) {
        locked.put(new Locked(table, ByteBuffer.wrap(id)), body == null ? ABSENT : body);
    }

    /** Drops what {@link #lockAll} read and no load took (after an op in a savepoint, which may have been undone). */
    void forgetLocked() {
        locked.clear();
    }

    @Override
    public byte[] assumedBody(String table, byte[] id) throws SQLException {
        byte[] read = locked.remove(new Locked(table, ByteBuffer.wrap(id)));
        if (read != null) {
            return read;
        }
        byte[] body = known == null || !holding ? null : known.get(table, id);
        if (body == null) {
            return null;
        }
        known.take(table, id);
        taken.add(new Taken(table, id, body));
        send("SELECT " + PgWrites.EXPECT + "(count(*), 1, 'version') FROM (SELECT 1 FROM " + table
                + " WHERE id = ? AND body = ? FOR UPDATE) AS locked", (ps, i) -> {
                    ps.setBytes(i, id);
                    ps.setBytes(i + 1, body);
                    return i + 2;
                }, new Row(true, table, id, body));
        assumed = true;
        return body;
    }

    /**
     * After a rollback of the whole transaction: puts back the known documents it took, which
     * its rollback left as they were (one of them may be the stale guess that failed it; that
     * costs its write one more failed check, in a savepoint).
     */
    void restoreTaken() {
        taken.forEach(t -> known.restore(t.table(), t.id(), t.body()));
        taken.clear();
    }

    /** Whether this write assumed a document's bytes instead of reading them. */
    boolean assumed() {
        return assumed;
    }

    /** Runs a statement whose answer is not needed: held back in a pipeline that holds, else at once. */
    static void run(SqlConnection sql, String text, Binder binder) throws SQLException {
        if (sql instanceof PgPipeline p) {
            p.send(text, binder);
            return;
        }
        PreparedStatement ps = sql.prepare(text);
        binder.bind(ps, 1);
        ps.execute();
    }

    /** Whether statements are held back (a lone op) or sent at once (ops in savepoints). */
    boolean holding() {
        return holding;
    }

    /** Runs {@code sql}, now or with the next statement that is waited for. */
    void send(String sql, Binder binder) throws SQLException {
        send(sql, binder, null);
    }

    /** Updates a document's body: as {@code sql} alone, or in one statement with its neighbours' ({@link #shareStatements}). */
    void sendUpdate(String sql, Binder binder, String table, byte[] id, byte[] body) throws SQLException {
        send(sql, binder, new Row(false, table, id, body));
    }

    private void send(String sql, Binder binder, Row row) throws SQLException {
        held.add(new Held(sql, binder, row));
        if (!holding) {
            flush(false);
        }
    }

    /**
     * From now on a burst sends the checks of all its assumed documents first, one statement per
     * table, and each run of updates of one table as one statement, the rows as arrays
     * ({@link SharedStatements}): a group's burst then has the same text whatever its size (when
     * its collections have no secondary index: index rows stay a statement per write), so the
     * driver prepares it on the server and PostgreSQL stops parsing and planning every statement
     * of every burst (docs/decisions/0006-postgresql-group-commit.md). For a group's one-burst attempt only: its checks concern
     * documents no earlier statement of the transaction wrote (a second write of a document takes
     * the first's bytes, {@link #wrote}), so they may run first, and any failure fails the burst.
     */
    void shareStatements() {
        sharing = true;
    }

    /** Sends what is held first: a statement prepared here is run at once and its answer read. */
    @Override
    public PreparedStatement prepare(String sql) throws SQLException {
        flush(false);
        return super.prepare(sql);
    }

    /** Sends what is held and COMMIT, in one round trip. */
    void commit() throws SQLException {
        flush(true);
    }

    /** Sends what is held, without COMMIT (a grouped write's burst, see {@link PgGroupWriter}). */
    void sendHeld() throws SQLException {
        flush(false);
    }

    /** How many statements are held now: a mark for {@link #dropSince}. */
    int held() {
        return held.size();
    }

    /** Bursts sent so far: equal before and after some work, that work sent nothing. */
    int flushes() {
        return flushes;
    }

    /** Drops the statements held since {@code mark} (which must all still be held). */
    void dropSince(int mark) {
        held.subList(mark, held.size()).clear();
    }

    /** Drops what is held, and rolls the transaction back to {@code savepoint} (which must exist). */
    void rollbackTo(String savepoint) throws SQLException {
        held.clear();
        locked.clear();
        assumed = false;
        control("ROLLBACK TO SAVEPOINT " + savepoint);
    }

    /** Drops what is held, and rolls the transaction back. */
    void rollback() throws SQLException {
        held.clear();
        locked.clear();
        connection().rollback();
    }

    /**
     * Whether {@code sql} names {@code table} as a whole word ({@code d4} in {@code INSERT INTO d4 ...},
     * not in {@code d41} or {@code id4}); a scan, as this runs for every update of every group.
     */
    static boolean namesTable(String sql, String table) {
        for (int at = sql.indexOf(table); at >= 0; at = sql.indexOf(table, at + 1)) {
            int end = at + table.length();
            if ((at == 0 || !wordChar(sql.charAt(at - 1))) && (end == sql.length() || !wordChar(sql.charAt(end)))) {
                return true;
            }
        }
        return false;
    }

    private static boolean wordChar(char c) {
        return c == '_' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    /** How a sharing burst's statements are put together. */
    private static final class SharedStatements {
        private SharedStatements() {}

        static List<Held> of(List<Held> held) {
            Map<String, List<Row>> checks = new TreeMap<>(); // tables in one order on every node, as lockAll's
            List<Held> rest = new ArrayList<>();
            for (Held h : held) {
                if (h.row() != null && h.row().check()) {
                    checks.computeIfAbsent(h.row().table(), t -> new ArrayList<>()).add(h.row());
                } else {
                    rest.add(h);
                }
            }
            List<Held> out = new ArrayList<>();
            checks.forEach((table, rows) -> out.add(checkAll(table, rows)));
            boolean[] taken = new boolean[rest.size()];
            for (int i = 0; i < rest.size(); i++) {
                if (taken[i]) {
                    continue;
                }
                Row first = rest.get(i).row();
                if (first == null) {
                    out.add(rest.get(i));
                    continue;
                }
                out.add(updateAll(first.table(), updatesFrom(rest, i, taken)));
            }
            return out;
        }

        /**
         * The updates of {@code rest[i]}'s table from {@code i} on, up to the first other statement
         * that names that table (an insert or delete of its documents); statements between them
         * about other tables (index rows, events) do not read the documents, so the updates may
         * run together before them. A document updated twice keeps its last body.
         */
        private static List<Row> updatesFrom(List<Held> rest, int i, boolean[] taken) {
            String table = rest.get(i).row().table();
            Map<ByteBuffer, Row> run = new LinkedHashMap<>();
            for (int j = i; j < rest.size(); j++) {
                Row row = rest.get(j).row();
                if (row != null && row.table().equals(table)) {
                    run.put(ByteBuffer.wrap(row.id()), row);
                    taken[j] = true;
                } else if (row == null && namesTable(rest.get(j).sql(), table)) {
                    break;
                }
            }
            return List.copyOf(run.values());
        }

        private static Held checkAll(String table, List<Row> rows) {
            return new Held("SELECT " + PgWrites.EXPECT + "(count(*), ?, 'version') FROM (SELECT 1 FROM " + table
                    + " t JOIN unnest(?::bytea[], ?::bytea[]) AS u(i, b) ON t.id = u.i WHERE t.body = u.b"
                    + " ORDER BY t.id FOR UPDATE OF t) AS locked", (ps, i) -> {
                        ps.setLong(i, rows.size());
                        ps.setArray(i + 1, PostgresDialect.array(ps, rows.stream().map(Row::id).toList()));
                        ps.setArray(i + 2, PostgresDialect.array(ps, rows.stream().map(Row::body).toList()));
                        return i + 3;
                    }, null);
        }

        private static Held updateAll(String table, List<Row> rows) {
            return new Held("UPDATE " + table + " t SET body = u.b"
                    + " FROM unnest(?::bytea[], ?::bytea[]) AS u(i, b) WHERE t.id = u.i", (ps, i) -> {
                        ps.setArray(i, PostgresDialect.array(ps, rows.stream().map(Row::id).toList()));
                        ps.setArray(i + 1, PostgresDialect.array(ps, rows.stream().map(Row::body).toList()));
                        return i + 2;
                    }, null);
        }
    }

    private void flush(boolean commit) throws SQLException {
        if (held.isEmpty()) {
            if (commit) {
                connection().commit();
            }
            return;
        }
        List<Held> batch = sharing ? SharedStatements.of(held) : List.copyOf(held);
        held.clear();
        StringBuilder text = new StringBuilder();
        for (Held h : batch) {
            text.append(h.sql()).append(";\n");
        }
        if (commit) {
            text.append("COMMIT");
        }
        flushes++;
        PreparedStatement ps = super.prepare(text.toString());
        int next = 1;
        for (Held h : batch) {
            next = h.binder().bind(ps, next);
        }
        ps.execute();
        while (ps.getMoreResults() || ps.getUpdateCount() != -1) {
            // every result is read, so that an error of a later statement is not left unread
        }
    }
}
