package dev.weft.store.sql;

import dev.weft.query.Filter;
import dev.weft.query.KeyRange;
import dev.weft.store.Catalog;
import dev.weft.store.plan.QueryPlanner;
import dev.weft.store.plan.HeldText;
import dev.weft.store.plan.TextPrefilter;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import dev.weft.query.Trigrams;
import java.util.List;
import java.util.OptionalLong;

/**
 * Reads documents from one source (primary key or index) for a {@link QueryPlanner.Plan}.
 *
 * <p>Ordered plans are read a chunk at a time: {@link #read} returns after at most {@code max}
 * rows, remembering the last (key, _id) read, and the next call resumes right after it, possibly
 * on another connection. So a slow consumer never holds a read connection (nor the WAL) between
 * chunks. Ties on the key are always broken by ascending _id, also on a reverse walk; there the
 * resumption first finishes the rows of the last key, then continues below it.
 *
 * <p>Unordered plans ({@link #candidates}) read every candidate once in one statement; a
 * multikey index's ids are made distinct by the database ({@code IN}), and so are those of a
 * trigram lookup ({@link TrigramLookup}).
 *
 * <p>Both skip, inside the database, the rows whose JSON lacks a literal the filter requires
 * ({@link TextPrefilter}); the caller still evaluates the filter on every row read.
 *
 * <p>The statements are the same on every database ({@link Dialect} gives only the table of key
 * ranges, the text search and how a bound LIMIT is written): both compare row values and take
 * {@code LIMIT ? OFFSET ?}.
 */
final class Scan {
    /** Receives one row; returns false to stop reading (the row counts as read). */
    interface Rows {
        boolean row(RowId id, byte[] body) throws SQLException;
    }

    /**
     * The {@code _id} of the row being handed over, read from the result only when asked (and
     * only during that call): a second column read costs SQLite's driver about what the whole
     * row's step does, and most rows a scan reads are dropped without their id.
     */
    interface RowId {
        byte[] get() throws SQLException;
    }

    private final String docs;
    private final String index;
    private final List<KeyRange> ranges;
    private final boolean descending;
    private final TextPrefilter prefilter;
    private long offset;
    private final long unskipped;
    private int range;
    private byte[] lastKey;
    private byte[] lastId;
    /** For a reverse index walk: the rows of {@code lastKey} after {@code lastId} are all read. */
    private boolean groupDone;
    /** The collection's rows held in memory, read instead of the table (a whole-collection plan); else null. */
    private final HeldRows.Rows held;
    private final HeldText heldText;
    /** The next held row's position (from the end on a reverse walk). */
    private int heldNext;

    /**
     * @param offset rows to skip before the first one returned (only when every row is a match)
     */
    Scan(Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan, Filter filter, Dialect dialect, long offset) {
        this(coll, plan, filter, dialect, offset, null, HeldText.ANY);
    }

    /**
     * A whole-collection plan's scan of the rows {@code held} in memory ({@link HeldRows}): the
     * same rows in the same order, {@code text} (the filter's required text) tested in Java.
     */
    static Scan ofHeld(Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan, Filter filter, HeldText text,
                       Dialect dialect, HeldRows.Rows held) {
        if (plan.index() != null || plan.ranges() != null) {
            throw new IllegalArgumentException("held rows stand for a whole-collection scan only");
        }
        return new Scan(coll, plan, filter, dialect, 0, held, text);
    }

    private Scan(Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan, Filter filter, Dialect dialect, long offset,
                 HeldRows.Rows held, HeldText heldText) {
        this.held = held;
        this.heldText = heldText;
        this.docs = coll.table();
        this.index = plan.index() == null ? null : plan.index().table();
        this.prefilter = TextPrefilter.of(filter, dialect.textPrefilter(), index == null ? "body" : "d.body");
        List<KeyRange> r = plan.ranges() == null ? java.util.Collections.singletonList(null) : plan.ranges();
        this.ranges = plan.descending() ? r.reversed() : r;
        this.descending = plan.descending();
        this.offset = r.size() == 1 ? offset : 0;
        this.unskipped = offset - this.offset;
    }

    /** The rows held in memory this scan reads (0 for a scan of the database). */
    int heldRows() {
        return held == null ? 0 : held.size();
    }

    /** Rows to skip that the scan cannot skip in SQL; the caller skips them itself. */
    long unskipped() {
        return unskipped;
    }

