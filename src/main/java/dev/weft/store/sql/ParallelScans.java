package dev.weft.store.sql;

import dev.weft.query.Filter;
import dev.weft.store.Catalog;
import dev.weft.store.QueryTime;
import dev.weft.store.plan.TextPrefilter;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * A read of a whole collection split into {@code _id} ranges that several read connections read
 * at once, each on a scan thread of its own: the first part on the querying connection, the
 * others on the store's {@link Helpers}. Ranges are cut by interpolating between the smallest
 * and largest encoded {@code _id} (even for ObjectIds and counters, merely uneven otherwise), and
 * each reader takes the next ranges left when it is done with its own, so an uneven cut costs a
 * little balance, never correctness: the ranges cover every id exactly once.
 *
 * <p>An unordered read cuts many small ranges and hands them out in runs that shrink as fewer
 * are left (a run is read by one statement): the readers start on large runs and end on single
 * small ranges, so they finish together even when the ids are not spread evenly (ids such as
 * {@code "user" + n} interpolate to ranges of one to two decimal digits' worth: with a few
 * ranges per reader, one reader read a last range of a fifth of the collection while the other
 * waited). An ordered read keeps a few ranges per reader, one statement each: its ranges are
 * its order, and each one reads up to the page's length.
 *
 * <p>Bounds, so that one large query cannot starve the small ones: at most {@code parallel-scans}
 * queries are split at once (a query that finds no free slot reads alone, as it would unsplit);
 * a split query reads at most {@code scan-parts} ranges at once; helpers are taken only when idle,
 * never waited for; collections under {@code scan-split-min-rows} rows (estimated, refreshed at
 * most every second) are never split.
 *
 * <p>What the parts see is what the store's helpers make of it: on PostgreSQL, the snapshot of
 * the querying transaction (exported to the helpers); on SQLite, each helper's own read
 * transaction begun during the query, so a document written meanwhile may be seen before or after
 * that write, but every document is read exactly once.
 */
public final class ParallelScans {
    /** Read connections for the parts beyond the first, as the store has them. */
    public interface Helpers {
        /**
         * An idle read connection in a read transaction, under {@code time}'s limit, or null when
         * none is idle now (the split then uses fewer). {@code main} is the querying connection,
         * inside its transaction (whose snapshot a helper may share).
         */
        SqlConnection tryTake(SqlConnection main, QueryTime time) throws SQLException;

        /** Ends the transaction of a connection {@link #tryTake} gave and gives it back. */
        void giveBack(SqlConnection helper);
    }

    /** What one reader does with a row of its ranges ({@code id} readable during the call); false stops that range. */
    public interface PartRows<A> {
        boolean row(A part, int range, Scan.RowId id, byte[] body) throws SQLException;

        /** After a range was read to its end or stopped. */
        default void rangeDone(int range) {}
    }

    /** A few ranges per reader of an ordered read, so that one reader left with a dense range is helped by the others. */
    private static final int RANGES_PER_READER = 4;
    /**
     * Ranges per reader of an unordered read: its last runs are single ranges of 1/8192 of the
     * ids' span (with two readers), so the readers end within a few of them of each other; there
     * are about {@code 2 * readers * (1 + ln(ranges / (2 * readers)))} runs, a statement each (32
     * with two readers). So many because interpolated ranges can be mostly empty and the others
     * dense: ids {@code "user" + n} fill only the digits' tenth of each byte's span, so of 256
     * ranges over a million of them 27 held every row and the largest 11% of them (a reader left
     * with it read alone for a tenth of the scan); of 8192, 168 hold rows and the largest 1.1%
     * ({@code ParallelScansTest}).
     */
    static final int UNORDERED_RANGES_PER_READER = 4096;
    private static final long ESTIMATE_NANOS = 1_000_000_000L;

    private final Helpers helpers;
    private final Semaphore slots;
    private final int parts;
    private final long minRows;
    private final ExecutorService threads;
    private final Map<String, long[]> estimates = new ConcurrentHashMap<>();
    private final AtomicLong splitScans = new AtomicLong();

