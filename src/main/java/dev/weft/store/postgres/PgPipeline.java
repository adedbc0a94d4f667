package dev.weft.store.postgres;

import dev.weft.store.sql.SqlConnection;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    private record Held(String sql, Binder binder) {}

    private record Locked(String table, ByteBuffer id) {}

    private record Taken(String table, byte[] id, byte[] body) {}

    private final List<Held> held = new ArrayList<>();
    private final boolean holding;
    private final KnownDocuments known;
    private boolean assumed;
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
                });
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
        held.add(new Held(sql, binder));
        if (!holding) {
            flush(false);
        }
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

    private void flush(boolean commit) throws SQLException {
        if (held.isEmpty()) {
            if (commit) {
                connection().commit();
            }
            return;
        }
        StringBuilder text = new StringBuilder();
        for (Held h : held) {
            text.append(h.sql()).append(";\n");
        }
        if (commit) {
            text.append("COMMIT");
        }
        List<Held> batch = List.copyOf(held);
        held.clear();
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