    /** Reads up to {@code max} rows in order; true when the source is exhausted. */
    boolean read(SqlConnection sql, Dialect dialect, int max, Rows rows) throws SQLException {
        if (held != null) {
            return readHeld(max, rows);
        }
        int left = max;
        while (left > 0 && range < ranges.size()) {
            KeyRange r = ranges.get(range);
            Query q = index == null ? pkQuery(r) : indexQuery(r);
            PreparedStatement ps = sql.prepare(q.sql + " LIMIT " + dialect.boundCount() + " OFFSET " + dialect.boundCount());
            if (dialect.fetchRows() > 0) {
                ps.setFetchSize(dialect.fetchRows());
            }
            dialect.binaryRows(sql, ps);
            int p = 1;
            for (byte[] arg : q.args) {
                ps.setBytes(p++, arg);
            }
            p = prefilter.bind(ps, p);
            ps.setLong(p++, left);
            ps.setLong(p, offset);
            int got = 0;
            boolean stopped = false;
            try (ResultSet rs = ps.executeQuery()) {
                RowId id = () -> rs.getBytes(2);
                while (!stopped && rs.next()) {
                    got++;
                    if (q.kind != Kind.GROUP) {
                        groupDone = false;
                    }
                    stopped = !rows.row(id, rs.getBytes(3));
                    // where the next statement resumes: needed only after the row it stops at (a
                    // statement that runs dry first moves to the next range, or, in a key's group,
                    // resumes below that key, which the group's rows all share)
                    if (stopped || got == left) {
                        lastKey = rs.getBytes(1);
                        lastId = rs.getBytes(2);
                    }
                }
            }
            offset = 0; // skipped by this statement (or it had fewer rows than the offset: nothing follows)
            left -= got;
            if (stopped) {
                return false;
            }
            if (left > 0) {
                // the statement ran dry
                if (q.kind == Kind.GROUP) {
                    groupDone = true;
                } else {
                    range++;
                    lastKey = null;
                    lastId = null;
                    groupDone = false;
                }
            }
        }
        return range >= ranges.size();
    }

    /** {@link #read} over the held rows: those whose body may hold the filter's required text, as the SQL prefilter. */
    private boolean readHeld(int max, Rows rows) throws SQLException {
        int n = held.size();
        int got = 0;
        while (heldNext < n && got < max) {
            int i = descending ? n - 1 - heldNext : heldNext;
            heldNext++;
            String body = held.bodies()[i];
            if (heldText.mayMatch(body, held.sketches()[i])) {
                got++;
                byte[] id = held.ids()[i];
                if (!rows.row(() -> id, body.getBytes(StandardCharsets.ISO_8859_1))) {
                    return false;
                }
            }
        }
        return heldNext >= n;
    }

    private enum Kind { RANGE, AFTER, GROUP, BELOW }

    private record Query(String sql, List<byte[]> args, Kind kind) {}

    private Query pkQuery(KeyRange r) {
        StringBuilder where = new StringBuilder(" WHERE 1 = 1");
        java.util.ArrayList<byte[]> args = new java.util.ArrayList<>(3);
        if (r != null) {
            where.append(" AND id >= ? AND id <= ?");
            args.add(r.low());
            args.add(r.high());
        }
        if (lastId != null) {
            where.append(descending ? " AND id < ?" : " AND id > ?");
            args.add(lastId);
        }
        where.append(prefilter.sql());
        return new Query("SELECT id, id, body FROM " + docs + where + " ORDER BY id" + (descending ? " DESC" : ""),
                args, lastId == null ? Kind.RANGE : Kind.AFTER);
    }

    private Query indexQuery(KeyRange r) {
        String select = "SELECT i.key, i.id, d.body FROM " + index + " i CROSS JOIN " + docs + " d";
        StringBuilder where = new StringBuilder(" WHERE d.id = i.id");
        java.util.ArrayList<byte[]> args = new java.util.ArrayList<>(4);
        Kind kind;
        if (lastKey != null && descending && !groupDone) {
            return new Query(select + " WHERE d.id = i.id AND i.key = ? AND i.id > ?" + prefilter.sql() + " ORDER BY i.id",
                    List.of(lastKey, lastId), Kind.GROUP);
        }
        if (r != null) {
            where.append(" AND i.key >= ? AND i.key <= ?");
            args.add(r.low());
            args.add(r.high());
        }
        if (lastKey == null) {
            kind = Kind.RANGE;
        } else if (descending) {
            where.append(" AND i.key < ?");
            args.add(lastKey);
            kind = Kind.BELOW;
        } else {
            where.append(" AND (i.key, i.id) > (?, ?)");
            args.add(lastKey);
            args.add(lastId);
            kind = Kind.AFTER;
        }
        where.append(prefilter.sql());
        return new Query(select + where + " ORDER BY i.key" + (descending ? " DESC" : "") + ", i.id", args, kind);
    }