    /**
     * Parts run on platform threads of their own ({@code parallelScans * parts}): a
     * native database call pins a virtual thread's carrier, and these must not take the carriers
     * the requests run on.
     */
    public ParallelScans(Helpers helpers, int parallelScans, int parts, long minRows) {
        this.helpers = helpers;
        this.slots = new Semaphore(parallelScans);
        this.parts = parts;
        this.minRows = minRows;
        int helperThreads = Math.max(1, parallelScans * parts);
        this.threads = Executors.newFixedThreadPool(helperThreads, Thread.ofPlatform().daemon().name("weft-scan-", 0).factory());
    }

    /** How many readers the store needs besides the querying ones: {@code parallel-scans * (scan-parts - 1)}. */
    public static int helpersNeeded(int parallelScans, int parts) {
        return parallelScans * Math.max(0, parts - 1);
    }

    /** Queries that were split (for tests). */
    public long splitScans() {
        return splitScans.get();
    }

    public void close() {
        threads.shutdownNow();
    }

    /**
     * Reads every row of {@code coll} whose body may match {@code filter} (its required text is
     * checked in the database), split when worth it, each reader handing its rows to its own part
     * {@code partOf.apply(reader)}; returns the parts, or null when the read was not split (the
     * caller then reads as usual; nothing was read). Without {@code ids}, the statement reads no
     * id (a row's id then reads as null).
     */
    public <A> List<A> unordered(SqlConnection main, Dialect dialect, Catalog.Coll coll, Filter filter, QueryTime time,
                                 int maxParts, boolean ids, IntFunction<A> partOf, PartRows<A> rows) throws SQLException {
        return unordered(main, dialect, coll, filter, OptionalLong.empty(), time, maxParts, ids, partOf, rows);
    }

    /**
     * {@link #unordered}, each row read as its head where {@code heads} (the {@code DocumentHead}
     * bits of the names the query reads) says it may stand for the document
     * ({@link Dialect#scanned}); empty: the bodies.
     */
    public <A> List<A> unordered(SqlConnection main, Dialect dialect, Catalog.Coll coll, Filter filter, OptionalLong heads,
                                 QueryTime time, int maxParts, boolean ids, IntFunction<A> partOf, PartRows<A> rows)
            throws SQLException {
        String scanned = heads.isPresent() ? dialect.scanned("", heads.getAsLong()) : "body";
        return run(main, coll, time, maxParts, false, () -> new RangeQuery(coll, filter, dialect, false, ids, scanned),
                partOf, rows);
    }

    /**
     * The first {@code want} rows in {@code _id} order (descending when asked) that {@code keep}
     * accepts, read split when worth it; or null when not split. Each range stops after its own
     * {@code want} rows, and the ranges after a prefix that holds {@code want} are left unread.
     */
    public List<byte[]> ordered(SqlConnection main, Dialect dialect, Catalog.Coll coll, Filter filter, QueryTime time,
                                boolean descending, int want, RowFilter keep) throws SQLException {
        Ordered order = new Ordered(want);
        List<Ordered> done = run(main, coll, time, parts, true,
                () -> new RangeQuery(coll, filter, dialect, descending, false, "body"), reader -> order,
                new PartRows<>() {
                    @Override
                    public boolean row(Ordered o, int range, Scan.RowId id, byte[] body) {
                        return range <= o.cutoff && (!keep.keep(body) || o.add(range, body));
                    }

                    @Override
                    public void rangeDone(int range) {
                        order.finish(range);
                    }
                });
        return done == null ? null : order.result();
    }

    /** Whether a row read belongs in an ordered result (its filter matched). */
    public interface RowFilter {
        boolean keep(byte[] body);
    }

