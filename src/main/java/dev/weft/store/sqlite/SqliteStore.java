package dev.weft.store.sqlite;

import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.KeyEncoding;
import dev.weft.query.Sort;
import dev.weft.query.StoredMatcher;
import dev.weft.store.Catalog;
import dev.weft.store.AbstractStore;
import dev.weft.store.ChangeEvent;
import dev.weft.store.CommitListener;
import dev.weft.store.EventLog;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.plan.QueryPlanner;
import dev.weft.store.plan.TopK;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.sqlite.SQLiteConfig;
import tools.jackson.databind.JsonNode;

/**
 * The embedded store: one SQLite file {@code <data>/weft.db} in WAL mode with
 * {@code synchronous=FULL}. It has no replicas: every {@link ReadMode} reads this file, and
 * every write is hard ({@link Durability#SOFT} is accepted and written as hard). One writer connection owned by the {@link Writer} thread
 * (group commit), and a pool of {@code sqlite-readers} read connections: SQLite's native calls
 * pin the carrier thread, so at most that many virtual threads are inside SQLite at once. The
 * {@link Checkpointer} copies the write-ahead log back into the file off the writer's thread.
 *
 * <p>Each collection is a table {@code d<id>(id BLOB PRIMARY KEY, body BLOB) WITHOUT ROWID}
 * where {@code id} is the order-preserving encoding of {@code _id} (so the table's order is
 * MongoDB's order of {@code _id}) and {@code body} the document's JSON exactly as served. Each
 * index is a table {@code i<id>(key, id)} maintained in the writer's transaction.
 */
public final class SqliteStore extends AbstractStore<Sql> implements EventLog {
    private static final int CHUNK_ROWS = 1000;
    private static final int CHUNK_BYTES = 1 << 20;
    private static final Filter ALL = Filter.all();
    /** How often the log is copied back: often enough that it stays a few MB under load. */
    private static final long CHECKPOINT_MS = 100;

    private final Sql writerSql;
    private final Writer writer;
    private final SqliteDocumentWrites docs;
    private final Checkpointer checkpointer;
    private final BlockingQueue<Sql> readers;
    private final int readerCount;
    private final long queryTimeoutMs;
    private final long maxSortBytes;
    private volatile Catalog catalog;
    private final AtomicLong catalogGeneration = new AtomicLong();
    private final AtomicLong commitSeq = new AtomicLong();
    private final List<CommitListener> listeners = new CopyOnWriteArrayList<>();
    private final EventTable events;
    /** Writer thread only: the events of the catalog change running, logged in its transaction. */
    private List<ChangeEvent> ddlEvents;
    private final AtomicLong plans = new AtomicLong();
    private final AtomicLong indexedPlans = new AtomicLong();
    private volatile QueryPlanner.Plan<Catalog.Index> lastPlan;
    private final ParallelScan parallel;

    public SqliteStore(Settings settings, Json json) {
        super(json);
        Path file = settings.data().resolve("weft.db");
        try {
            Files.createDirectories(settings.data());
            writerSql = new Sql(open(file, false));
            for (String ddl : Schema.TABLES) {
                writerSql.exec(ddl);
            }
            for (String ddl : EventTable.SCHEMA) {
                writerSql.exec(ddl);
            }
            writerSql.exec("PRAGMA wal_autocheckpoint = " + settings.sqliteWalPages());
            checkpointer = new Checkpointer(open(file, false), CHECKPOINT_MS);
            events = new EventTable(json, settings.streamRetentionEvents(), settings.streamRetentionMs());
            events.load(writerSql);
            catalog = Catalog.load(writerSql.connection(), json);
            readerCount = settings.sqliteReaders();
            readers = new ArrayBlockingQueue<>(readerCount);
            for (int i = 0; i < readerCount; i++) {
                Sql reader = new Sql(open(file, true));
                reader.interruptible();
                readers.add(reader);
            }
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("cannot open the SQLite store at " + file + ": " + e.getMessage(), e);
        }
        parallel = new ParallelScan(readers, settings.parallelScans(), settings.parallelScanMinRows());
        queryTimeoutMs = settings.queryTimeoutMs();
        maxSortBytes = settings.maxSortBytes();
        docs = new SqliteDocumentWrites(json, queryTimeoutMs, () -> catalog, () -> true); // the event log records every change
        writer = new Writer(writerSql, settings.writeQueueLength(), settings.writeBatchMax(), docs,
                (sql, changes) -> events.append(sql, changes, System.currentTimeMillis()), this::afterCommit, this::afterDdl);
    }

