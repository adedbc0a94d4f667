package dev.weft.store.sqlite;

import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.CommitListener;
import dev.weft.store.EventLog;
import dev.weft.store.FindQuery;
import dev.weft.store.MemoryOnly;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.plan.QueryPlanner;
import dev.weft.store.sql.ParallelScans;
import dev.weft.store.Transaction;
import dev.weft.store.txn.DocumentChange;
import dev.weft.store.txn.Overlays;
import dev.weft.store.txn.TxnErrors;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.plan.ProbeCache;
import dev.weft.store.sql.SqlEngine;
import dev.weft.store.sql.SqlStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;
import tools.jackson.databind.JsonNode;

/**
 * The embedded store: one SQLite file {@code <data>/weft.db} in WAL mode with
 * {@code synchronous=FULL}. It has no replicas: every {@link ReadMode} reads this file, and
 * every write is hard ({@link Durability#SOFT} is accepted and written as hard). One writer connection owned by the {@link Writer} thread
 * (group commit), and a pool of {@code sqlite-readers} read connections: SQLite's native calls
 * pin the carrier thread, so at most that many virtual threads are inside SQLite at once. The
 * {@link Checkpointer} copies the write-ahead log back into the file off the writer's thread.
 *
 * <p>What a query or a write does to the tables is the {@link SqlEngine}'s ({@link SqliteDialect});
 * here is what only SQLite needs: the writer thread, the reader pool, the checkpointer, and
 * reads in chunks (a find hands each chunk out after giving its connection back, so a slow
 * client never holds a reader, nor the WAL, between chunks).
 */
public final class SqliteStore extends SqlStore implements EventLog {
    /** How often the log is copied back: often enough that it stays a few MB under load. */
    private static final long CHECKPOINT_MS = 100;

    private final Sql writerSql;
    private final Writer writer;
    private final Checkpointer checkpointer;
    private final BlockingQueue<Sql> readers;
    private final int readerCount;
    /** Read connections for the parts of split scans only, so that a split never takes a reader a small read waits for. */
    private final BlockingQueue<Sql> scanHelpers;
    private final ParallelScans parallelScans;
    private final long queryTimeoutMs;
    private volatile Catalog catalog;
    private final AtomicLong catalogGeneration = new AtomicLong();
    private final AtomicLong commitSeq = new AtomicLong();
    private final List<CommitListener> listeners = new CopyOnWriteArrayList<>();
    private final EventTable events;
    private final Overlays overlays;
    private final HeldCollections held;
    /** The FTS5 indexes' pending documents: a text query finding some has the writer move them first ({@link #read}). */
    private final PendingPostings pending;
    /** Writer thread only: the events of the catalog change running, logged in its transaction. */
    private List<ChangeEvent> ddlEvents;

    public SqliteStore(Settings settings, Json json) {
        this(settings, json, NativeRanking.forStore(settings.textNativeRanking() == 1));
    }

    private SqliteStore(Settings settings, Json json, NativeRanking ranking) {
        this(settings, json, new SqliteDialect(settings.trigramPendingRows(), settings.textPendingRows(), settings.documentHeadBytes(),
                ranking.enabled()), ranking);
    }