    /** The rows of an ordered split, range by range, and the first range past which nothing is needed. */
    private static final class Ordered {
        private final int want;
        private final Map<Integer, List<byte[]>> byRange = new ConcurrentHashMap<>();
        private final Map<Integer, Boolean> finished = new ConcurrentHashMap<>();
        volatile int cutoff = Integer.MAX_VALUE;

        Ordered(int want) {
            this.want = want;
        }

        /** False once this range has all it may need. */
        boolean add(int range, byte[] body) {
            List<byte[]> rows = byRange.computeIfAbsent(range, r -> new ArrayList<>());
            rows.add(body);
            return rows.size() < want;
        }

        /** After a range was read: the ranges after the first prefix holding {@code want} rows need not be. */
        synchronized void finish(int range) {
            finished.put(range, true);
            int held = 0;
            for (int r = 0; finished.containsKey(r); r++) {
                held += byRange.getOrDefault(r, List.of()).size();
                if (held >= want) {
                    cutoff = Math.min(cutoff, r);
                    return;
                }
            }
        }

        List<byte[]> result() {
            List<byte[]> out = new ArrayList<>();
            for (int r = 0; r <= Math.min(cutoff, byRange.keySet().stream().mapToInt(i -> i).max().orElse(-1)); r++) {
                for (byte[] body : byRange.getOrDefault(r, List.of())) {
                    if (out.size() == want) {
                        return out;
                    }
                    out.add(body);
                }
            }
            return out;
        }
    }

    /**
     * The split read, or null when it is not split. The statement is made only once the split is
     * decided: most reads are of small collections, and rendering a filter's text condition for
     * a statement that never runs would cost them as much as their own.
     */
    private <A> List<A> run(SqlConnection main, Catalog.Coll coll, QueryTime time, int maxParts, boolean ordered,
                            Supplier<RangeQuery> query, IntFunction<A> partOf, PartRows<A> rows)
            throws SQLException {
        int readers = Math.min(maxParts, parts);
        // the size first: a small read holding a slot even briefly would make a large one read alone
        if (readers < 2 || !large(main, coll) || !slots.tryAcquire()) {
            return null;
        }
        List<SqlConnection> taken = new ArrayList<>();
        try {
            List<byte[]> cuts = cuts(main, coll, readers * (ordered ? RANGES_PER_READER : UNORDERED_RANGES_PER_READER));
            if (cuts == null) {
                return null;
            }
            while (taken.size() < readers - 1) {
                SqlConnection helper = helpers.tryTake(main, time);
                if (helper == null) {
                    break;
                }
                taken.add(helper);
            }
            if (taken.isEmpty()) {
                return null;
            }
            splitScans.incrementAndGet();
            Split<A> split = new Split<>(query.get(), cuts, rows, ordered ? 0 : taken.size() + 1);
            return split.read(main, time, taken, partOf);
        } finally {
            taken.forEach(helpers::giveBack);
            slots.release();
        }
    }

    /**
     * How many of the {@code left} ranges not yet taken the next run takes when {@code readers}
     * read in runs (0: one range at a time, in order): a share of what is left, so the runs
     * shrink to single ranges by the end.
     */
    static int runLength(int left, int readers) {
        return readers <= 0 ? 1 : Math.max(1, left / (2 * readers));
    }

    /** One split read: its ranges, the next one to take, and the first failure (which stops every reader). */
    private final class Split<A> {
        private final RangeQuery query;
        private final int ranges;
        private final List<byte[]> cuts;
        private final boolean descending;
        private final PartRows<A> rows;
        /** Readers taking runs of ranges ({@link #runLength}); 0 when each range is read and reported on its own. */
        private final int runReaders;
        private final AtomicInteger next = new AtomicInteger();
        private volatile boolean failed;

        Split(RangeQuery query, List<byte[]> cuts, PartRows<A> rows, int runReaders) {
            this.query = query;
            this.cuts = cuts;
            this.ranges = cuts.size() + 1;
            this.descending = query.descending;
            this.rows = rows;
            this.runReaders = runReaders;
        }

