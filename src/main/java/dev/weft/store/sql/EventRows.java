package dev.weft.store.sql;

import dev.weft.core.Json;
import dev.weft.query.UpdateDescription;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import dev.weft.store.Namespace;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The rows of table {@code weft_events}, the same columns in every store: {@code seq}, {@code at}
 * (epoch ms), the collection, {@code op} (the ordinal of {@link ChangeEvent.Operation}, so
 * operations are only ever added at the end), {@code key} (the _id as JSON), {@code doc} and
 * {@code pre} (the stored bytes after and before), {@code upd} (the update description as JSON).
 * How seqs are given and when events are pruned is each store's own log; encoding and decoding a
 * row is here, once.
 */
public final class EventRows {
    /** The columns a store inserts after its own ({@code seq} and {@code at} where it sets them). */
    public static final String WRITTEN = "db, coll, op, key, doc, pre, upd";
    private static final ChangeEvent.Operation[] OPS = ChangeEvent.Operation.values();
    private static final int DROP = ChangeEvent.Operation.DROP.ordinal();

    private EventRows() {}

    /** The DDL of the partial index that makes {@link #droppedAfter} one probe. */
    public static String dropsIndex() {
        return "CREATE INDEX IF NOT EXISTS weft_events_drops ON weft_events(db, coll, seq) WHERE op = " + DROP;
    }

    /** Binds {@link #WRITTEN} from parameter {@code first}. */
    public static void bind(PreparedStatement ps, int first, Json json, ChangeEvent e) throws SQLException {
        ps.setString(first, e.ns().db());
        ps.setString(first + 1, e.ns().coll());
        ps.setInt(first + 2, e.operation().ordinal());
        ps.setBytes(first + 3, json.bytes(e.documentKey()));
        ps.setBytes(first + 4, e.fullDocument());
        ps.setBytes(first + 5, e.previousDocument());
        ps.setBytes(first + 6, e.updateDescription() == null ? null : json.bytes(e.updateDescription().toNode()));
    }

    /**
     * Up to {@code limit} events with {@code seq > after}, in seq order (SQLite's table: its LIMIT
     * is bound inside an expression, see {@link Dialect#boundCount}).
     */
    public static List<ChangeEvent> read(SqlConnection sql, Json json, long after, int limit) throws SQLException {
        return read(sql, json, "SELECT " + READ + " FROM weft_events WHERE seq > ? ORDER BY seq LIMIT " + Dialect.BOUND_COUNT_IN_EXPRESSION, after, limit);
    }

    /** As {@link #read(SqlConnection, Json, long, int)}, by {@code query}: {@link #READ}'s columns, parameters after and limit. */
    public static List<ChangeEvent> read(SqlConnection sql, Json json, String query, long after, int limit) throws SQLException {
        List<ChangeEvent> out = new ArrayList<>();
        PreparedStatement ps = sql.prepare(query);
        ps.setLong(1, after);
        ps.setInt(2, limit);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(row(rs, 1, json));
            }
        }
        return out;
    }

    /** The columns {@link #row} decodes, in its order. */
    public static final String READ = "seq, at, " + WRITTEN;

    /** The event in the current row, its {@link #READ} columns from column {@code first} on. */
    public static ChangeEvent row(ResultSet rs, int first, Json json) throws SQLException {
        byte[] upd = rs.getBytes(first + 8);
        return new ChangeEvent(new Namespace(rs.getString(first + 2), rs.getString(first + 3)), OPS[rs.getInt(first + 4)],
                json.parse(rs.getBytes(first + 5), "logged key"), rs.getBytes(first + 6),
                upd == null ? null : UpdateDescription.fromNode(json.parse(upd, "logged update description")),
                rs.getBytes(first + 7), rs.getLong(first), rs.getLong(first + 1));
    }

    /** See {@link EventLog#droppedAfter}: only events that have a seq. */
    public static OptionalLong droppedAfter(SqlConnection sql, Namespace ns, long after) throws SQLException {
        return droppedAfter(sql, "SELECT seq FROM weft_events WHERE op = " + DROP
                + " AND db = ? AND coll = ? AND seq > ? ORDER BY seq LIMIT 1", ns, after);
    }

    /** As {@link #droppedAfter(SqlConnection, Namespace, long)}, by {@code query}: parameters db, coll and after. */
    public static OptionalLong droppedAfter(SqlConnection sql, String query, Namespace ns, long after) throws SQLException {
        PreparedStatement ps = sql.prepare(query);
        ps.setString(1, ns.db());
        ps.setString(2, ns.coll());
        ps.setLong(3, after);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
        }
    }
}