    /** Reads every candidate of an unordered plan once, in no particular order. */
    static void candidates(SqlConnection sql, Dialect dialect, Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan,
                           Filter filter, Rows rows) throws SQLException {
        candidates(sql, dialect, coll, plan, filter, OptionalLong.empty(), rows);
    }

    /**
     * {@link #candidates}, each row read as its head where {@code heads} (the {@code DocumentHead}
     * bits of the names the query reads) says it may stand for the document; empty: the bodies.
     */
    static void candidates(SqlConnection sql, Dialect dialect, Catalog.Coll coll, QueryPlanner.Plan<Catalog.Index> plan,
                           Filter filter, OptionalLong heads, Rows rows) throws SQLException {
        String body = heads.isPresent() ? dialect.scanned("d.", heads.getAsLong()) : "d.body";
        List<KeyRange> ranges = plan.ranges();
        String docs = coll.table();
        String query;
        TextPrefilter prefilter = TextPrefilter.of(filter, dialect.textPrefilter(), "d.body");
        List<?> grams = List.of();
        TextPostings postings = plan.index() != null && plan.index().spec().isText()
                ? dialect.textPostings().orElse(null) : null;
        if (postings != null && plan.trigrams() != null) {
            postings.current(sql, plan.index().table());
            query = "SELECT d.id, " + body + " FROM " + docs + " d WHERE d.id IN (" + postings.lookup(plan.index().table()) + ")";
            grams = postings.lookupArgs(terms(plan.trigrams()));
            ranges = List.of();
        } else if (plan.trigrams() != null && dialect.trigramPostings().isPresent()) {
            TrigramPostings.Lookup lookup = dialect.trigramPostings().get().lookup(plan.index().table(), plan.trigrams());
            query = "SELECT d.id, " + body + " FROM " + docs + " d WHERE d.id IN (" + lookup.sql() + ")";
            grams = lookup.args();
            ranges = List.of();
        } else if (plan.trigrams() != null) {
            TrigramLookup lookup = TrigramLookup.of(plan.trigrams(), plan.index().table());
            query = "SELECT d.id, " + body + " FROM " + docs + " d WHERE d.id IN (" + lookup.sql() + ")";
            grams = lookup.args();
            ranges = List.of();
        } else if (ranges == null || ranges.size() > dialect.maxRangesInOneStatement()) {
            query = "SELECT d.id, " + body + " FROM " + docs + " d WHERE 1 = 1";
            ranges = List.of();
        } else if (ranges.isEmpty()) {
            return;
        } else {
            String values = dialect.rangeTable(ranges.size());
            query = plan.index() == null
                    ? "SELECT d.id, " + body + " FROM " + values + " CROSS JOIN " + docs
                            + " d WHERE d.id >= r.column1 AND d.id <= r.column2"
                    : "SELECT d.id, " + body + " FROM " + docs + " d WHERE d.id IN (SELECT i.id FROM " + values
                            + " CROSS JOIN " + plan.index().table() + " i WHERE i.key >= r.column1 AND i.key <= r.column2)";
        }
        PreparedStatement ps = sql.prepare(query + prefilter.sql());
        if (dialect.fetchRows() > 0) {
            ps.setFetchSize(dialect.fetchRows());
        }
        dialect.binaryRows(sql, ps);
        int p = ranges.isEmpty() ? 1 : dialect.bindRanges(sql, ps, 1, ranges);
        for (Object arg : grams) {
            ps.setObject(p++, arg);
        }
        prefilter.bind(ps, p);
        try (ResultSet rs = ps.executeQuery()) {
            ByteRows each = dialect.byteRows(ps, rs);
            RowId id = () -> each.bytes(1);
            while (each.next()) {
                if (!rows.row(id, each.bytes(2))) {
                    return;
                }
            }
        }
    }

    /** The terms of a text plan's lookup (each a {@link Trigrams.Gram} of its UTF-8 bytes). */
    private static List<String> terms(Trigrams.Query lookup) {
        return switch (lookup) {
            case Trigrams.Gram g -> List.of(new String(g.key(), java.nio.charset.StandardCharsets.UTF_8));
            case Trigrams.Any a -> a.parts().stream().flatMap(part -> terms(part).stream()).toList();
            case Trigrams.All a -> throw new IllegalStateException("a text lookup is an OR of terms");
        };
    }
}