        List<A> read(SqlConnection main, QueryTime time, List<SqlConnection> taken, IntFunction<A> partOf)
                throws SQLException {
            List<A> parts = new ArrayList<>();
            for (int i = 0; i <= taken.size(); i++) {
                parts.add(partOf.apply(i));
            }
            // the querying connection's part too runs on a scan thread while the querying (virtual)
            // thread waits: reading, it would pin its carrier for the whole scan, and with as many
            // carriers as cores, two large reads left a small one no carrier until one was done
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i <= taken.size(); i++) {
                SqlConnection sql = i == 0 ? main : taken.get(i - 1);
                A part = parts.get(i);
                QueryTime own = i == 0 ? time : time.part();
                running.add(threads.submit(() -> {
                    readRanges(sql, own, part);
                    return null;
                }));
            }
            Throwable first = null;
            // every part is waited for, also when interrupted: its connection goes back only once it is done
            boolean interrupted = false;
            for (Future<?> f : running) {
                while (true) {
                    try {
                        f.get();
                        break;
                    } catch (ExecutionException e) {
                        first = first == null ? e.getCause() : first;
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true;
                        failed = true; // the helpers stop at their next row
                        first = first == null ? e : first;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (first instanceof SQLException s) {
                throw s;
            }
            if (first instanceof RuntimeException r) {
                throw r;
            }
            if (first != null) {
                throw new SQLException("a part of a split scan failed: " + first, first);
            }
            return parts;
        }

        /**
         * Takes runs of ranges until none is left (or a reader failed), reading each into
         * {@code part}; a run's rows are reported as its first range's.
         */
        private void readRanges(SqlConnection sql, QueryTime time, A part) throws SQLException {
            try {
                for (long run = take(); run >= 0 && !failed; run = take()) {
                    int range = (int) (run >>> 32);
                    int end = (int) run; // exclusive
                    int first = descending ? ranges - end : range;
                    int last = descending ? ranges - 1 - range : end - 1;
                    byte[] low = first == 0 ? null : cuts.get(first - 1);
                    byte[] high = last == ranges - 1 ? null : cuts.get(last);
                    query.read(sql, low, high, (id, body) -> {
                        time.row();
                        return !failed && rows.row(part, range, id, body);
                    });
                    rows.rangeDone(range);
                }
            } catch (SQLException | RuntimeException e) {
                failed = true;
                throw e;
            }
        }

        /** The next run: its first range in the high 32 bits, the range after its last in the low ones; -1 when none is left. */
        private long take() {
            while (true) {
                int from = next.get();
                if (from >= ranges) {
                    return -1;
                }
                int to = from + runLength(ranges - from, runReaders);
                if (next.compareAndSet(from, to)) {
                    return (long) from << 32 | to;
                }
            }
        }
    }

    /** The statement reading one range {@code [low, high)} of the documents, the filter's required text checked in it. */
    private static final class RangeQuery {
        private final String table;
        private final TextPrefilter prefilter;
        private final Dialect dialect;
        private final String order;
        private final boolean descending;
        private final boolean ids;
        /** What is read of each row: the body, or the {@link Dialect#scanned} head-or-body. */
        private final String scanned;

        /** {@code ids}: the statement reads the id of each row too. */
        RangeQuery(Catalog.Coll coll, Filter filter, Dialect dialect, boolean descending, boolean ids, String scanned) {
            this.scanned = scanned;
            this.table = coll.table();
            this.prefilter = TextPrefilter.of(filter, dialect.textPrefilter(), "body");
            this.dialect = dialect;
            this.descending = descending;
            this.order = descending ? " ORDER BY id DESC" : " ORDER BY id";
            this.ids = ids;
        }

        void read(SqlConnection sql, byte[] low, byte[] high, Scan.Rows rows) throws SQLException {
            StringBuilder q = new StringBuilder("SELECT ").append(scanned).append(ids ? ", id FROM " : " FROM ").append(table)
                    .append(" WHERE 1 = 1");
            if (low != null) {
                q.append(" AND id >= ?");
            }
            if (high != null) {
                q.append(" AND id < ?");
            }
            PreparedStatement ps = sql.prepare(q.append(prefilter.sql()).append(order).toString());
            if (dialect.fetchRows() > 0) {
                ps.setFetchSize(dialect.fetchRows());
            }
            dialect.binaryRows(sql, ps);
            int p = 1;
            if (low != null) {
                ps.setBytes(p++, low);
            }
            if (high != null) {
                ps.setBytes(p++, high);
            }
            prefilter.bind(ps, p);
            try (ResultSet rs = ps.executeQuery()) {
                ByteRows each = dialect.byteRows(ps, rs);
                Scan.RowId id = ids ? () -> each.bytes(2) : () -> null;
                while (each.next()) {
                    if (!rows.row(id, each.bytes(1))) {
                        return;
                    }
                }
            }
        }
    }

    /** Whether the collection has at least {@code scan-split-min-rows} rows, as counted at most a second ago. */
    private boolean large(SqlConnection sql, Catalog.Coll coll) throws SQLException {
        long now = System.nanoTime();
        long[] known = estimates.get(coll.table());
        if (known != null && now - known[1] < ESTIMATE_NANOS) {
            return known[0] >= minRows;
        }
        PreparedStatement ps = sql.prepare("SELECT count(*) FROM (SELECT 1 FROM " + coll.table() + " LIMIT ?) s");
        ps.setLong(1, minRows);
        long rows;
        try (ResultSet rs = ps.executeQuery()) {
            rows = rs.next() ? rs.getLong(1) : 0;
        }
        if (estimates.size() > 10_000) {
            estimates.clear(); // dropped collections' entries; each is re-counted when next needed
        }
        estimates.put(coll.table(), new long[] {rows, now});
        return rows >= minRows;
    }

    /** The boundaries between {@code ranges} ranges in key order, or null when the ids do not spread. */
    private static List<byte[]> cuts(SqlConnection sql, Catalog.Coll coll, int ranges) throws SQLException {
        byte[] min = edge(sql, coll, "");
        byte[] max = edge(sql, coll, " DESC");
        if (min == null || max == null) {
            return null;
        }
        List<byte[]> cuts = cut(min, max, ranges);
        return cuts.isEmpty() ? null : cuts;
    }

    private static byte[] edge(SqlConnection sql, Catalog.Coll coll, String direction) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT id FROM " + coll.table() + " ORDER BY id" + direction + " LIMIT 1")
                .executeQuery()) {
            return rs.next() ? rs.getBytes(1) : null;
        }
    }