    private static Connection open(Path file, boolean reader) throws SQLException {
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
        config.setBusyTimeout(10_000);
        config.setCacheSize(-16_000);
        // Weft never asks for generated keys; with this on, sqlite-jdbc matches every statement
        // against an INSERT regex and runs a SELECT last_insert_rowid() after each insert.
        config.setGetGeneratedKeys(false);
        Connection c = config.createConnection("jdbc:sqlite:" + file);
        if (reader) {
            try (var s = c.createStatement()) {
                s.execute("PRAGMA query_only = 1");
                s.execute("PRAGMA mmap_size = 268435456");
            }
        }
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
    protected <R> R ddl(Ddl<Sql, R> fn) {
        return writer.ddl((sql, logged) -> {
            ddlEvents = logged;
            try {
                return fn.run(sql, catalog);
            } finally {
                ddlEvents = null;
            }
        });
    }

    @Override
    protected void saveDatabase(Sql sql, String db, byte[] props, String etag) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT OR REPLACE INTO weft_dbs(name, props, etag) VALUES (?, ?, ?)");
        ps.setString(1, db);
        ps.setBytes(2, props);
        ps.setString(3, etag);
        ps.executeUpdate();
    }

    @Override
    protected void deleteDatabase(Sql sql, String db) throws SQLException {
        PreparedStatement ps = sql.prepare("DELETE FROM weft_dbs WHERE name = ?");
        ps.setString(1, db);
        ps.executeUpdate();
    }

    @Override
    protected void updateCollection(Sql sql, Catalog.Coll old, byte[] props, String etag) throws SQLException {
        PreparedStatement ps = sql.prepare("UPDATE weft_colls SET props = ?, etag = ? WHERE id = ?");
        ps.setBytes(1, props);
        ps.setString(2, etag);
        ps.setLong(3, old.id());
        ps.executeUpdate();
    }

    @Override
    protected void insertCollection(Sql sql, Namespace ns, byte[] props, String etag) throws SQLException {
        PreparedStatement ps = sql.prepare("INSERT INTO weft_colls(db, name, props, etag) VALUES (?, ?, ?, ?)");
        ps.setString(1, ns.db());
        ps.setString(2, ns.coll());
        ps.setBytes(3, props);
        ps.setString(4, etag);
        ps.executeUpdate();
        long id = lastInsertId(sql);
        sql.exec("CREATE TABLE d" + id + "(id BLOB PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID");
    }

    /**
     * Runs on the writer: hides the collection from new reads first, then drops its tables and
     * rows, and logs the drop (its streams are invalidated when it commits).
     */
    @Override
    protected void dropTables(Sql sql, Catalog.Coll coll) throws SQLException {
        ddlEvents.add(ChangeEvent.dropped(coll.ns()));
        catalog = catalog.without(coll.ns());
        catalogGeneration.incrementAndGet();
        for (Catalog.Index index : coll.indexes()) {
            sql.exec("DROP TABLE IF EXISTS " + index.table());
        }
        sql.exec("DROP TABLE IF EXISTS " + coll.table());
        PreparedStatement ps = sql.prepare("DELETE FROM weft_indexes WHERE coll = ?");
        ps.setLong(1, coll.id());
        ps.executeUpdate();
        ps = sql.prepare("DELETE FROM weft_colls WHERE id = ?");
        ps.setLong(1, coll.id());
        ps.executeUpdate();
    }

