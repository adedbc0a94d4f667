package dev.weft.store.sqlite;

import dev.weft.store.Catalog;
import dev.weft.store.QueryTime;
import dev.weft.store.plan.TextPrefilter;
import dev.weft.query.Filter;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A full scan of a collection split into key ranges of {@code _id}, each read on its own read
 * connection at once, the parts' results merged by the caller. Helpers are only borrowed when
 * idle: a server-wide {@link Semaphore} of {@code parallel-scans} slots and a free reader from
 * the pool, both taken without waiting, so a big scan never queues behind (or holds up) small
 * reads; with none free it reads alone. Collections under {@code parallel-scan-min-rows} rows are
 * never split. The ranges are cut by interpolating between the smallest and largest encoded
 * {@code _id}, which is even for ObjectIds and counters and merely uneven otherwise.
 *
 * <p>Like an ordered find's chunks, each part reads in its own read transaction: the parts see
 * the collection at moments within the query, not one snapshot.
 */
final class ParallelScan {
    /** What one part does with its rows: {@code sql} is its connection, {@code range} its bounds. */
    interface Part<R> {
        R run(Sql sql, Range range) throws SQLException;
    }

    /** Encoded ids from {@code low} (inclusive) to {@code high} (exclusive); null is unbounded. */
    record Range(byte[] low, byte[] high) {
        static final Range ALL = new Range(null, null);
    }

    private final BlockingQueue<Sql> readers;
    private final Semaphore slots;
    private final long minRows;
    private final int maxHelpers;
    private final java.util.concurrent.atomic.AtomicLong splitScans = new java.util.concurrent.atomic.AtomicLong();

    ParallelScan(BlockingQueue<Sql> readers, int parallelScans, long minRows) {
        this.readers = readers;
        this.slots = new Semaphore(parallelScans);
        this.maxHelpers = parallelScans;
        this.minRows = minRows;
    }

    /** Runs {@code part} over the whole collection, split when worth it; one result per part. */
    <R> List<R> run(Sql main, Catalog.Coll coll, QueryTime time, Part<R> part) throws SQLException {
        if (slots.availablePermits() == 0 || !large(main, coll)) {
            return List.of(part.run(main, Range.ALL));
        }
        List<Sql> helpers = new ArrayList<>();
        try {
            while (helpers.size() < maxHelpers && slots.tryAcquire()) {
                Sql sql = readers.poll();
                if (sql == null) {
                    slots.release();
                    break;
                }
                helpers.add(sql);
            }
            List<Range> ranges = helpers.isEmpty() ? List.of(Range.ALL) : split(main, coll, helpers.size() + 1);
            if (ranges.size() == 1) {
                return List.of(part.run(main, Range.ALL));
            }
            splitScans.incrementAndGet();
            return inParallel(main, helpers.subList(0, ranges.size() - 1), ranges, time, part);
        } finally {
            for (Sql sql : helpers) {
                readers.add(sql);
                slots.release();
            }
        }
    }

    /** Scans that were split (for tests). */
    long splitScans() {
        return splitScans.get();
    }

    private <R> List<R> inParallel(Sql main, List<Sql> helpers, List<Range> ranges, QueryTime time, Part<R> part)
            throws SQLException {
        List<Future<R>> tasks = new ArrayList<>();
        List<R> out = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < helpers.size(); i++) {
                Sql sql = helpers.get(i);
                Range range = ranges.get(i + 1);
                tasks.add(threads.submit(() -> inSnapshot(sql, time, range, part)));
            }
            try {
                out.add(part.run(main, ranges.get(0)));
            } catch (SQLException | RuntimeException e) {
                threads.shutdownNow(); // interrupts the helpers' statements (readers are interruptible)
                throw e;
            }
            for (Future<R> t : tasks) {
                out.add(t.get());
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException s) {
                throw s;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted", e);
        }
        return out;
    }

    private static <R> R inSnapshot(Sql sql, QueryTime time, Range range, Part<R> part) throws SQLException {
        sql.limit(time);
        sql.control("BEGIN");
        try {
            R r = part.run(sql, range);
            sql.control("COMMIT");
            return r;
        } catch (SQLException | RuntimeException e) {
            try {
                sql.control("ROLLBACK");
            } catch (SQLException ignored) {
                // nothing left to roll back
            }
            throw e;
        } finally {
            sql.limit(null);
        }
    }

    private boolean large(Sql sql, Catalog.Coll coll) throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + coll.table() + " LIMIT ?)");
        ps.setLong(1, minRows);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() && rs.getLong(1) >= minRows;
        }
    }

    /** {@code parts} ranges covering every id, cut between the smallest and largest one. */
    static List<Range> split(Sql sql, Catalog.Coll coll, int parts) throws SQLException {
        byte[] min = edge(sql, coll, "ASC");
        byte[] max = edge(sql, coll, "DESC");
        if (min == null || max == null) {
            return List.of(Range.ALL);
        }
        return cut(min, max, parts);
    }

    /** Cuts [min, max] into up to {@code parts} ranges at keys interpolated on 7 bytes past their common prefix. */
    static List<Range> cut(byte[] min, byte[] max, int parts) {
        int prefix = Arrays.mismatch(min, max);
        if (prefix < 0) {
            return List.of(Range.ALL);
        }
        long lo = window(min, prefix);
        long hi = window(max, prefix);
        List<Range> out = new ArrayList<>();
        byte[] previous = null;
        for (int i = 1; i < parts; i++) {
            long at = lo + (long) ((double) (hi - lo) * i / parts);
            byte[] key = Arrays.copyOf(min, prefix + 7);
            for (int b = 0; b < 7; b++) {
                key[prefix + b] = (byte) (at >>> (8 * (6 - b)));
            }
            if (Arrays.compareUnsigned(key, max) >= 0) {
                break;
            }
            if (Arrays.compareUnsigned(key, min) <= 0 || (previous != null && Arrays.compareUnsigned(key, previous) <= 0)) {
                continue;
            }
            out.add(new Range(previous, key));
            previous = key;
        }
        out.add(new Range(previous, null));
        return out;
    }

    private static long window(byte[] key, int from) {
        long v = 0;
        for (int b = 0; b < 7; b++) {
            v = (v << 8) | (from + b < key.length ? key[from + b] & 0xff : 0);
        }
        return v;
    }

    private static byte[] edge(Sql sql, Catalog.Coll coll, String direction) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT id FROM " + coll.table() + " ORDER BY id " + direction + " LIMIT 1").executeQuery()) {
            return rs.next() ? rs.getBytes(1) : null;
        }
    }

    /** Reads the rows of {@code range} whose JSON passes {@code filter}'s text prefilter. */
    static void rows(Sql sql, Catalog.Coll coll, Filter filter, Range range, Scan.Rows rows) throws SQLException {
        TextPrefilter prefilter = TextPrefilter.of(filter, TextPrefilter.Dialect.SQLITE, "d.body");
        StringBuilder q = new StringBuilder("SELECT d.id, d.body FROM " + coll.table() + " d WHERE 1");
        if (range.low() != null) {
            q.append(" AND d.id >= ?");
        }
        if (range.high() != null) {
            q.append(" AND d.id < ?");
        }
        PreparedStatement ps = sql.prepare(q + prefilter.sql());
        int p = 1;
        if (range.low() != null) {
            ps.setBytes(p++, range.low());
        }
        if (range.high() != null) {
            ps.setBytes(p++, range.high());
        }
        prefilter.bind(ps, p);
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (!rows.row(rs.getBytes(1), rs.getBytes(2))) {
                    return;
                }
            }
        }
    }
}