    /** {@code ranking}: loaded into every connection that may serve a {@code $text} query (the writer's and the readers'). */
    private SqliteStore(Settings settings, Json json, SqliteDialect dialect, NativeRanking ranking) {
        super(json, new SqlEngine(dialect, json, settings.queryTimeoutMs(), settings.maxSortBytes(),
                settings.trigramProbeCap(), new ProbeCache(settings.planProbeCacheMs(), settings.planProbeCacheEntries())));
        pending = dialect.pending();
        Path file = settings.data().resolve("weft.db");
        try {
            Files.createDirectories(settings.data());
            PageSize.createIfNew(file, settings.sqlitePageSize());
            writerSql = new Sql(open(file, ranking));
            PageSize.reportKept(writerSql.connection(), file, settings.sqlitePageSize());
            for (String ddl : Schema.TABLES) {
                writerSql.exec(ddl);
            }
            for (String ddl : EventTable.SCHEMA) {
                writerSql.exec(ddl);
            }
            SqliteDialect.addHeadColumns(writerSql);
            writerSql.exec("PRAGMA wal_autocheckpoint = " + settings.sqliteWalPages());
            checkpointer = new Checkpointer(open(file, NativeRanking.off()), CHECKPOINT_MS);
            events = new EventTable(json, settings.streamRetentionEvents(), settings.streamRetentionMs());
            events.load(writerSql);
            catalog = Catalog.load(writerSql.connection(), json);
            writerSql.exec("BEGIN IMMEDIATE");
            engine.rebuildOldTextIndexes(writerSql, catalog);
            writerSql.exec("COMMIT");
            readerCount = settings.sqliteReaders();
            readers = new ArrayBlockingQueue<>(readerCount);
            for (int i = 0; i < readerCount; i++) {
                Sql reader = new Sql(openReader(file, settings.sqliteMmapBytes(), ranking));
                reader.interruptible();
                readers.add(reader);
            }
            int helpers = ParallelScans.helpersNeeded(settings.parallelScans(), settings.scanParts());
            scanHelpers = new ArrayBlockingQueue<>(Math.max(1, helpers));
            for (int i = 0; i < helpers; i++) {
                Sql helper = new Sql(openReader(file, settings.sqliteMmapBytes(), ranking));
                helper.interruptible();
                scanHelpers.add(helper);
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("cannot open the SQLite store at " + file + ": " + e.getMessage(), e);
        }
        queryTimeoutMs = settings.queryTimeoutMs();
        parallelScans = new ParallelScans(new ScanHelpers(), settings.parallelScans(), settings.scanParts(),
                settings.scanSplitMinRows());
        engine.splitWith(parallelScans);
        held = new HeldCollections(settings.heldRowsBytes(), this::readHeld);
        engine.holdWith(held);
        writer = new Writer(writerSql, settings.writeQueueLength(), settings.writeBatchMax(), this::apply,
                (sql, changes) -> events.append(sql, changes, System.currentTimeMillis()), this::afterCommit, this::afterDdl,
                new Writer.IdleWork(settings.trigramPendingIdleMs(), dialect.pending()::hasPending, dialect.pending()::indexPending));
        overlays = new Overlays(this, json, queryTimeoutMs, settings.txnMaxBytes(), this::commitOverlay);
    }

    /**
     * Has the writer read a collection into {@link #held}, alone (no commit comes between the read
     * and its publication), on a thread of its own: the find that asked reads the table meanwhile.
     */
    private void readHeld(Catalog.Coll coll) {
        Thread.ofVirtual().name("weft-held-read").start(() -> {
            try {
                writer.asked(sql -> {
                    Catalog.Coll now = catalog.colls().get(coll.ns());
                    if (now != null && now.table().equals(coll.table())) {
                        held.read(sql, now);
                    }
                }, () -> {});
            } catch (RuntimeException e) {
                // not held: the collection is asked for again later, reads use the table meanwhile
            }
        });
    }

    /**
     * A read-only connection mapping up to {@code mmapBytes} of the file ({@code sqlite-mmap-bytes}):
     * a page read within the map is the kernel's page, not a read() into SQLite's cache. SQLite
     * maps read-only (a stray write cannot reach the file) and reads with read() again where a
     * map fails; what a map cannot do is report an I/O error of the disk under it, which reaches
     * the process as SIGBUS instead of SQLITE_IOERR (sqlite.org/mmap.html).
     *
     * <p>Opened without SQLite's per-connection mutex ({@code SQLITE_OPEN_NOMUTEX}): sqlite-jdbc
     * already serializes every call on a connection (every native method of its {@code NativeDB}
     * but {@code interrupt} and {@code libversion} is {@code synchronized} on the connection's
     * handle) and a reader serves one thread at a time, so that mutex only
     * cost a lock and an unlock per step and per column read (about a tenth of a 1M-row scan's
     * CPU, bench/results/engine-22-sort-profile.txt). A query's time limit needs no other thread:
     * it is {@link Sql#interruptible}'s progress handler, called inside the reading thread's step.
     */
    private static Connection openReader(Path file, long mmapBytes, NativeRanking ranking) throws SQLException {
        Connection c = open(file, ranking, SQLiteOpenMode.NOMUTEX);
        try (var s = c.createStatement()) {
            s.execute("PRAGMA query_only = 1");
            s.execute("PRAGMA mmap_size = " + mmapBytes);
        }
        return c;
    }

    private static Connection open(Path file, NativeRanking ranking, SQLiteOpenMode... modes) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        for (SQLiteOpenMode mode : modes) {
            config.setOpenMode(mode);
        }
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(10_000);
        config.setCacheSize(-16_000);
        // Weft never asks for generated keys; with this on, sqlite-jdbc matches every statement
        // against an INSERT regex and runs a SELECT last_insert_rowid() after each insert.
        config.setGetGeneratedKeys(false);
        Connection c = config.createConnection("jdbc:sqlite:" + file);
        ranking.load(c);
        return c;
    }