    private static long lastInsertId(Sql sql) throws SQLException {
        try (ResultSet rs = sql.prepare("SELECT last_insert_rowid()").executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // --- indexes -------------------------------------------------------------------------

    @Override
    protected void addIndex(Sql sql, Catalog.Coll coll, IndexSpec spec) throws SQLException {
        Schema.insertIndexRow(sql, json, coll.id(), spec, false);
        long id = lastInsertId(sql);
        Catalog.Index index = new Catalog.Index(id, spec, false);
        sql.exec("CREATE TABLE " + index.table() + "(key BLOB NOT NULL, id BLOB NOT NULL, PRIMARY KEY(key, id)) WITHOUT ROWID");
        build(sql, coll, index);
    }

    /** Fills a new index from every document; a unique index with duplicates fails (409), leaving nothing. */
    private void build(Sql sql, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        PreparedStatement insert = sql.prepare("INSERT OR IGNORE INTO " + index.table() + "(key, id) VALUES (?, ?)");
        boolean multikey = false;
        try (ResultSet rs = sql.prepare("SELECT id, body FROM " + coll.table()).executeQuery()) {
            while (rs.next()) {
                byte[] id = rs.getBytes(1);
                JsonNode doc = json.parse(rs.getBytes(2), "stored document");
                multikey |= KeyEncoding.isMultikey(doc, index.fields());
                for (byte[] key : SqliteDocumentWrites.keys(index, doc)) {
                    insert.setBytes(1, key);
                    insert.setBytes(2, id);
                    insert.executeUpdate();
                }
            }
        }
        if (index.spec().unique()) {
            String dup = "SELECT 1 FROM " + index.table() + " GROUP BY key HAVING count(*) > 1 LIMIT 1";
            try (ResultSet rs = sql.prepare(dup).executeQuery()) {
                if (rs.next()) {
                    throw WeftException.conflict("cannot build unique index " + index.spec().name()
                            + ": some documents share a key");
                }
            }
        }
        if (multikey) {
            PreparedStatement ps = sql.prepare("UPDATE weft_indexes SET multikey = 1 WHERE id = ?");
            ps.setLong(1, index.id());
            ps.executeUpdate();
        }
    }

    /** Runs on the writer: hides the index from new reads first, then drops its table and row. */
    @Override
    protected void removeIndex(Sql sql, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        catalog = catalog.withoutIndex(coll.ns(), index.spec().name());
        catalogGeneration.incrementAndGet();
        sql.exec("DROP TABLE IF EXISTS " + index.table());
        PreparedStatement ps = sql.prepare("DELETE FROM weft_indexes WHERE id = ?");
        ps.setLong(1, index.id());
        ps.executeUpdate();
    }

    // --- reads ---------------------------------------------------------------------------

    @Override
    public Optional<StoredDocument> get(Namespace ns, JsonNode id, ReadMode mode) {
        byte[] key = SqliteDocumentWrites.key(id);
        return read(false, sql -> {
            PreparedStatement ps = sql.prepare("SELECT body FROM " + requireColl(catalog, ns).table() + " WHERE id = ?");
            ps.setBytes(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(new StoredDocument(rs.getBytes(1))) : Optional.empty();
            }
        });
    }

    @Override
    public void find(Namespace ns, FindQuery query, ReadMode mode, Consumer<StoredDocument> sink) {
        Filter filter = query.filter();
        Sort sort = query.sort();
        long skip = query.skip();
        long limit = query.limit();
        if (limit <= 0) {
            return;
        }
        boolean everything = filter == ALL;
        Optional<String> hint = query.hint();
        QueryTime time = QueryTime.start(queryTimeoutMs);
        Find f = new Find(filter, StoredMatcher.of(json, filter, sort), everything, skip, limit, time);
        List<byte[]> out = read(true, time, sql -> {
            Catalog.Coll coll = requireColl(catalog, ns);
            QueryPlanner.Plan<Catalog.Index> plan = Planner.plan(sql, coll, filter, sort, skip, limit, hint);
            noted(plan);
            f.plan = plan;
            f.left = limit; // a retried attempt starts over
            if (!plan.ordered()) {
                return f.heap(sql, coll, sort);
            }
            f.scan = new Scan(coll, plan, filter, everything ? skip : 0);
            f.toSkip = everything ? f.scan.unskipped() : skip;
            return f.chunk(sql);
        });
        while (true) {
            time.pause();
            out.forEach(body -> sink.accept(new StoredDocument(body)));
            if (f.done) {
                return;
            }
            time.resume();
            out = read(true, time, sql -> {
                if (f.plan.index() != null) {
                    String name = f.plan.index().spec().name();
                    Optional<Catalog.Index> now = requireColl(catalog, ns).index(name);
                    if (now.isEmpty() || now.get().id() != f.plan.index().id() || now.get().multikey()) {
                        throw new WeftException(503, "the index " + name + " was dropped or became multikey during"
                                + " this read, so its order no longer holds; retry the read");
                    }
                }
                return f.chunk(sql);
            });
        }
    }

    /** The state of one find between chunks. */
    private final class Find {
        final Filter filter;
        final StoredMatcher matcher;
        final boolean everything;
        final long skip;
        long left;
        long toSkip;
        QueryPlanner.Plan<Catalog.Index> plan;
        Scan scan;
        boolean done;
        final QueryTime time;

        Find(Filter filter, StoredMatcher matcher, boolean everything, long skip, long limit, QueryTime time) {
            this.time = time;
            this.filter = filter;
            this.matcher = matcher;
            this.everything = everything;
            this.skip = skip;
            this.left = limit;
        }

        /** The next matches of an ordered plan, at most a chunk; sets {@link #done} at the end. */
        List<byte[]> chunk(Sql sql) throws SQLException {
            List<byte[]> out = new ArrayList<>();
            long[] bytes = {0};
            boolean exhausted = scan.read(sql, CHUNK_ROWS, (id, body) -> {
                time.row();
                if (!everything && !matcher.matches(body)) {
                    return true;
                }
                if (toSkip > 0) {
                    toSkip--;
                    return true;
                }
                out.add(body);
                left--;
                bytes[0] += body.length;
                return left > 0 && bytes[0] < CHUNK_BYTES;
            });
            done = exhausted || left <= 0;
            return out;
        }

        /** Reads every candidate and keeps the first skip+limit in sort order (then _id ascending). */
        List<byte[]> heap(Sql sql, Catalog.Coll coll, Sort sort) throws SQLException {
            done = true;
            if (plan.ranges() == null) {
                TopK top = new TopK(sort, skip, left, maxSortBytes);
                for (TopK part : parallel.run(sql, coll, time, (on, range) -> {
                    TopK kept = new TopK(sort, skip, left, maxSortBytes);
                    ParallelScan.rows(on, coll, filter, range, (id, body) -> offer(kept, on == sql, id, body));
                    return kept;
                })) {
                    top.offerAll(part);
                }
                return top.result();
            }
            TopK top = new TopK(sort, skip, left, maxSortBytes);
            Scan.candidates(sql, coll, plan, filter, (id, body) -> offer(top, true, id, body));
            return top.result();
        }

        /** Keeps a candidate that matches; {@code counted} on the query's own thread (QueryTime is not shared). */
        private boolean offer(TopK top, boolean counted, byte[] id, byte[] body) {
            if (counted) {
                time.row();
            }
            JsonNode doc = matcher.readIfMatches(body);
            if (doc != null) {
                top.offer(id, body, doc);
            }
            return true;
        }
    }

    @Override
    public long count(Namespace ns, Filter filter, ReadMode mode) {
        Filter f = filter == null ? ALL : filter;
        QueryTime time = QueryTime.start(queryTimeoutMs);
        return read(true, time, sql -> {
            Catalog.Coll coll = requireColl(catalog, ns);
            if (f == ALL) {
                try (ResultSet rs = sql.prepare("SELECT count(*) FROM " + coll.table()).executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
            QueryPlanner.Plan<Catalog.Index> plan = Planner.plan(sql, coll, f, null, 0, Long.MAX_VALUE, Optional.empty());
            noted(plan);
            StoredMatcher matcher = StoredMatcher.of(json, f, null);
            if (plan.ranges() == null) {
                long total = 0;
                for (long part : parallel.run(sql, coll, time, (on, range) -> {
                    long[] n = {0};
                    ParallelScan.rows(on, coll, f, range, (id, body) -> {
                        if (on == sql) {
                            time.row();
                        }
                        n[0] += matcher.matches(body) ? 1 : 0;
                        return true;
                    });
                    return n[0];
                })) {
                    total += part;
                }
                return total;
            }
            long[] n = {0};
            Scan.candidates(sql, coll, plan, f, (id, body) -> {
                time.row();
                if (matcher.matches(body)) {
                    n[0]++;
                }
                return true;
            });
            return n[0];
        });
    }

    private interface ReadFn<T> {
        T apply(Sql sql) throws SQLException;
    }

    /**
     * Runs {@code fn} on a pooled read connection. With {@code snapshot}, inside one read
     * transaction that is pinned before {@code fn} looks at the catalog (multikey flags are set
     * before the commit that needs them, so a flag seen false after the snapshot holds for it).
     * A statement that fails because a concurrent catalog change dropped its table is retried.
     */
    private <T> T read(boolean snapshot, ReadFn<T> fn) {
        return read(snapshot, null, fn);
    }

    /** As {@link #read(boolean, ReadFn)}, its statements interrupted once {@code time} (if any) runs out. */
    private <T> T read(boolean snapshot, QueryTime time, ReadFn<T> fn) {
        for (int attempt = 0; ; attempt++) {
            long generation = catalogGeneration.get();
            Sql sql = acquire();
            sql.limit(time);
            try {
                if (snapshot) {
                    sql.control("BEGIN");
                    try (ResultSet rs = sql.prepare("SELECT count(*) FROM weft_dbs").executeQuery()) {
                        rs.next();
                    }
                }
                T result = fn.apply(sql);
                if (snapshot) {
                    sql.control("COMMIT");
                }
                return result;
            } catch (SQLException e) {
                sql.limit(null);
                rollback(sql, snapshot);
                if (time != null && time.expired()) {
                    throw time.exceeded(); // interrupted by the progress handler
                }
                if (catalogGeneration.get() != generation && attempt < 3) {
                    continue;
                }
                throw new IllegalStateException("SQLite read failed: " + e.getMessage(), e);
            } catch (RuntimeException e) {
                sql.limit(null);
                rollback(sql, snapshot);
                throw e;
            } finally {
                sql.limit(null);
                readers.add(sql);
            }
        }
    }

    private static void rollback(Sql sql, boolean snapshot) {
        if (snapshot) {
            try {
                sql.control("ROLLBACK");
            } catch (SQLException ignored) {
                // no transaction left
            }
        }
    }

    private Sql acquire() {
        try {
            return readers.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WeftException(503, "interrupted while waiting for a read connection");
        }
    }

    private void noted(QueryPlanner.Plan<Catalog.Index> plan) {
        lastPlan = plan;
        plans.incrementAndGet();
        if (plan.usesIndex()) {
            indexedPlans.incrementAndGet();
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

    @Override
    public WriteOp prepare(WriteOp op) {
        return docs.prepare(op);
    }

    /** On the writer thread, after COMMIT and before the writers are told. */
    private void afterCommit(Set<Namespace> touched, List<ChangeEvent> logged) {
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
        return plans.get();
    }

    long indexedPlans() {
        return indexedPlans.get();
    }

    QueryPlanner.Plan<Catalog.Index> lastPlan() {
        return lastPlan;
    }

    /** Full scans split into ranges read in parallel. */
    long splitScans() {
        return parallel.splitScans();
    }

    @Override
    public void close() {
        writer.close();
        checkpointer.close();
        writerSql.close();
        for (int i = 0; i < readerCount; i++) {
            acquire().close();
        }
    }
}
