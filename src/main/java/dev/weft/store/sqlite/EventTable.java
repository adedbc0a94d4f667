package dev.weft.store.sqlite;

import dev.weft.core.Json;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import dev.weft.store.Namespace;
import dev.weft.store.sql.EventRows;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The SQLite event log: table {@code weft_events}, one row per changed document, appended by the
 * writer in the same transaction as the writes (so an event is logged if and only if its write
 * committed, and survives kill -9 exactly as the write does). {@code seq} is the row id, given by
 * the writer in commit order.
 *
 * <p>Retention: at most once a second, inside a batch transaction, the writer deletes the oldest
 * events beyond {@code keepCount} or older than {@code keepMs}. Only a prefix is ever deleted, so
 * the retained events are exactly {@code floor < seq <= last}. {@link #floor} is raised before the
 * pruning transaction commits: a reader that checks it after reading can never miss a pruned
 * event unnoticed (at worst a failed commit leaves the floor too high, which refuses a resume
 * that would have worked, never the reverse).
 *
 * <p>Cost per write: one extra row holding the new document and, for updates, replaces and
 * deletes, the previous one (needed to tell a subscriber that a document left its filter, also
 * when it resumes later).
 */
final class EventTable {
    static final List<String> SCHEMA = List.of(
            "CREATE TABLE IF NOT EXISTS weft_events(seq INTEGER PRIMARY KEY, at INTEGER NOT NULL, db TEXT NOT NULL,"
                    + " coll TEXT NOT NULL, op INTEGER NOT NULL, key BLOB NOT NULL, doc BLOB, pre BLOB, upd BLOB)",
            "CREATE TABLE IF NOT EXISTS weft_meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL)",
            EventRows.dropsIndex());
    private static final long PRUNE_EVERY_MS = 1000;

    private final Json json;
    private final long keepCount;
    private final long keepMs;
    private volatile long floor;
    private volatile long last;
    private long lastPrune;

    EventTable(Json json, long keepCount, long keepMs) {
        this.json = json;
        this.keepCount = keepCount;
        this.keepMs = keepMs;
    }

    /** Reads the log's bounds at startup (on the writer connection). */
    void load(Sql sql) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT min(seq), max(seq) FROM weft_events").executeQuery()) {
            rs.next();
            long min = rs.getLong(1);
            long max = rs.getLong(2);
            long pruned = 0;
            try (ResultSet m = sql.prepare("SELECT value FROM weft_meta WHERE name = 'events_floor'").executeQuery()) {
                if (m.next()) {
                    pruned = m.getLong(1);
                }
            }
            last = Math.max(max, pruned);
            floor = max == 0 ? last : Math.max(pruned, min - 1);
        }
    }

    long floor() {
        return floor;
    }

    long last() {
        return last;
    }

    /**
     * On the writer, inside the batch transaction before COMMIT: logs the events and returns them
     * stamped with their seq; prunes when due. Nothing is published until {@link #committed}.
     */
    List<ChangeEvent> append(Sql sql, List<ChangeEvent> events, long now) throws SQLException {
        List<ChangeEvent> stamped = new ArrayList<>(events.size());
        long seq = last;
        if (!events.isEmpty()) {
            PreparedStatement ps = sql.prepare("INSERT INTO weft_events(seq, at, " + EventRows.WRITTEN + ")"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
            for (ChangeEvent e : events) {
                ChangeEvent s = e.at(++seq, now);
                ps.setLong(1, s.seq());
                ps.setLong(2, now);
                EventRows.bind(ps, 3, json, s);
                ps.executeUpdate();
                stamped.add(s);
            }
        }
        if (now - lastPrune >= PRUNE_EVERY_MS) {
            lastPrune = now;
            prune(sql, seq, now);
        }
        return stamped;
    }

    /** After COMMIT: the appended events are now readable. */
    void committed(List<ChangeEvent> stamped) {
        if (!stamped.isEmpty()) {
            last = stamped.getLast().seq();
        }
    }

    private void prune(Sql sql, long newest, long now) throws SQLException {
        long upTo = newest - keepCount;
        try (ResultSet rs = runQuery(sql.prepare("SELECT seq FROM weft_events WHERE at >= ? ORDER BY seq LIMIT 1"), now - keepMs)) {
            upTo = Math.max(upTo, rs.next() ? rs.getLong(1) - 1 : newest);
        }
        if (upTo <= floor) {
            return;
        }
        floor = upTo; // before COMMIT: see the class comment
        PreparedStatement delete = sql.prepare("DELETE FROM weft_events WHERE seq <= ?");
        delete.setLong(1, upTo);
        delete.executeUpdate();
        PreparedStatement meta = sql.prepare("INSERT OR REPLACE INTO weft_meta(name, value) VALUES ('events_floor', ?)");
        meta.setLong(1, upTo);
        meta.executeUpdate();
    }

    private static ResultSet runQuery(PreparedStatement ps, long value) throws SQLException {
        ps.setLong(1, value);
        return ps.executeQuery();
    }

    /** Up to {@code limit} events after {@code after}, on a read connection; see {@link dev.weft.store.EventLog#after}. */
    List<ChangeEvent> read(Sql sql, long after, int limit) throws SQLException {
        checkPosition(after);
        List<ChangeEvent> out = EventRows.read(sql, json, after, limit);
        checkPosition(after); // pruned while reading: refuse rather than return a gap
        return out;
    }

    /** See {@link EventLog#droppedAfter}; a partial index holds the drops, so this is one probe. */
    OptionalLong droppedAfter(Sql sql, Namespace ns, long after) throws SQLException {
        return EventRows.droppedAfter(sql, ns, after);
    }

    private void checkPosition(long after) {
        if (after < floor) {
            throw EventLog.tooOld();
        }
        if (after > last) {
            throw EventLog.unknownPosition();
        }
    }

}