    /** Registers a listener told of every commit's document changes, in commit order. */
    @Override
    public void addCommitListener(CommitListener listener) {
        listeners.add(listener);
    }

    // --- change events -------------------------------------------------------------------

    @Override
    public EventLog eventLog() {
        return this;
    }

    @Override
    public List<ChangeEvent> after(long after, int limit) {
        return read(true, sql -> events.read(sql, after, limit));
    }

    @Override
    public OptionalLong droppedAfter(Namespace ns, long after) {
        return read(true, sql -> events.droppedAfter(sql, ns, after));
    }

    @Override
    public long floor() {
        return events.floor();
    }

    @Override
    public long last() {
        return events.last();
    }

    // --- catalog (the rules are AbstractStore's; here the writer's transaction and the SQL) ---

    @Override
    protected Catalog catalog() {
        return catalog;
    }

    /**
     * On the writer, with the catalog as it stands there (every catalog change runs there); the
     * events it logs ({@link #ddlEvents}, collection drops) commit with it.
     */
    @Override
    protected <R> R ddl(Ddl<SqlConnection, R> fn) {
        return writer.ddl((sql, logged) -> {
            ddlEvents = logged;
            try {
                return fn.run(sql, catalog);
            } finally {
                ddlEvents = null;
            }
        });
    }

    /**
     * Runs on the writer: hides the collection from new reads first, then drops its tables and
     * rows, and logs the drop (its streams are invalidated when it commits).
     */
    @Override
    protected void dropTables(SqlConnection sql, Catalog.Coll coll) throws SQLException {
        ddlEvents.add(ChangeEvent.dropped(coll.ns()));
        catalog = catalog.without(coll.ns());
        catalogGeneration.incrementAndGet();
        super.dropTables(sql, coll);
    }

    /** Runs on the writer: hides the index from new reads first, then drops its table and row. */
    @Override
    protected void removeIndex(SqlConnection sql, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        catalog = catalog.withoutIndex(coll.ns(), index.spec().name());
        catalogGeneration.incrementAndGet();
        super.removeIndex(sql, coll, index);
    }

    // --- reads ---------------------------------------------------------------------------

    @Override
    public Optional<StoredDocument> get(Namespace ns, JsonNode id, ReadMode mode) {
        return read(false, sql -> engine.get(sql, requireColl(catalog, ns), id));
    }

    /** Chunk by chunk, each on a reader taken for it; the index walked is checked again before each later chunk. */
    @Override
    public void find(Namespace ns, FindQuery query, ReadMode mode, Consumer<StoredDocument> sink) {
        if (MemoryOnly.active() && !held.holds(ns)) {
            MemoryOnly.refuse();
        }
        QueryTime time = QueryTime.start(queryTimeoutMs);
        SqlEngine.Find find = engine.find(query, time);
        if (find.done()) {
            return;
        }
        List<StoredDocument> out = read(true, time, sql -> find.first(sql, requireColl(catalog, ns)));
        while (true) {
            time.pause();
            out.forEach(sink);
            if (find.done()) {
                return;
            }
            time.resume();
            out = read(true, time, sql -> {
                find.checkSource(requireColl(catalog, ns));
                return find.next(sql);
            });
        }
    }

    @Override
    public boolean answersFromMemory(Namespace ns) {
        return held.holds(ns);
    }

    @Override
    public long count(Namespace ns, Filter filter, ReadMode mode) {
        QueryTime time = QueryTime.start(queryTimeoutMs);
        return read(true, time, sql -> engine.count(sql, requireColl(catalog, ns), filter, time));
    }

    @Override
    public void scanParts(Namespace ns, Filter filter, ReadMode mode, int parts,
                          IntFunction<Consumer<StoredDocument>> sinkOfPart) {
        scanParts(ns, filter, null, mode, parts, sinkOfPart);
    }

    @Override
    public void scanParts(Namespace ns, Filter filter, java.util.Set<String> names, ReadMode mode, int parts,
                          IntFunction<Consumer<StoredDocument>> sinkOfPart) {
        QueryTime time = QueryTime.start(queryTimeoutMs);
        read(true, time, sql -> {
            engine.scanParts(sql, requireColl(catalog, ns), filter, names, time, parts, sinkOfPart);
            return null;
        });
    }

