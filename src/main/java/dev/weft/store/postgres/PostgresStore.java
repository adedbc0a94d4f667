package dev.weft.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.Catalog;
import dev.weft.store.ChangeEvent;
import dev.weft.store.EventLog;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.store.Transaction;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.plan.QueryPlanner.Plan;
import dev.weft.store.sql.ParallelScans;
import dev.weft.store.sql.SqlConnection;
import dev.weft.store.plan.ProbeCache;
import dev.weft.store.sql.SqlEngine;
import dev.weft.store.sql.SqlStore;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;

/**
 * The production store: documents in PostgreSQL, several Weft nodes over one database.
 *
 * <p>Tables as in the SQLite store (see docs/decisions/0002-postgresql-store.md): the
 * {@link Catalog} tables, per collection {@code d<id>(id bytea PRIMARY KEY, body bytea)}
 * where {@code id} is the order-preserving {@link dev.weft.query.KeyEncoding} of {@code _id} and
 * {@code body} the exact bytes served (schema version 5; before it a {@code doc jsonb} copy too,
 * see {@link PgSchema#dropDocumentCopies}); per index
 * {@code i<id>(key bytea, id bytea, PRIMARY KEY(key, id))}, with a unique index on {@code key}
 * for a unique index. What a query or a write does to them is the {@link SqlEngine}'s
 * ({@link PostgresDialect}); this class puts together what only PostgreSQL needs, each in a class
 * of its own: the catalog cache and its notifications ({@link PgCatalog}), where reads run
 * (replicas, snapshots, timeouts: {@link PgReads}), write transactions and their retries
 * ({@link PgWrites}), the event log every node shares ({@link PgEventLog}), and catalog changes,
 * here.
 *
 * <p>Catalog changes are serialised across nodes by an advisory lock, planned against the
 * catalog as committed (read under that lock), and notify the other nodes in their transaction;
 * an index change locks its collection's table in SHARE mode (waiting for the writes in flight)
 * and bumps its {@code gen}, which makes the writes planned with the old indexes re-plan
 * ({@link PgWrites}: writes take no lock on the catalog). Every node also
 * invalidates its cached results ({@link #version}) from the events it reads, so a lost
 * notification delays an invalidation by at most {@code stream-poll-ms}.
 *
 * <p>{@link Durability#SOFT} writes commit with {@code synchronous_commit = off}. Every wait for
 * the database is bounded ({@link PgConnections}); a failure of the database is a 503
 * ({@link PgFailures}), and the store recovers by itself when the database is back: the pools
 * open new connections, and the listener reconnects and reloads everything it may have missed.
 */
public final class PostgresStore extends SqlStore {
    private final Settings settings;
    private final HikariDataSource pool;
    private final Replicas replicas;
    private final long lockKey;
    private final PgCatalog catalog;
    private final PgReads reads;
    private final PgWrites writes;
    private final PgEventLog events;
    private final WriteNotifier notifier;
    private final ParallelScans parallelScans;
    private final PgTransactions txns;
    private final KnownDocuments known;
    /** The group writers' connections, one each: never waiting behind the requests' reads for the main pool. */
    private final HikariDataSource groupPool;
    /** Single-document reads of the primary, many requests' in one statement (null: each read alone). */
    private final PgGroupReader groupReader;
    /** The group readers' connections, one each. */
    private final HikariDataSource readerPool;