    /**
     * Up to {@code ranges - 1} increasing keys strictly between {@code min} and {@code max},
     * interpolated on the 7 bytes after their common prefix (the ranges they make cover every
     * key, whatever the keys' spread).
     */
    static List<byte[]> cut(byte[] min, byte[] max, int ranges) {
        int prefix = Arrays.mismatch(min, max);
        List<byte[]> out = new ArrayList<>();
        if (prefix < 0) {
            return out;
        }
        long lo = window(min, prefix);
        long hi = window(max, prefix);
        byte[] previous = min;
        for (int i = 1; i < ranges; i++) {
            long at = lo + (long) ((double) (hi - lo) * i / ranges);
            byte[] key = Arrays.copyOf(min, prefix + 7);
            for (int b = 0; b < 7; b++) {
                key[prefix + b] = (byte) (at >>> (8 * (6 - b)));
            }
            if (Arrays.compareUnsigned(key, max) >= 0) {
                break;
            }
            if (Arrays.compareUnsigned(key, previous) > 0) {
                out.add(key);
                previous = key;
            }
        }
        return out;
    }

    private static long window(byte[] key, int from) {
        long v = 0;
        for (int b = 0; b < 7; b++) {
            v = (v << 8) | (from + b < key.length ? key[from + b] & 0xff : 0);
        }
        return v;
    }
}