    /**
     * The parts of a split scan beyond the first read on connections of their own, each in a read
     * transaction begun now: SQLite cannot share the querying one's snapshot.
     */
    private final class ScanHelpers implements ParallelScans.Helpers {
        @Override
        public SqlConnection tryTake(SqlConnection main, QueryTime time) throws SQLException {
            Sql sql = scanHelpers.poll();
            if (sql == null) {
                return null;
            }
            try {
                sql.beginSnapshot();
            } catch (SQLException e) {
                sql.abandonSnapshot();
                scanHelpers.add(sql);
                throw e;
            }
            sql.limit(time);
            return sql;
        }

        @Override
        public void giveBack(SqlConnection helper) {
            Sql sql = (Sql) helper;
            sql.limit(null);
            sql.abandonSnapshot();
            scanHelpers.add(sql);
        }
    }

    /** How much of the file a read connection maps ({@code PRAGMA mmap_size}): what {@code sqlite-mmap-bytes} gave SQLite. */
    long readerMappedBytes() {
        return read(false, sql -> {
            try (var s = sql.connection().createStatement(); var rs = s.executeQuery("PRAGMA mmap_size")) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        });
    }

    private interface ReadFn<T> {
        T apply(Sql sql) throws SQLException;
    }

    /**
     * Runs {@code fn} on a pooled read connection. With {@code snapshot}, inside one read
     * transaction, begun by {@code fn}'s first statement (a read answered from memory begins none)
     * and then checked: the catalog {@code fn} looked at before must be the one of the snapshot.
     * Multikey flags are set before the commit that needs them, so a flag seen false holds for a
     * snapshot pinned before the next mark; a catalog change or a mark between the read's start
     * and its snapshot makes it start over with the snapshot pinned first.
     * A statement that fails because a concurrent catalog change dropped its table is retried.
     * A text query that finds its index holding pending documents in its snapshot
     * ({@link PendingPostings.Lagging}) has the writer put them into FTS5, and runs again in a
     * snapshot the writer pins right after that commit: the index then holds exactly the
     * snapshot's documents, all of those committed before the query began.
     */
    private <T> T read(boolean snapshot, ReadFn<T> fn) {
        return read(snapshot, null, fn);
    }

