package dev.weft.store.plan;

import dev.weft.query.KeyRange;
import dev.weft.store.MemoryOnly;
import java.nio.ByteBuffer;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The planner's key counts ({@link QueryPlanner.Probe}), remembered for a short while: a query
 * asked again and again (a list page, a poll) is planned from memory instead of by a few counting
 * statements each time, which on a small collection cost as much as the read itself.
 *
 * <p>Why a stale count is safe: a count only ranks sources; every plan reads a superset of the
 * matches and the filter decides ({@link QueryPlanner}), so a count from a moment ago can cost
 * time, never a wrong answer. Invariants: a count is served at most {@code plan-probe-cache-ms}
 * after it was counted; a count is keyed by exactly what was counted (the table, the key ranges
 * and the cap), so a new index or collection (a new table: ids are never reused) is counted
 * afresh; {@link #forget} drops a collection's counts when an index of it is created or dropped
 * or it is dropped; at most {@code plan-probe-cache-entries} counts (past that the cache starts
 * over), each over at most {@link #MAX_KEY_BYTES} of key ranges (a filter with more is counted
 * every time, as without the cache), so the cache holds at most entries × that many bytes.
 */
public final class ProbeCache {
    /** Counts a source's keys in ranges, up to a cap: the database's answer on a miss. */
    @FunctionalInterface
    public interface Counter {
        long count() throws SQLException;
    }

    private record Key(long coll, String table, byte[] ranges, long cap) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.coll == coll && k.cap == cap && k.table.equals(table)
                    && Arrays.equals(k.ranges, ranges);
        }

        @Override
        public int hashCode() {
            return (table.hashCode() * 31 + Arrays.hashCode(ranges)) * 31 + Long.hashCode(cap);
        }
    }

    private record Counted(long count, long atNanos) {}

    /** Largest key ranges remembered: a {@code $in} of thousands of values would make each entry as large as its filter. */
    static final int MAX_KEY_BYTES = 1024;

    private final long ttlNanos;
    private final int maxEntries;
    private final LongSupplier clock;
    private final ConcurrentHashMap<Key, Counted> counts = new ConcurrentHashMap<>();

    public ProbeCache(long ttlMs, int maxEntries) {
        this(ttlMs, maxEntries, System::nanoTime);
    }

    ProbeCache(long ttlMs, int maxEntries, LongSupplier nanoClock) {
        this.ttlNanos = ttlMs * 1_000_000;
        this.maxEntries = maxEntries;
        this.clock = nanoClock;
    }

    /**
     * The keys of {@code table} (collection {@code coll}'s documents or one of its indexes) in
     * {@code ranges}, up to {@code cap}: remembered, or counted by {@code counter} and remembered.
     */
    public long count(long coll, String table, List<KeyRange> ranges, long cap, Counter counter) throws SQLException {
        if (ttlNanos == 0) {
            return counter.count();
        }
        byte[] flat = flatten(ranges);
        if (flat == null) {
            return counter.count();
        }
        Key key = new Key(coll, table, flat, cap);
        long now = clock.getAsLong();
        Counted known = counts.get(key);
        if (known != null && now - known.atNanos < ttlNanos) {
            return known.count;
        }
        MemoryOnly.notNow(); // counted where a read may wait, and remembered for the next one
        long count = counter.count();
        if (counts.size() >= maxEntries) {
            counts.clear();
        }
        counts.put(key, new Counted(count, now));
        return count;
    }

    /** Drops every count of collection {@code coll} (its indexes changed, or it was dropped). */
    public void forget(long coll) {
        counts.keySet().removeIf(k -> k.coll == coll);
    }

    int size() {
        return counts.size();
    }

    /** The ranges as one array: each bound as its length, then its bytes; null past {@link #MAX_KEY_BYTES}. */
    private static byte[] flatten(List<KeyRange> ranges) {
        int size = 0;
        for (KeyRange r : ranges) {
            size += 8 + r.low().length + r.high().length;
            if (size > MAX_KEY_BYTES) {
                return null;
            }
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (KeyRange r : ranges) {
            out.putInt(r.low().length).put(r.low()).putInt(r.high().length).put(r.high());
        }
        return out.array();
    }
}
