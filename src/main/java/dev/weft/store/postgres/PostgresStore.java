package dev.weft.store.postgres;

import dev.weft.store.OutageLog;
import com.zaxxer.hikari.HikariDataSource;
import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.ReadMode;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.KeyEncoding;
import dev.weft.query.KeyRange;
import dev.weft.query.Sort;
import dev.weft.query.StoredMatcher;
import dev.weft.store.Catalog;
import dev.weft.store.AbstractStore;
import dev.weft.store.ChangeEvent;
import dev.weft.store.AbstractDocumentWrites;
import dev.weft.store.DuplicateKey;
import dev.weft.store.EventLog;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import dev.weft.store.plan.QueryPlanner.Plan;
import dev.weft.store.plan.QueryPlanner;
import dev.weft.store.plan.TextPrefilter;
import dev.weft.store.plan.TopK;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The production store: documents in PostgreSQL, several Weft nodes over one database.
 *
 * <p>Tables as in the SQLite store (see docs/decisions/0002-postgresql-store.md): the
 * {@link Catalog} tables, per collection {@code d<id>(id bytea PRIMARY KEY, body bytea, doc jsonb)}
 * where {@code id} is the order-preserving {@link dev.weft.query.KeyEncoding} of {@code _id},
 * {@code body} the exact bytes served and {@code doc} the same document as JSONB; per index
 * {@code i<id>(key bytea, id bytea, PRIMARY KEY(key, id))}, with a unique index on {@code key}
 * for a unique index. bytea compares like memcmp, so the {@link QueryPlanner}'s key ranges and
 * orders are PostgreSQL's, and the planner is the SQLite store's.
 *
 * <p>Writes run concurrently, each call in one transaction on a pooled connection, and lock
 * what they read. A write first takes a share lock on its collection's catalog row and checks
 * that row's {@code gen} against the catalog it planned with; index changes bump {@code gen}
 * under an exclusive row lock, so no write maintains a stale set of indexes, on any node.
 * Catalog changes are serialised across nodes by an advisory lock and notify ({@code pg_notify})
 * the other nodes in their transaction, which reload their catalog within a fraction of a second.
 * Document writes notify after commit ({@link WriteNotifier}: a notifying transaction would
 * commit alone), and every node also invalidates its cached results ({@link #version}) from the
 * events it reads, so a lost notification delays an invalidation by at most {@code stream-poll-ms}.
 *
 * <p>{@link ReadMode#OUTDATED} reads may run on a streaming replica ({@link Replicas}); the
 * catalog is always the primary's, and a replica that lacks a table it names (it has not replayed
 * its creation yet) sends the read to the primary. {@link Durability#SOFT} writes commit with
 * {@code synchronous_commit = off}. Every wait for the database is bounded
 * ({@link PgConnections}); a failure of the database is a 503 ({@link #unavailable}), and the
 * store recovers by itself when the database is back: the pools open new connections, and the
 * listener reconnects and reloads everything it may have missed.
 */
public final class PostgresStore extends AbstractStore<Connection> {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresStore.class);
    /** One warning per 5 s while PostgreSQL is down, however many requests fail. */
    private static final OutageLog OUTAGES = new OutageLog(LOG, 5000);
    private static final int FETCH_ROWS = 500;
    private static final int BUILD_BATCH = 1000;
    private static final int ATTEMPTS = 8;
    private static final Filter ALL = Filter.all();
    private static final String QUERY_CANCELED = "57014";

    private final Settings settings;
    private final PgUrl url;
    private final HikariDataSource pool;
    private final Replicas replicas;
    private final PostgresDocumentWrites docs;
    private final String channel;
    private final long lockKey;
    private volatile Catalog catalog;
    /**
     * The catalog and the {@code gen} of each collection it was loaded with, published together:
     * a write must check the gens of the very catalog it plans with, or a reload between the two
     * reads would let it skip an index another node just made.
     */
    private record Planned(Catalog catalog, Map<Long, Long> gens) {}

    private volatile Planned planned = new Planned(null, Map.of());
    private final AtomicLong plans = new AtomicLong();
    private final AtomicLong indexedPlans = new AtomicLong();
    private volatile Plan<Catalog.Index> lastPlan;
    private final Thread listener;
    /** Open once the listener's first LISTEN is in place and the catalog reloaded after it. */
    private final java.util.concurrent.CountDownLatch listening = new java.util.concurrent.CountDownLatch(1);
    private final PgEventLog events;
    private final WriteNotifier notifier;
    private volatile boolean closed;

    public PostgresStore(Settings settings, Json json) {
        super(json);
        this.settings = settings;
        this.url = PgUrl.parse(settings.store());
        this.pool = PgConnections.pool(url, settings, "weft-pg", false);
        this.docs = new PostgresDocumentWrites(json, settings.queryTimeoutMs(), this);
        try (Connection c = pool.getConnection()) {
            String schema;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_schema()")) {
                rs.next();
                schema = rs.getString(1);
            }
            channel = "weft_" + schema.replaceAll("[^A-Za-z0-9_]", "_");
            lockKey = 0x5745_4654_0000_0000L ^ schema.hashCode();
            createSchema(c);
        } catch (SQLException e) {
            pool.close();
            throw new IllegalStateException("cannot open the PostgreSQL store at " + url.jdbc() + ": " + e.getMessage(), e);
        }
        this.replicas = new Replicas(settings);
        reload();
        events = new PgEventLog(pool, json, settings.streamRetentionEvents(), settings.streamRetentionMs(), settings.streamPollMs());
        // every node's reader sees every write's events: the invalidation that cannot be lost
        events.addCommitListener((top, written) -> written.forEach(e -> bump(e.ns())));
        events.start();
        notifier = new WriteNotifier(pool, channel, OUTAGES);
        listener = Thread.ofPlatform().name("weft-pg-listener").daemon(true).start(this::listen);
        awaitListening();
    }

    /**
     * Serves nothing before other nodes' notifications reach this one: the listener's first
     * connect reloads everything (changes since the first load may have been missed), which, once
     * credentials and results are cached, would throw them all away. Bounded by
     * {@code pg-startup-wait-ms}; past it the node starts anyway and the reload comes later.
     */
    private void awaitListening() {
        try {
            if (!listening.await(settings.pgStartupWaitMs(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                LOG.warn("PostgreSQL notifications are not listened to yet; starting anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void createSchema(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_xact_lock(" + lockKey + ")");
            s.execute("CREATE TABLE IF NOT EXISTS weft_dbs(name text PRIMARY KEY, props bytea NOT NULL, etag text NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS weft_colls(id bigserial PRIMARY KEY, db text NOT NULL, name text NOT NULL,"
                    + " props bytea NOT NULL, etag text NOT NULL, gen bigint NOT NULL DEFAULT 0, UNIQUE(db, name))");
            s.execute("CREATE TABLE IF NOT EXISTS weft_indexes(id bigserial PRIMARY KEY, coll bigint NOT NULL,"
                    + " name text NOT NULL, fields bytea NOT NULL, uniq integer NOT NULL, multikey integer NOT NULL,"
                    + " UNIQUE(coll, name))");
            PgEventLog.createSchema(s);
            c.commit();
        } catch (SQLException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    // --- catalog cache and notifications -----------------------------------------------------

    /** Loads the catalog in one snapshot and publishes it; the collections it changed get new versions. */
    private void reload() {
        reload(false);
    }

    /**
     * Loads the catalog in one snapshot and publishes it. {@code everything}: every collection gets
     * a new version (notifications of document writes may have been missed); otherwise only
     * those the catalog change created, dropped or changed, so that a DDL elsewhere leaves the
     * users collection's version, and every remembered login, alone.
     */
    private synchronized void reload(boolean everything) {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            }
            Catalog fresh = Catalog.load(c, json);
            Map<Long, Long> g = new HashMap<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, gen FROM weft_colls")) {
                while (rs.next()) {
                    g.put(rs.getLong(1), rs.getLong(2));
                }
            }
            c.commit();
            Catalog before = catalog;
            catalog = fresh;
            planned = new Planned(fresh, Map.copyOf(g));
            if (before == null) {
                return; // the first load: nothing is cached yet
            }
            if (everything) {
                before.colls().keySet().forEach(this::bump);
                fresh.colls().keySet().forEach(this::bump);
            } else {
                bumpChanged(before, fresh);
            }
        } catch (SQLException e) {
            throw unavailable("cannot load the catalog", e);
        }
    }

    /**
     * Listens on its own connection for the commits of every node: {@code w<coll id>} a document
     * write (invalidates that collection's cached results), {@code c} a catalog change (reloads the
     * catalog). After a lost connection it reconnects and reloads everything, since notifications
     * may have been missed meanwhile.
     */
    private void listen() {
        while (!closed) {
            try (Connection c = PgConnections.connect(url, settings)) {
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + channel);
                }
                reload(true);
                listening.countDown();
                PGConnection pg = c.unwrap(PGConnection.class);
                while (!closed) {
                    PGNotification[] notes = pg.getNotifications(250);
                    if (notes == null) {
                        continue;
                    }
                    boolean catalogChanged = false;
                    for (PGNotification n : notes) {
                        String p = n.getParameter();
                        if (p.startsWith("w")) {
                            events.wake();
                            long id = Long.parseLong(p.substring(1));
                            for (Catalog.Coll coll : catalog.colls().values()) {
                                if (coll.id() == id) {
                                    bump(coll.ns());
                                }
                            }
                        } else {
                            catalogChanged = true;
                        }
                    }
                    if (catalogChanged) {
                        reload();
                        events.wake(); // another node's drop logged its event
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                OUTAGES.warn("PostgreSQL notifications lost, reconnecting", String.valueOf(e.getMessage()));
                try {
                    Thread.sleep(500);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private static void notify(Connection c, String channel, String payload) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            ps.setString(1, channel);
            ps.setString(2, payload);
            ps.executeQuery().close();
        }
    }

    // --- catalog (the rules are AbstractStore's; here the transaction, its locks and the SQL) ---

    @Override
    protected Catalog catalog() {
        return catalog;
    }

    @Override
    protected Catalog catalog(Predicate<Catalog> holds) {
        return fresh(() -> holds.test(catalog));
    }

    @Override
    protected void saveDatabase(Connection c, String db, byte[] props, String etag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO weft_dbs(name, props, etag) VALUES (?, ?, ?)"
                + " ON CONFLICT (name) DO UPDATE SET props = EXCLUDED.props, etag = EXCLUDED.etag")) {
            ps.setString(1, db);
            ps.setBytes(2, props);
            ps.setString(3, etag);
            ps.executeUpdate();
        }
    }

    @Override
    protected void deleteDatabase(Connection c, String db) throws SQLException {
        update(c, "DELETE FROM weft_dbs WHERE name = ?", db);
    }

    @Override
    protected void updateCollection(Connection c, Catalog.Coll old, byte[] props, String etag) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE weft_colls SET props = ?, etag = ? WHERE id = ?")) {
            ps.setBytes(1, props);
            ps.setString(2, etag);
            ps.setLong(3, old.id());
            ps.executeUpdate();
        }
    }

    @Override
    protected void insertCollection(Connection c, Namespace ns, byte[] props, String etag) throws SQLException {
        long id;
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO weft_colls(db, name, props, etag) VALUES (?, ?, ?, ?) RETURNING id")) {
            ps.setString(1, ns.db());
            ps.setString(2, ns.coll());
            ps.setBytes(3, props);
            ps.setString(4, etag);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                id = rs.getLong(1);
            }
        }
        exec(c, "CREATE TABLE d" + id + "(id bytea PRIMARY KEY, body bytea NOT NULL, doc jsonb NOT NULL)");
    }

    /** Also logs the drop, in the same transaction: every node's streams of the collection are invalidated. */
    @Override
    protected void dropTables(Connection c, Catalog.Coll coll) throws SQLException {
        // the row lock first: writers holding a share lock on it finish, later ones find it gone
        update(c, "DELETE FROM weft_colls WHERE id = ?", coll.id());
        events.append(c, List.of(ChangeEvent.dropped(coll.ns())));
        for (Catalog.Index index : coll.indexes()) {
            exec(c, "DROP TABLE IF EXISTS " + index.table());
        }
        exec(c, "DROP TABLE IF EXISTS " + coll.table());
        update(c, "DELETE FROM weft_indexes WHERE coll = ?", coll.id());
    }

    // --- indexes -------------------------------------------------------------------------

    @Override
    protected void addIndex(Connection c, Catalog.Coll coll, IndexSpec spec) throws SQLException {
        bumpGen(c, coll);
        long id;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO weft_indexes(coll, name, fields, uniq, multikey)"
                + " VALUES (?, ?, ?, ?, 0) RETURNING id")) {
            ps.setLong(1, coll.id());
            ps.setString(2, spec.name());
            ps.setBytes(3, Catalog.encodeSpec(json, spec));
            ps.setInt(4, spec.unique() ? 1 : 0);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                id = rs.getLong(1);
            }
        }
        Catalog.Index index = new Catalog.Index(id, spec, false);
        exec(c, "CREATE TABLE " + index.table() + "(key bytea NOT NULL, id bytea NOT NULL, PRIMARY KEY(key, id))");
        build(c, coll, index);
    }

    /** Fills a new index from every document; a unique index with duplicates fails (409), leaving nothing. */
    private void build(Connection c, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        boolean multikey = false;
        List<byte[]> keys = new ArrayList<>();
        List<byte[]> ids = new ArrayList<>();
        String insert = "INSERT INTO " + index.table() + "(key, id) SELECT * FROM unnest(?::bytea[], ?::bytea[])"
                + " ON CONFLICT DO NOTHING";
        try (PreparedStatement scan = c.prepareStatement("SELECT id, body FROM " + coll.table());
             PreparedStatement ins = c.prepareStatement(insert)) {
            scan.setFetchSize(FETCH_ROWS);
            try (ResultSet rs = scan.executeQuery()) {
                while (rs.next()) {
                    byte[] id = rs.getBytes(1);
                    JsonNode doc = json.parse(rs.getBytes(2), "stored document");
                    multikey |= KeyEncoding.isMultikey(doc, index.fields());
                    for (byte[] key : AbstractDocumentWrites.keys(index, doc)) {
                        keys.add(key);
                        ids.add(id);
                    }
                    if (keys.size() >= BUILD_BATCH) {
                        flushKeys(c, ins, keys, ids);
                    }
                }
            }
            flushKeys(c, ins, keys, ids);
        }
        if (index.spec().unique()) {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT 1 FROM " + index.table() + " GROUP BY key HAVING count(*) > 1 LIMIT 1")) {
                if (rs.next()) {
                    throw WeftException.conflict("cannot build unique index " + index.spec().name()
                            + ": some documents share a key");
                }
            }
            exec(c, "CREATE UNIQUE INDEX " + index.table() + "_u ON " + index.table() + "(key)");
        }
        if (multikey) {
            update(c, "UPDATE weft_indexes SET multikey = 1 WHERE id = ?", index.id());
        }
    }

    private static void flushKeys(Connection c, PreparedStatement ins, List<byte[]> keys, List<byte[]> ids)
            throws SQLException {
        if (!keys.isEmpty()) {
            ins.setArray(1, PostgresDocumentWrites.array(c, keys));
            ins.setArray(2, PostgresDocumentWrites.array(c, ids));
            ins.executeUpdate();
            keys.clear();
            ids.clear();
        }
    }

    @Override
    protected void removeIndex(Connection c, Catalog.Coll coll, Catalog.Index index) throws SQLException {
        bumpGen(c, coll);
        exec(c, "DROP TABLE IF EXISTS " + index.table());
        update(c, "DELETE FROM weft_indexes WHERE id = ?", index.id());
    }

    /** Waits for the writes that planned with the old indexes, and makes later ones reload. */
    private static void bumpGen(Connection c, Catalog.Coll coll) throws SQLException {
        update(c, "UPDATE weft_colls SET gen = gen + 1 WHERE id = ?", coll.id());
    }

    /**
     * A catalog change: one transaction holding the cluster-wide catalog lock, planned against the
     * catalog as committed (read under that lock), notifying every node at commit.
     */
    @Override
    protected <R> R ddl(Ddl<Connection, R> fn) {
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            try {
                exec(c, "SELECT pg_advisory_xact_lock(" + lockKey + ")");
                R result = fn.run(c, Catalog.load(c, json));
                notify(c, channel, "c");
                c.commit();
                events.wake(); // a drop logged its event
                return result;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c, e);
                throw e;
            } finally {
                reload();
            }
        } catch (SQLException e) {
            throw unavailable("catalog change failed", e);
        }
    }

    // --- reads ---------------------------------------------------------------------------

    @Override
    public Optional<StoredDocument> get(Namespace ns, JsonNode id, ReadMode mode) {
        byte[] key = AbstractDocumentWrites.key(id);
        return read(mode, false, () -> true, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT body FROM " + coll(ns).table() + " WHERE id = ?")) {
                ps.setBytes(1, key);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(new StoredDocument(rs.getBytes(1))) : Optional.empty();
                }
            }
        });
    }

    @Override
    public void find(Namespace ns, FindQuery query, ReadMode mode, Consumer<StoredDocument> out) {
        Filter filter = query.filter();
        Sort sort = query.sort();
        long skip = query.skip();
        long limit = query.limit();
        if (limit <= 0) {
            return;
        }
        boolean everything = filter == ALL;
        Optional<String> hint = query.hint();
        boolean[] sent = {false};
        QueryTime time = QueryTime.start(settings.queryTimeoutMs());
        Consumer<StoredDocument> sink = doc -> {
            sent[0] = true;
            time.pause();
            out.accept(doc);
            time.resume();
        };
        read(mode, true, () -> !sent[0], timed(time, c -> {
            Catalog.Coll coll = coll(ns);
            Plan<Catalog.Index> plan = plan(c, coll, filter, sort, skip, limit, hint);
            StoredMatcher matcher = StoredMatcher.of(json, filter, sort);
            if (!plan.ordered()) {
                TopK top = new TopK(sort, skip, limit, settings.maxSortBytes());
                candidates(c, coll, plan, filter, (id, body) -> {
                    time.row();
                    JsonNode doc = matcher.readIfMatches(body);
                    if (doc != null) {
                        top.offer(id, body, doc);
                    }
                });
                top.result().forEach(body -> sink.accept(new StoredDocument(body)));
                return null;
            }
            walk(c, coll, plan, filter, everything ? skip : 0, everything ? limit : Long.MAX_VALUE, new Rows() {
                long toSkip = everything ? 0 : skip;
                long left = limit;

                @Override
                public boolean row(byte[] id, byte[] body) {
                    time.row();
                    if (!everything && !matcher.matches(body)) {
                        return true;
                    }
                    if (toSkip > 0) {
                        toSkip--;
                        return true;
                    }
                    sink.accept(new StoredDocument(body));
                    return --left > 0;
                }
            });
            return null;
        }));
    }

    @Override
    public long count(Namespace ns, Filter filter, ReadMode mode) {
        Filter f = filter == null ? ALL : filter;
        QueryTime time = QueryTime.start(settings.queryTimeoutMs());
        return read(mode, true, () -> true, timed(time, c -> {
            Catalog.Coll coll = coll(ns);
            if (f == ALL) {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + coll.table())) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
            long[] n = {0};
            StoredMatcher matcher = StoredMatcher.of(json, f, null);
            candidates(c, coll, f, (id, body) -> {
                time.row();
                if (matcher.matches(body)) {
                    n[0]++;
                }
            });
            return n[0];
        }));
    }

    /**
     * {@code fn} in a snapshot transaction under the query's time limit: PostgreSQL's own
     * {@code statement_timeout} lowered to the time left, and its cancel then answered as the
     * limit's error (while the rows it hands to Java are checked by {@code time} itself).
     */
    private <T> ReadFn<T> timed(QueryTime time, ReadFn<T> fn) {
        return c -> {
            long left = time.remainingMs();
            boolean ours = left < settings.pgStatementTimeoutMs();
            if (ours) {
                exec(c, "SET LOCAL statement_timeout = " + left);
            }
            try {
                return fn.apply(c);
            } catch (SQLException e) {
                if (ours && QUERY_CANCELED.equals(e.getSQLState())) {
                    throw time.exceeded();
                }
                throw e;
            }
        };
    }

    /**
     * The planner's plan, checked against the snapshot: an index the cached catalog believes
     * single-key may have become multikey on another node; its flag is read in this transaction,
     * and if it is set the query is planned again knowing it.
     */
    private Plan<Catalog.Index> plan(Connection c, Catalog.Coll coll, Filter filter, Sort sort, long skip, long limit,
                                     Optional<String> hint) throws SQLException {
        while (true) {
            Plan<Catalog.Index> plan = QueryPlanner.plan(coll.ns().toString(), coll.indexes(), filter, sort, skip, limit,
                    hint, (index, ranges, cap) -> probe(c, coll, index, ranges, cap));
            Catalog.Index index = plan.index();
            if (index != null && !index.multikey()) {
                try (PreparedStatement ps = c.prepareStatement("SELECT multikey FROM weft_indexes WHERE id = ?")) {
                    ps.setLong(1, index.id());
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new SQLException("index dropped meanwhile", "42P01");
                        }
                        if (rs.getInt(1) != 0) {
                            index.markMultikey();
                            continue;
                        }
                    }
                }
            }
            lastPlan = plan;
            plans.incrementAndGet();
            if (plan.usesIndex()) {
                indexedPlans.incrementAndGet();
            }
            return plan;
        }
    }

    private static long probe(Connection c, Catalog.Coll coll, Catalog.Index index, List<KeyRange> ranges, long cap)
            throws SQLException {
        String table = index == null ? coll.table() : index.table();
        String column = index == null ? "id" : "key";
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM (SELECT 1 FROM " + table + " WHERE "
                + column + " >= ? AND " + column + " <= ? LIMIT ?) s")) {
            return QueryPlanner.Probe.countRanges(ps, ranges, cap);
        }
    }

    /** Receives one row; returns false to stop reading. */
    interface Rows {
        boolean row(byte[] id, byte[] body) throws SQLException;
    }

    /** Receives every row. */
    interface AllRows {
        void row(byte[] id, byte[] body) throws SQLException;
    }

    /** Walks an ordered plan's ranges in order, each streamed through a cursor. */
    private static void walk(Connection c, Catalog.Coll coll, Plan<Catalog.Index> plan, Filter filter, long offset,
                             long limit, Rows rows) throws SQLException {
        List<KeyRange> ranges = plan.ranges() == null ? java.util.Collections.singletonList(null) : plan.ranges();
        if (plan.descending()) {
            ranges = ranges.reversed();
        }
        boolean pushSkip = ranges.size() == 1;
        String dir = plan.descending() ? " DESC" : "";
        String select = plan.index() == null
                ? "SELECT d.id, d.body FROM " + coll.table() + " d WHERE %s ORDER BY d.id" + dir
                : "SELECT i.id, d.body FROM " + plan.index().table() + " i JOIN " + coll.table()
                        + " d ON d.id = i.id WHERE %s ORDER BY i.key" + dir + ", i.id";
        TextPrefilter prefilter = TextPrefilter.of(filter, TextPrefilter.Dialect.POSTGRESQL, "d.body");
        String column = plan.index() == null ? "d.id" : "i.key";
        for (KeyRange r : ranges) {
            String sql = String.format(select, (r == null ? "true" : column + " >= ? AND " + column + " <= ?")
                            + prefilter.sql())
                    + (pushSkip && limit != Long.MAX_VALUE ? " LIMIT " + limit : "")
                    + (pushSkip && offset > 0 ? " OFFSET " + offset : "");
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setFetchSize(FETCH_ROWS);
                if (r != null) {
                    ps.setBytes(1, r.low());
                    ps.setBytes(2, r.high());
                }
                prefilter.bind(ps, r == null ? 1 : 3);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        if (!rows.row(rs.getBytes(1), rs.getBytes(2))) {
                            return;
                        }
                    }
                }
            }
        }
    }

    /** Every candidate document of the filter, once each, in no order (for counts and bulk writes). */
    void candidates(Connection c, Catalog.Coll coll, Filter filter, AllRows rows) throws SQLException {
        candidates(c, coll, plan(c, coll, filter, null, 0, Long.MAX_VALUE, Optional.empty()), filter, rows);
    }

    private static void candidates(Connection c, Catalog.Coll coll, Plan<Catalog.Index> plan, Filter filter, AllRows rows)
            throws SQLException {
        List<KeyRange> ranges = plan.ranges();
        String sql;
        TextPrefilter prefilter = TextPrefilter.of(filter, TextPrefilter.Dialect.POSTGRESQL, "d.body");
        if (ranges == null) {
            sql = "SELECT d.id, d.body FROM " + coll.table() + " d WHERE true";
        } else if (ranges.isEmpty()) {
            return;
        } else {
            String r = "unnest(?::bytea[], ?::bytea[]) AS r(lo, hi)";
            sql = plan.index() == null
                    ? "SELECT d.id, d.body FROM " + r + " JOIN " + coll.table() + " d ON d.id >= r.lo AND d.id <= r.hi"
                    : "SELECT d.id, d.body FROM " + coll.table() + " d WHERE d.id IN (SELECT i.id FROM " + r + " JOIN "
                            + plan.index().table() + " i ON i.key >= r.lo AND i.key <= r.hi)";
        }
        try (PreparedStatement ps = c.prepareStatement(sql + prefilter.sql())) {
            ps.setFetchSize(FETCH_ROWS);
            if (ranges != null) {
                ps.setArray(1, PostgresDocumentWrites.array(c, ranges.stream().map(KeyRange::low).toList()));
                ps.setArray(2, PostgresDocumentWrites.array(c, ranges.stream().map(KeyRange::high).toList()));
            }
            prefilter.bind(ps, ranges == null ? 1 : 3);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.row(rs.getBytes(1), rs.getBytes(2));
                }
            }
        }
    }

    private interface ReadFn<T> {
        T apply(Connection c) throws SQLException;
    }

    /**
     * Runs {@code fn} on a pooled connection; with {@code snapshot}, in one repeatable-read
     * transaction. An {@link ReadMode#OUTDATED} read runs on a replica when one is in; if that
     * fails before anything was handed out ({@code untouched}), it runs on the primary instead.
     * A statement that fails on the primary because another node dropped its table reloads the
     * catalog and runs again (then usually finds the collection gone: 404).
     */
    private <T> T read(ReadMode mode, boolean snapshot, java.util.function.BooleanSupplier untouched, ReadFn<T> fn) {
        Optional<Replicas.Replica> replica = mode == ReadMode.OUTDATED ? replicas.pick() : Optional.empty();
        if (replica.isPresent()) {
            try {
                return readOn(replica.get().pool(), snapshot, fn);
            } catch (SQLException e) {
                replicas.failed(replica.get(), e);
                if (!untouched.getAsBoolean()) {
                    throw unavailable("read failed on " + replica.get().name(), e);
                }
            }
        }
        for (int attempt = 0; ; attempt++) {
            try {
                return readOn(pool, snapshot, fn);
            } catch (SQLException e) {
                if (isStaleCatalog(e) && attempt < 3) {
                    reload();
                    continue;
                }
                throw unavailable("read failed", e);
            }
        }
    }

    private static <T> T readOn(HikariDataSource from, boolean snapshot, ReadFn<T> fn) throws SQLException {
        try (Connection c = from.getConnection()) {
            try {
                if (snapshot) {
                    c.setAutoCommit(false);
                    exec(c, "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
                }
                T result = fn.apply(c);
                if (snapshot) {
                    c.commit();
                }
                return result;
            } catch (SQLException | RuntimeException e) {
                if (snapshot) {
                    rollbackQuietly(c, e);
                }
                throw e;
            }
        }
    }

    /** A rollback on a connection that may be broken; its failure is added to the cause, not thrown. */
    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    // --- writes --------------------------------------------------------------------------

    /**
     * All ops in one transaction, each in a savepoint when there are several (a failing op
     * undoes only itself). Retried from the start when the catalog changed underneath, on a
     * deadlock or serialization failure, and when an upsert lost a race to insert the same _id.
     * A {@link Durability#SOFT} transaction runs with {@code synchronous_commit = off}: its commit
     * returns before its WAL is flushed.
     */
    @Override
    public List<WriteResult> writeAll(List<WriteOp> ops, Durability durability) {
        if (ops.isEmpty()) {
            return List.of();
        }
        for (int attempt = 0; ; attempt++) {
            // asks the snapshot it will plan with: a reload publishes the catalog before it
            fresh(() -> ops.stream().allMatch(op -> planned.catalog().colls().containsKey(op.ns())));
            Planned plan = planned;
            Catalog cat = plan.catalog();
            for (WriteOp op : ops) {
                requireColl(cat, op.ns());
            }
            Set<Catalog.Coll> touched = new LinkedHashSet<>();
            List<ChangeEvent> changes = new ArrayList<>();
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                try {
                    if (durability == Durability.SOFT) {
                        exec(c, "SET LOCAL synchronous_commit = off");
                    }
                    List<WriteResult> results = run(c, plan, ops, touched, changes);
                    if (results == null) {
                        c.rollback();
                        reload();
                        continue;
                    }
                    if (touched.isEmpty()) {
                        c.rollback();
                    } else {
                        events.append(c, changes);
                        c.commit();
                        events.wake();
                        notifier.written(touched.stream().map(Catalog.Coll::id).toList());
                        touched.forEach(coll -> bump(coll.ns()));
                    }
                    if (attempt < ATTEMPTS && lostUpsertRace(ops, results)) {
                        continue;
                    }
                    return results;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c, e);
                    throw e;
                }
            } catch (SQLException e) {
                String state = e.getSQLState();
                if (attempt < ATTEMPTS && ("40001".equals(state) || "40P01".equals(state) || isStaleCatalog(e))) {
                    if (isStaleCatalog(e)) {
                        reload();
                    }
                    continue;
                }
                if ("23505".equals(state) && ops.size() == 1) {
                    if (attempt < ATTEMPTS && upsert(ops.getFirst()) && e.getMessage().contains("_pkey")) {
                        continue;
                    }
                    return List.of(WriteResult.failed(WriteResult.Outcome.CONFLICT, uniqueMessage(e)));
                }
                throw unavailable("write failed", e);
            }
        }
    }

    /**
     * The ops' results, or null when the catalog this node planned with is stale. Locks each
     * collection's catalog row in share mode first (see {@link #bumpGen}).
     */
    private List<WriteResult> run(Connection c, Planned plan, List<WriteOp> ops, Set<Catalog.Coll> touched,
                                  List<ChangeEvent> changes) throws SQLException {
        Catalog cat = plan.catalog();
        Set<Catalog.Coll> colls = new LinkedHashSet<>();
        ops.forEach(op -> colls.add(cat.colls().get(op.ns())));
        try (PreparedStatement ps = c.prepareStatement("SELECT gen FROM weft_colls WHERE id = ? FOR SHARE")) {
            for (Catalog.Coll coll : colls) {
                ps.setLong(1, coll.id());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) != plan.gens().getOrDefault(coll.id(), -1L)) {
                        return null;
                    }
                }
            }
        }
        boolean savepoints = ops.size() > 1;
        List<WriteResult> results = new ArrayList<>(ops.size());
        for (WriteOp op : ops) {
            Catalog.Coll coll = cat.colls().get(op.ns());
            Savepoint sp = savepoints ? c.setSavepoint() : null;
            WriteResult result;
            int mark = changes.size();
            try {
                result = docs.apply(c, coll, op, changes);
            } catch (WeftException e) {
                result = WriteResult.failed(e);
            } catch (SQLException e) {
                if (!savepoints || !"23505".equals(e.getSQLState())) {
                    throw e;
                }
                result = WriteResult.failed(WriteResult.Outcome.CONFLICT, uniqueMessage(e));
            }
            if (!result.ok()) {
                changes.subList(mark, changes.size()).clear();
                if (savepoints) {
                    c.rollback(sp);
                } else {
                    c.rollback();
                }
            } else {
                touched.add(coll);
                if (savepoints) {
                    c.releaseSavepoint(sp);
                }
            }
            results.add(result);
        }
        return results;
    }

    private static boolean upsert(WriteOp op) {
        return (op instanceof WriteOp.Replace r && r.mode() == WriteOp.WriteMode.UPSERT)
                || (op instanceof WriteOp.UpdateOne u && u.mode() == WriteOp.WriteMode.UPSERT);
    }

    /** A single upsert that found no document, then met one inserted meanwhile: run it again. */
    private static boolean lostUpsertRace(List<WriteOp> ops, List<WriteResult> results) {
        return ops.size() == 1 && upsert(ops.getFirst())
                && results.getFirst().outcome() == WriteResult.Outcome.CONFLICT
                && DuplicateKey.isId(results.getFirst().message().orElse(""));
    }

    private String uniqueMessage(SQLException e) {
        String text = String.valueOf(e.getMessage());
        for (Catalog.Coll coll : catalog.colls().values()) {
            for (Catalog.Index index : coll.indexes()) {
                if (text.contains("\"" + index.table() + "_u\"")) {
                    return DuplicateKey.uniqueIndex(index.spec().name());
                }
            }
        }
        return DuplicateKey.other(text);
    }

    // --- helpers -------------------------------------------------------------------------

    /** The catalog, reloaded first when {@code present} says the cache lacks what was asked for. */
    private Catalog fresh(java.util.function.BooleanSupplier present) {
        if (!present.getAsBoolean()) {
            reload();
        }
        return catalog;
    }

    private Catalog.Coll coll(Namespace ns) {
        return requireColl(fresh(() -> catalog.colls().containsKey(ns)), ns);
    }

    private static boolean isStaleCatalog(SQLException e) {
        return "42P01".equals(e.getSQLState());
    }

    /**
     * A failure of the database rather than of the request: 503, saying so. PostgreSQL's own text
     * stays in the log. Its data exceptions and program limits (SQLSTATE classes 22 and 54) are
     * the request's fault, not an outage: 400, and no retry hint for input that cannot succeed
     * (the door refuses what is known; this is the net under it).
     */
    private static WeftException unavailable(String what, SQLException e) {
        OUTAGES.warn(what, e.getMessage());
        String state = String.valueOf(e.getSQLState());
        if (state.startsWith("22") || state.startsWith("54")) {
            return WeftException.badRequest("PostgreSQL cannot store or compare a value of this request (SQLSTATE "
                    + state + ")");
        }
        return new WeftException(503, "PostgreSQL is unavailable (" + what + "); the server log has the details");
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void update(Connection c, String sql, Object arg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setObject(1, arg);
            ps.executeUpdate();
        }
    }

    // --- for tests -----------------------------------------------------------------------

    public long plans() {
        return plans.get();
    }

    public long indexedPlans() {
        return indexedPlans.get();
    }

    public Plan<Catalog.Index> lastPlan() {
        return lastPlan;
    }

    // --- change events -------------------------------------------------------------------

    /** The event log shared by every node on this database (see {@link PgEventLog}). */
    @Override
    public EventLog eventLog() {
        return events;
    }

    @Override
    public void close() {
        closed = true;
        notifier.close();
        events.close();
        listener.interrupt();
        try {
            listener.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        replicas.close();
        pool.close();
    }
}
