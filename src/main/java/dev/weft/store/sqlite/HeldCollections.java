package dev.weft.store.sqlite;

import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.Namespace;
import dev.weft.store.plan.HeldText;
import dev.weft.store.sql.HeldRows;
import dev.weft.store.sql.SqlConnection;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * SQLite's {@link HeldRows}: the rows of small collections in memory, so that a find testing a
 * literal in every document (an unindexed {@code $regex}) tests it in Java instead of having
 * SQLite load and GLOB every body (bench/results/engine-20-list-prefilter.txt: ~260 µs per 1,000
 * rows).
 *
 * <p>Everything that changes what is held runs on the writer thread, so it is ordered with the
 * commits: a collection is read into memory by a step of the writer's own (no commit can come
 * between the read and the publication), each commit's events are applied in
 * {@link #committed}, which the store calls after the commit and before any writer is
 * acknowledged, and every catalog change drops everything ({@link #forgetAll}). So a reader
 * always finds a collection as some committed state left it, including every acknowledged write
 * (the invariant of {@link HeldRows}). What cannot be followed exactly (a collection touched by a
 * commit without events for it, a document without its bytes) is dropped, and read again when a
 * find next asks for it.
 *
 * <p>Bounded by {@code held-rows-bytes}: the bodies, ids and a per-row overhead of every held
 * collection; a collection is held only while it fits whole in what is left. A collection found
 * too large is remembered (by its table), and such collections are read again one at a time, at
 * most one every {@link #RETRY_NANOS} over all of them: each such read first sums the rows'
 * lengths up to the bound ({@link #fits}) and reads the rows only if they now fit, so any number of
 * large collections queried with literals costs the writer at most one such walk per interval
 * besides the first read of each table (which makes no strings or sketches until the rows fit).
 */
final class HeldCollections implements HeldRows {
    /** Counted per row beyond its id and body: the array slots, the String, its sketch and their headers. */
    static final int ROW_OVERHEAD = 64 + 8 * HeldText.SKETCH_LONGS + 16;
    /** How long a collection that did not fit (or whose read failed) is not asked for again. */
    static final long RETRY_NANOS = 10_000_000_000L;

    private final long maxBytes;
    private final Consumer<Catalog.Coll> reader;
    private final LongSupplier nanoClock;
    /** The collections found too large, by namespace: the table that was (a new table is read afresh). */
    private final ConcurrentHashMap<Namespace, String> tooLarge = new ConcurrentHashMap<>();
    /** When the next read of a collection found too large may be asked for, over all of them. */
    private final AtomicLong nextTooLargeRead;
    private final ConcurrentHashMap<Namespace, Rows> held = new ConcurrentHashMap<>();
    /** When a collection not held was last asked for (its read is on the writer's queue or was refused). */
    private final ConcurrentHashMap<Namespace, Long> asked = new ConcurrentHashMap<>();
    /** Writer thread only: the bytes counted for each held collection, and their sum. */
    private final Map<Namespace, Long> bytesOf = new HashMap<>();
    private long bytes;

    /**
     * @param maxBytes {@code held-rows-bytes}; 0 holds nothing
     * @param reader   hands a collection's read to the writer ({@link #read} runs there, later)
     */
    HeldCollections(long maxBytes, Consumer<Catalog.Coll> reader) {
        this(maxBytes, reader, System::nanoTime);
    }

    HeldCollections(long maxBytes, Consumer<Catalog.Coll> reader, LongSupplier nanoClock) {
        this.maxBytes = maxBytes;
        this.reader = reader;
        this.nanoClock = nanoClock;
        this.nextTooLargeRead = new AtomicLong(nanoClock.getAsLong());
    }

    @Override
    public Optional<Rows> rows(Catalog.Coll coll) {
        if (maxBytes == 0) {
            return Optional.empty();
        }
        Rows rows = held.get(coll.ns());
        if (rows != null) {
            return Optional.of(rows);
        }
        long now = nanoClock.getAsLong();
        Long last = asked.get(coll.ns());
        boolean ask = last == null ? asked.putIfAbsent(coll.ns(), now) == null
                : now - last > RETRY_NANOS && asked.replace(coll.ns(), last, now);
        if (ask && coll.table().equals(tooLarge.get(coll.ns()))) {
            long next = nextTooLargeRead.get();
            ask = now - next >= 0 && nextTooLargeRead.compareAndSet(next, now + RETRY_NANOS);
        }
        if (ask) {
            reader.accept(coll);
        }
        return Optional.empty();
    }

    /** Whether the collection's rows are held now (nothing is asked for). */
    boolean holds(Namespace ns) {
        return held.containsKey(ns);
    }

    /** Writer thread, alone: reads the collection's rows and holds them if they fit. */
    void read(SqlConnection sql, Catalog.Coll coll) throws SQLException {
        if (held.containsKey(coll.ns())) {
            return;
        }
        long budget = maxBytes - bytes;
        if (coll.table().equals(tooLarge.get(coll.ns())) && !fits(sql, coll.table(), budget)) {
            refuse(coll.ns(), coll.table());
            return;
        }
        long size = 0;
        List<byte[]> ids = new ArrayList<>();
        List<byte[]> stored = new ArrayList<>();
        PreparedStatement ps = sql.prepare("SELECT id, body FROM " + coll.table() + " ORDER BY id");
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                byte[] id = rs.getBytes(1);
                byte[] body = rs.getBytes(2);
                size += rowBytes(id, body.length);
                if (size > budget) {
                    refuse(coll.ns(), coll.table());
                    return;
                }
                ids.add(id);
                stored.add(body);
            }
        }
        // the strings and sketches only once the collection fits: a read refused made none
        List<String> bodies = new ArrayList<>(stored.size());
        List<long[]> sketches = new ArrayList<>(stored.size());
        for (byte[] body : stored) {
            String text = new String(body, StandardCharsets.ISO_8859_1);
            bodies.add(text);
            sketches.add(HeldText.sketch(text));
        }
        hold(coll.ns(), rows(coll.table(), ids, bodies, sketches), size);
        asked.remove(coll.ns());
        tooLarge.remove(coll.ns());
    }

    /**
     * Whether the rows of {@code table} fit in {@code budget} bytes, summed as {@link #read} sums
     * them, from their lengths alone: SQLite answers {@code length()} of a stored value from the
     * record's header without copying the value, so a table found too large before costs its
     * retry a walk of the rows up to the bound, not a copy of each body into Java
     * (bench/results/regex-1m-held-2.txt: a 1M collection's retry, every 10 s while it is queried,
     * cost the writer ~110-140 ms of CPU before, ~20-40 ms now). Only ever refuses a table {@link #read} would refuse: a value
     * stored as TEXT has a {@code length()} in characters, never more than its bytes.
     */
    private static boolean fits(SqlConnection sql, String table, long budget) throws SQLException {
        long size = 0;
        try (ResultSet rs = sql.prepare("SELECT length(id), length(body) FROM " + table).executeQuery()) {
            while (rs.next()) {
                size += rs.getLong(1) + rs.getLong(2) + ROW_OVERHEAD;
                if (size > budget) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Writer thread: {@code ns} (its table {@code table}) did not fit; it stays asked for (so not
     * read again before {@link #RETRY_NANOS}) and joins the collections read again one at a time.
     */
    void refuse(Namespace ns, String table) {
        asked.put(ns, nanoClock.getAsLong());
        tooLarge.put(ns, table);
    }

    /**
     * Writer thread, after a commit and before its writers are acknowledged: applies its events
     * to the collections held, in commit order.
     */
    void committed(Set<Namespace> touched, List<ChangeEvent> events) {
        if (held.isEmpty()) {
            return;
        }
        Map<Namespace, TreeMap<byte[], String>> changes = new HashMap<>();
        for (ChangeEvent e : events) {
            if (!held.containsKey(e.ns())) {
                continue;
            }
            if (e.operation() == ChangeEvent.Operation.DROP
                    || e.operation() != ChangeEvent.Operation.DELETE && e.fullDocument() == null) {
                forget(e.ns());
                changes.remove(e.ns());
                continue;
            }
            String body = e.operation() == ChangeEvent.Operation.DELETE ? null
                    : new String(e.fullDocument(), StandardCharsets.ISO_8859_1);
            changes.computeIfAbsent(e.ns(), ns -> new TreeMap<>(Arrays::compareUnsigned))
                    .put(AbstractDocumentWrites.key(e.documentKey()), body);
        }
        for (Namespace ns : touched) {
            if (held.containsKey(ns) && !changes.containsKey(ns)) {
                forget(ns); // changed without an event we could follow
            }
        }
        changes.forEach(this::apply);
    }

    /** Writer thread: drops every held collection (a catalog change: a drop, a new index, a rename). */
    void forgetAll() {
        held.clear();
        asked.clear();
        bytesOf.clear();
        bytes = 0;
    }

    /** The collections held now (for tests). */
    Set<Namespace> held() {
        return Set.copyOf(held.keySet());
    }

    /** Merges a commit's changes (a null body: deleted) into the held rows, both sorted by id. */
    private void apply(Namespace ns, TreeMap<byte[], String> changed) {
        Rows rows = held.get(ns);
        if (rows == null) {
            return;
        }
        List<byte[]> ids = new ArrayList<>(rows.size() + changed.size());
        List<String> bodies = new ArrayList<>(rows.size() + changed.size());
        List<long[]> sketches = new ArrayList<>(rows.size() + changed.size());
        long size = 0;
        int i = 0;
        for (Map.Entry<byte[], String> c : changed.entrySet()) {
            while (i < rows.size() && Arrays.compareUnsigned(rows.ids()[i], c.getKey()) < 0) {
                size += keep(ids, bodies, sketches, rows, i);
                i++;
            }
            if (i < rows.size() && Arrays.equals(rows.ids()[i], c.getKey())) {
                i++; // replaced or deleted
            }
            if (c.getValue() != null) {
                ids.add(c.getKey());
                bodies.add(c.getValue());
                sketches.add(HeldText.sketch(c.getValue()));
                size += rowBytes(c.getKey(), c.getValue().length());
            }
        }
        for (; i < rows.size(); i++) {
            size += keep(ids, bodies, sketches, rows, i);
        }
        long before = bytesOf.get(ns);
        if (bytes - before + size > maxBytes) {
            forget(ns);
            refuse(ns, rows.table());
            return;
        }
        hold(ns, rows(rows.table(), ids, bodies, sketches), size);
    }

    /** Keeps row {@code i} of {@code rows} as it is; answers its bytes. */
    private static long keep(List<byte[]> ids, List<String> bodies, List<long[]> sketches, Rows rows, int i) {
        ids.add(rows.ids()[i]);
        bodies.add(rows.bodies()[i]);
        sketches.add(rows.sketches()[i]);
        return rowBytes(rows.ids()[i], rows.bodies()[i].length());
    }

    private static Rows rows(String table, List<byte[]> ids, List<String> bodies, List<long[]> sketches) {
        return new Rows(table, ids.toArray(byte[][]::new), bodies.toArray(String[]::new), sketches.toArray(long[][]::new));
    }

    private static long rowBytes(byte[] id, int bodyBytes) {
        return id.length + bodyBytes + ROW_OVERHEAD;
    }

    private void hold(Namespace ns, Rows rows, long size) {
        Long before = bytesOf.put(ns, size);
        bytes += size - (before == null ? 0 : before);
        held.put(ns, rows);
    }

    private void forget(Namespace ns) {
        if (held.remove(ns) != null) {
            bytes -= bytesOf.remove(ns);
        }
        asked.remove(ns);
    }
}