    /** As {@link #read(boolean, ReadFn)}, its statements interrupted once {@code time} (if any) runs out. */
    private <T> T read(boolean snapshot, QueryTime time, ReadFn<T> fn) {
        String lagging = null;
        for (int attempt = 0; ; attempt++) {
            long generation = catalogGeneration.get();
            long multikeyMarks = Catalog.multikeyMarks();
            Sql sql = acquire();
            sql.limit(time);
            try {
                if (snapshot && lagging != null) {
                    String table = lagging;
                    writer.asked(writerSql -> pending.moveAll(writerSql, table), sql::beginSnapshot);
                } else if (snapshot && attempt == 0) {
                    // what fn reads in memory before its first statement holds for the snapshot only if
                    // no catalog change and no multikey mark came between (else: again, pinned first)
                    sql.deferSnapshot(() -> {
                        if (catalogGeneration.get() != generation || Catalog.multikeyMarks() != multikeyMarks) {
                            throw new Sql.StaleSnapshot();
                        }
                    });
                } else if (snapshot) {
                    sql.beginSnapshot();
                }
                T result = fn.apply(sql);
                sql.endSnapshot();
                return result;
            } catch (PendingPostings.Lagging e) {
                sql.limit(null);
                sql.abandonSnapshot();
                if (e.table().equals(lagging)) {
                    throw new IllegalStateException("text index " + e.table() + " still holds pending documents after moving them");
                }
                lagging = e.table(); // another table: the index was made again meanwhile
            } catch (SQLException e) {
                sql.limit(null);
                sql.abandonSnapshot();
                if (time != null && time.expired()) {
                    throw time.exceeded(); // interrupted by the progress handler
                }
                if ((e instanceof Sql.StaleSnapshot || catalogGeneration.get() != generation) && attempt < 3) {
                    continue;
                }
                throw new IllegalStateException("SQLite read failed: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                sql.limit(null);
                sql.abandonSnapshot();
                throw e;
            } finally {
                sql.limit(null);
                readers.add(sql);
            }
        }
    }

    private Sql acquire() {
        if (MemoryOnly.active()) {
            Sql idle = readers.poll();
            if (idle == null) {
                MemoryOnly.notNow();
            }
            return idle;
        }
        try {
            return readers.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WeftException(503, "interrupted while waiting for a read connection");
        }
    }

    // --- writes --------------------------------------------------------------------------

    /** Every write is hard here (synchronous=FULL, group-committed): {@code soft} is accepted as hard. */
    @Override
    public List<WriteResult> writeAll(List<WriteOp> ops, Durability durability) {
        if (ops.isEmpty()) {
            return List.of();
        }
        Catalog now = catalog;
        for (WriteOp op : ops) {
            requireColl(now, op.ns());
        }
        // Inserts are stamped and encoded here, on the callers' threads: the one writer is the
        // bottleneck of an ingest, and it only has to store the bytes.
        return writer.submit(ops.stream().map(this::prepare).toList());
    }

    /** Log frames the background checkpointer has copied into the database file (for tests). */
    long checkpointedFrames() {
        return checkpointer.framesCopied();
    }

    /** On the writer, inside the batch transaction: one op in its own savepoint (404 for a collection dropped meanwhile). */
    private WriteResult apply(Sql sql, WriteOp op, List<ChangeEvent> events) throws SQLException {
        Catalog.Coll coll = catalog.colls().get(op.ns());
        if (coll == null) {
            return WriteResult.failed(WriteResult.Outcome.NOT_FOUND, "collection " + op.ns() + " does not exist");
        }
        return engine.apply(sql, coll, op, events, true);
    }

    // --- transactions --------------------------------------------------------------------

    /** Writes wait in memory until commit: the single writer is never held across requests (see {@link Overlays}). */
    @Override
    public Transaction begin() {
        return overlays.begin();
    }

    /** A transaction's commit: every change checked and applied in one writer transaction, its events one commit. */
    private void commitOverlay(List<DocumentChange> changes, List<ChangeEvent> txnEvents) {
        Set<Namespace> touched = new LinkedHashSet<>();
        changes.forEach(c -> touched.add(c.ns()));
        writer.atomic((sql, logged) -> {
            for (DocumentChange change : changes) {
                Catalog.Coll coll = catalog.colls().get(change.ns());
                if (coll == null) {
                    throw WeftException.conflict(TxnErrors.WRITE_CONFLICT + ": collection " + change.ns() + " was dropped");
                }
                engine.applyChange(sql, coll, change);
            }
            logged.addAll(txnEvents);
            return null;
        }, touched);
    }

    /** On the writer thread, after COMMIT and before the writers are told. */
    private void afterCommit(Set<Namespace> touched, List<ChangeEvent> logged) {
        try {
            held.committed(touched, logged);
        } catch (RuntimeException e) {
            held.forgetAll(); // never a held collection that missed a commit; the commit's other work goes on
        }
        events.committed(logged);
        for (Namespace ns : touched) {
            bump(ns);
        }
        if (!logged.isEmpty() && !listeners.isEmpty()) {
            long commit = commitSeq.incrementAndGet();
            List<ChangeEvent> committed = List.copyOf(logged);
            for (CommitListener listener : listeners) {
                listener.committed(commit, committed);
            }
        }
    }

    /** On the writer thread, after a catalog change committed or rolled back: reload the catalog. */
    private void afterDdl() {
        held.forgetAll();
        Catalog before = catalog;
        try {
            catalog = Catalog.load(writerSql.connection(), json);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reload the catalog", e);
        }
        catalogGeneration.incrementAndGet();
        bumpChanged(before, catalog);
    }

    // --- for tests -----------------------------------------------------------------------

    /** Transactions committed (a group commit counts once). */
    long commits() {
        return writer.commits();
    }

    /** Queries planned, and how many of them read an index or a key range rather than everything. */
    long plans() {
        return engine.plans();
    }

    long indexedPlans() {
        return engine.indexedPlans();
    }

    /** The collections whose rows are held in memory now (for tests). */
    public Set<Namespace> heldCollections() {
        return held.held();
    }

    /** Queries read split (for tests). */
    public long splitScans() {
        return parallelScans.splitScans();
    }

    @Override
    public void close() {
        parallelScans.close();
        writer.close();
        checkpointer.close();
        writerSql.close();
        for (int i = 0; i < readerCount; i++) {
            acquire().close();
        }
        scanHelpers.forEach(Sql::close);
    }
}