    public PostgresStore(Settings settings, Json json) {
        super(json, new SqlEngine(new PostgresDialect(), json, settings.queryTimeoutMs(), settings.maxSortBytes(),
                settings.trigramProbeCap(), new ProbeCache(settings.planProbeCacheMs(), settings.planProbeCacheEntries())));
        this.settings = settings;
        PgUrl url = PgUrl.parse(settings.store());
        this.pool = PgConnections.pool(url, settings, "weft-pg", false);
        String channel;
        try (Connection c = pool.getConnection()) {
            String schema;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_schema()")) {
                rs.next();
                schema = rs.getString(1);
            }
            channel = "weft_" + schema.replaceAll("[^A-Za-z0-9_]", "_");
            lockKey = 0x5745_4654_0000_0000L ^ schema.hashCode();
            createSchema(c, url.jdbc());
        } catch (WeftException e) { // a schema newer than this node: the reason is the whole message
            pool.close();
            throw e;
        } catch (SQLException e) {
            pool.close();
            throw new IllegalStateException("cannot open the PostgreSQL store at " + url.jdbc() + ": " + e.getMessage(), e);
        }
        this.replicas = new Replicas(settings);
        notifier = new WriteNotifier(pool, channel, PgFailures.OUTAGES);
        this.catalog = new PgCatalog(pool, url, settings, json, channel, this::bump, this::bumpChanged, () -> events().wake(),
                notifier::sentBy);
        this.reads = new PgReads(pool, replicas, catalog, engine.dialect(), settings.pgStatementTimeoutMs());
        events = new PgEventLog(pool, () -> PgConnections.connect(url, settings), json, settings.streamRetentionEvents(),
                settings.streamRetentionMs(), settings.streamPollMs());
        // every node's reader sees every write's events: the invalidation that cannot be lost
        events.addCommitListener((top, written) -> written.forEach(e -> bump(e.ns())));
        events.start();
        this.known = new KnownDocuments(settings.pgKnownDocumentsBytes());
        this.groupPool = ownPool(url, settings, "weft-pg-group", settings.pgGroupWriters());
        this.readerPool = ownPool(url, settings, "weft-pg-reader", settings.pgReaders());
        this.groupReader = readerPool == null ? null : new PgGroupReader(readerPool, reads::isStaleCatalog,
                settings.pgReaders(), settings.pgReadQueueLength(), settings.pgReadGroupMax());
        this.writes = new PgWrites(pool, catalog, engine, events, notifier, this::bump, known, groupPool,
                settings.pgGroupWriters(), settings.pgGroupQueueLength(), settings.pgGroupMax());
        this.parallelScans = new ParallelScans(new PgScanHelpers(pool), settings.parallelScans(), settings.scanParts(),
                settings.scanSplitMinRows());
        engine.splitWith(parallelScans);
        this.txns = new PgTransactions(url, settings, catalog, engine, events, notifier, this::bump);
        catalog.listen();
    }

    /** A pool of {@code size} connections for threads of the store's own (null when there are none). */
    private static HikariDataSource ownPool(PgUrl url, Settings settings, String name, int size) {
        if (size == 0) {
            return null;
        }
        HikariDataSource pool = PgConnections.pool(url, settings, name, true);
        pool.getHikariConfigMXBean().setMaximumPoolSize(size);
        pool.getHikariConfigMXBean().setMinimumIdle(size);
        return pool;
    }

    /** The catalog is loaded before the event log exists, so its notifications reach the log through this. */
    private PgEventLog events() {
        return events;
    }

    /**
     * Creates or converts Weft's tables in one transaction under the schema lock, and stamps their
     * version ({@link PgSchema}) in it when it changed; refuses a schema newer than this node.
     */
    private void createSchema(Connection c, String where) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_xact_lock(" + lockKey + ")");
            int stamped = PgSchema.check(s, where);
            s.execute("CREATE TABLE IF NOT EXISTS weft_dbs(name text PRIMARY KEY, props bytea NOT NULL, etag text NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS weft_colls(id bigserial PRIMARY KEY, db text NOT NULL, name text NOT NULL,"
                    + " props bytea NOT NULL, etag text NOT NULL, gen bigint NOT NULL DEFAULT 0, UNIQUE(db, name))");
            s.execute("CREATE TABLE IF NOT EXISTS weft_indexes(id bigserial PRIMARY KEY, coll bigint NOT NULL,"
                    + " name text NOT NULL, fields bytea NOT NULL, uniq integer NOT NULL, multikey integer NOT NULL,"
                    + " UNIQUE(coll, name))");
            if (stamped < PgSchema.VERSION) {
                PgSchema.dropDocumentCopies(s); // before PgEventLog locks the event rows (see there)
            }
            PgEventLog.createSchema(s, stamped);
            PgWrites.createSchema(s);
            ((PostgresDialect) engine.dialect()).installTrigrams(s);
            engine.rebuildOldTextIndexes(new dev.weft.store.sql.SqlConnection(c), Catalog.load(c, json));
            if (stamped < PgSchema.VERSION) {
                PgSchema.keepWideRowsInline(s);
                PgSchema.stamp(s);
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    // --- catalog (the rules are AbstractStore's, the statements the engine's; here the transaction and its locks) ---

    @Override
    protected Catalog catalog() {
        return catalog.current();
    }

    @Override
    protected Catalog catalog(Predicate<Catalog> holds) {
        return catalog.fresh(() -> holds.test(catalog.current()));
    }

    /**
     * A catalog change: one transaction holding the cluster-wide catalog lock, planned against the
     * catalog as committed (read under that lock), notifying every node at commit.
     */
    @Override
    protected <R> R ddl(Ddl<SqlConnection, R> fn) {
        try (SqlConnection sql = new SqlConnection(pool.getConnection())) {
            Connection c = sql.connection();
            c.setAutoCommit(false);
            try {
                sql.exec("SELECT pg_advisory_xact_lock(" + lockKey + ")");
                R result = fn.run(sql, Catalog.load(c, json));
                catalog.notifyChange(c);
                c.commit();
                events.wake(); // a drop logged its event
                return result;
            } catch (SQLException | RuntimeException e) {
                PgFailures.rollbackQuietly(c, e);
                throw e;
            } finally {
                catalog.reload();
            }
        } catch (SQLException e) {
            throw PgFailures.unavailable("catalog change failed", e);
        }
    }

    /** Also logs the drop, in the same transaction: every node's streams of the collection are invalidated. */
    @Override
    protected void dropTables(SqlConnection sql, Catalog.Coll coll) throws SQLException {
        events.append(sql, List.of(ChangeEvent.dropped(coll.ns())));
        super.dropTables(sql, coll);
    }

    @Override
    protected void addIndex(SqlConnection sql, Catalog.Coll coll, IndexSpec spec) throws SQLException {
        bumpGen(sql, coll);
        super.addIndex(sql, coll, spec);
    }

    @Override
    protected void removeIndex(SqlConnection sql, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        bumpGen(sql, coll);
        super.removeIndex(sql, coll, index);
    }

    /**
     * Waits for the writes in flight (their rows hold the table's ROW EXCLUSIVE lock until they
     * commit), holds back new ones until this change commits, and makes every write that planned
     * with the old indexes fail its catalog check and retry (see {@link PgWrites}).
     */
    private static void bumpGen(SqlConnection sql, Catalog.Coll coll) throws SQLException {
        sql.exec("LOCK TABLE " + coll.table() + " IN SHARE MODE");
        var ps = sql.prepare("UPDATE weft_colls SET gen = gen + 1 WHERE id = ?");
        ps.setLong(1, coll.id());
        ps.executeUpdate();
    }

    // --- reads ---------------------------------------------------------------------------

    /**
     * On the primary, through the {@link PgGroupReader} when there is one; alone (on a pooled
     * connection, or a replica for an outdated read) otherwise, or when the group handed it back.
     */
    @Override
    public Optional<StoredDocument> get(Namespace ns, JsonNode id, ReadMode mode) {
        if (groupReader != null && (mode == ReadMode.SINGLE || !replicas.configured())) {
            Catalog.Coll coll = coll(ns);
            byte[] key = AbstractDocumentWrites.key(id);
            byte[] seen = known.get(coll.table(), key);
            byte[] body = groupReader.read(coll.table(), key);
            if (body != PgGroupReader.ALONE) {
                byte[] stored = body.length == 0 ? null : body;
                known.replace(coll.table(), key, seen, stored);
                return Optional.ofNullable(stored).map(StoredDocument::new);
            }
        }
        return reads.read(mode, false, () -> true, sql -> {
            Catalog.Coll coll = coll(ns);
            byte[] key = AbstractDocumentWrites.key(id);
            byte[] seen = known.get(coll.table(), key);
            Optional<StoredDocument> doc = engine.get(sql, coll, id);
            if (mode == ReadMode.SINGLE) { // a replica's bytes may be older than what this node knows
                known.replace(coll.table(), key, seen, doc.map(StoredDocument::json).orElse(null));
            }
            return doc;
        });
    }

    /** Every chunk in one snapshot on one connection, handed out as it is read. */
    @Override
    public void find(Namespace ns, FindQuery query, ReadMode mode, Consumer<StoredDocument> out) {
        QueryTime time = QueryTime.start(settings.queryTimeoutMs());
        boolean[] sent = {false};
        Consumer<StoredDocument> sink = doc -> {
            sent[0] = true;
            time.pause();
            out.accept(doc);
            time.resume();
        };
        SqlEngine.Find find = engine.find(query, time);
        if (find.done()) {
            return;
        }
        reads.read(mode, true, () -> !sent[0], reads.timed(time, sql -> {
            List<StoredDocument> chunk = find.first(sql, coll(ns));
            while (true) {
                chunk.forEach(sink);
                if (find.done()) {
                    return null;
                }
                chunk = find.next(sql);
            }
        }));
    }

    @Override
    public long count(Namespace ns, Filter filter, ReadMode mode) {
        QueryTime time = QueryTime.start(settings.queryTimeoutMs());
        return reads.read(mode, true, () -> true, reads.timed(time, sql -> engine.count(sql, coll(ns), filter, time)));
    }

    @Override
    public void scanParts(Namespace ns, Filter filter, ReadMode mode, int parts,
                          IntFunction<Consumer<StoredDocument>> sinkOfPart) {
        QueryTime time = QueryTime.start(settings.queryTimeoutMs());
        java.util.concurrent.atomic.AtomicBoolean sent = new java.util.concurrent.atomic.AtomicBoolean();
        reads.read(mode, true, () -> !sent.get(), reads.timed(time, sql -> {
            engine.scanParts(sql, coll(ns), filter, time, parts, part -> {
                Consumer<StoredDocument> sink = sinkOfPart.apply(part);
                return doc -> {
                    sent.set(true);
                    sink.accept(doc);
                };
            });
            return null;
        }));
    }

    /** Queries read split (for tests). */
    public long splitScans() {
        return parallelScans.splitScans();
    }

    private Catalog.Coll coll(Namespace ns) {
        return requireColl(catalog.fresh(() -> catalog.current().colls().containsKey(ns)), ns);
    }

    /** The collection, or 404 (for the write path, which plans with a catalog snapshot of its own). */
    static Catalog.Coll requireCollection(Catalog cat, Namespace ns) {
        return requireColl(cat, ns);
    }

    // --- writes --------------------------------------------------------------------------

    /** See {@link PgWrites}. */
    @Override
    public List<WriteResult> writeAll(List<WriteOp> ops, Durability durability) {
        return ops.isEmpty() ? List.of() : writes.writeAll(ops, durability);
    }

    /** See {@link PgTransactions}: a connection held from begin to commit or abort. */
    @Override
    public Transaction begin() {
        return txns.begin();
    }

    // --- for tests -----------------------------------------------------------------------

    /** Transactions group commit committed, and the writes in them (0, 0 without group commit). */
    public long groupCommits() {
        return writes.group() == null ? 0 : writes.group().commits();
    }

    public long groupedWrites() {
        return writes.group() == null ? 0 : writes.group().committedWrites();
    }

    /** Writes that failed inside a group and ran again alone. */
    public long groupRolledBackWrites() {
        return writes.group() == null ? 0 : writes.group().rolledBackWrites();
    }

    /** One-burst groups that ran again with savepoints, and why the last one did (0, "" without group commit). */
    long failedGroupBursts() {
        return writes.group() == null ? 0 : writes.group().failedBursts();
    }

    String lastGroupBurstFailure() {
        return writes.group() == null ? "" : writes.group().lastBurstFailure();
    }

    /** Makes the next group wait for {@code writes} writes, at most {@code maxMs}. */
    /** The catalog's listener (for tests: which write notifications it skipped or heard). */
    PgCatalog pgCatalog() {
        return catalog;
    }

    void gatherNextGroup(int count, long maxMs) {
        writes.group().gather(count, maxMs);
    }

    /** Makes the next group of reads wait for {@code count} reads, at most {@code maxMs}. */
    void gatherNextReads(int count, long maxMs) {
        groupReader.gather(count, maxMs);
    }

    /** Runs {@code hook} in each group's transaction just before its commit burst. */
    void beforeGroupCommit(PgGroupWriter.BeforeCommit hook) {
        writes.group().beforeCommit(hook);
    }

    public long plans() {
        return engine.plans();
    }

    public long indexedPlans() {
        return engine.indexedPlans();
    }

    // --- change events -------------------------------------------------------------------

    /** The event log shared by every node on this database (see {@link PgEventLog}). */
    @Override
    public EventLog eventLog() {
        return events;
    }

    /** Statements the group readers ran, and the reads they answered (0, 0 without them). */
    public long groupReadStatements() {
        return groupReader == null ? 0 : groupReader.statements();
    }

    public long groupedReads() {
        return groupReader == null ? 0 : groupReader.groupedReads();
    }

    @Override
    public void close() {
        if (groupReader != null) {
            groupReader.close();
            readerPool.close();
        }
        if (writes.group() != null) {
            writes.group().close();
            groupPool.close();
        }
        parallelScans.close();
        txns.close();
        catalog.close();
        notifier.close();
        events.close();
        replicas.close();
        pool.close();
    }
}
