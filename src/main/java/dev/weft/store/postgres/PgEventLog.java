package dev.weft.store.postgres;

import dev.weft.store.OutageLog;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.store.ChangeEvent;
import dev.weft.store.CommitListener;
import dev.weft.store.EventLog;
import dev.weft.store.Namespace;
import dev.weft.store.sql.EventRows;
import dev.weft.store.sql.SqlConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL event log, shared by every Weft node on the database: table
 * {@code weft_events}, one row per changed document, written in the same transaction as the
 * writes, so an event exists if and only if its write committed (see
 * docs/decisions/0003-postgresql-change-events.md).
 *
 * <p>Order: a writing transaction inserts its events without a seq (only an {@code id} from an
 * identity column, taken in insert order) and their ids into {@code weft_event_pending}; it takes
 * no shared lock, so writers on every node commit in parallel. Seqs are given after commit by a
 * <em>sequencer</em>: any node's reader, holding the transaction-level advisory lock
 * {@link #SEQUENCER_LOCK}, takes every committed pending id, numbers them in id order in narrow
 * {@code weft_event_seqs(seq, id)} rows, continuing the counter row {@code weft_event_log('seq')},
 * and commits that together. Hence:
 * <ul>
 * <li>seq order is consistent with commit order: a sequencer's snapshot that sees a transaction
 *     also sees every transaction that committed before it started, and two writes of one
 *     document are ordered by its row lock, the second taking its event ids after the first
 *     committed;</li>
 * <li>seqs have no holes and appear a whole batch at a time, after every smaller seq (sequencers
 *     are serialised by the lock): every snapshot sees a prefix of the log;</li>
 * <li>an event gets its seq one sequencer commit (a WAL flush) after its write committed.</li>
 * </ul>
 * The wide event row (with the document after and before the write, ~2.6 KB for a 1 KB document)
 * is written once: an earlier version kept the seq in it, and the sequencer's UPDATE wrote every
 * event row a second time, WAL included (see the decision record's addendum of 2026-11-27).
 * An earlier design still took the seqs from the counter row inside the writing transaction; it held
 * that row lock through every COMMIT and so serialised all writes of all nodes (pgbench: 216
 * against 1,000 commits/s), see docs/decisions/0003-postgresql-change-events.md.
 *
 * <p>Delivery: each node runs one reader thread that reads the rows after the last seq it
 * published and hands them to the {@link CommitListener}s, in seq order. It reads on a connection
 * of its own, outside the pool: when requests hold every pooled connection (a thousand streams
 * resuming at once after a node died, writes waiting on a row lock), live events still reach
 * every open stream. It is woken at once by a
 * commit on this node ({@link #wake}) or a commit notification from another node, and reads at
 * least every {@code stream-poll-ms} regardless. So every node publishes the same events, in the
 * same order, under the same seqs, and a resume token (a seq) means the same on every node.
 *
 * <p>Retention: the reader of any node prunes, at most once a second, the events beyond
 * {@code stream-retention-events} or older than {@code stream-retention-ms} (by the database's
 * clock). It raises {@code weft_event_log('floor')} and deletes the prefix in one transaction;
 * {@link #after} reads the floor and the events in one snapshot, so it either returns events
 * with no gap or refuses with 410.
 */
final class PgEventLog implements EventLog {
    private static final Logger LOG = LoggerFactory.getLogger(PgEventLog.class);
    private final OutageLog outages = new OutageLog(LOG, 5000);
    private static final int READ_BATCH = 512;
    private static final int SEQUENCE_BATCH = 10_000;
    /** The advisory lock that serialises sequencers across nodes ("weft seq" in ASCII). */
    static final long SEQUENCER_LOCK = 0x77656674_20736571L;
    private static final long PRUNE_EVERY_MS = 1000;
    /** The reader vacuums {@code weft_event_pending} once it has numbered this many ids since its last vacuum, at most once per {@link #PRUNE_EVERY_MS}. */
    static final int VACUUM_PENDING_AFTER = 1000;
    /**
     * Clears the pending ids' dead rows and index entries ({@link #vacuumPending}). {@code SKIP_LOCKED}:
     * another node's reader (or autovacuum) vacuuming the table already is not waited for;
     * {@code TRUNCATE false}: never takes the table's exclusive lock, which writers' inserts would wait for.
     */
    static final String VACUUM_PENDING = "VACUUM (SKIP_LOCKED, TRUNCATE false) weft_event_pending";
    private static final long RETRY_MS = 500;
    /** The logged events that have a seq: a narrow row per seq, the event's own row joined by id. */
    private static final String SEQUENCED = "weft_event_seqs s JOIN weft_events e ON e.id = s.id";
    /**
     * Numbers the oldest pending events in id order: takes their ids out of
     * {@code weft_event_pending} and inserts a narrow {@code (seq, id)} row for each, continuing
     * the counter row. The wide event rows are not touched.
     *
     * <p>The ids to take are one array ({@code = ANY(ARRAY(...))}, read by the primary key) and
     * the batch size is in the text, so the plan never depends on a parameter: as {@code IN
     * (SELECT ... LIMIT ?)} PostgreSQL planned the statement again at each run and, expecting the
     * limit's rows, joined them by a hash over a sequential scan of the whole table. The table
     * is all dead rows but a few (every id is inserted, then deleted here), so that scan grew with
     * the writes: 6 MB after 15 s of YCSB workload A, where the events reader's backend took a
     * quarter of PostgreSQL's CPU, a third of that in the scan and the planning (decision record
     * 0003, addendum "the sequencer's plan").
     */
    static final String SEQUENCE = "WITH todo AS (DELETE FROM weft_event_pending WHERE id = ANY(ARRAY("
            + "SELECT id FROM weft_event_pending ORDER BY id LIMIT " + SEQUENCE_BATCH + ")) RETURNING id),"
            + " top AS (SELECT value FROM weft_event_log WHERE name = 'seq'),"
            + " done AS (INSERT INTO weft_event_seqs(seq, id) SELECT top.value + row_number() OVER (ORDER BY todo.id), todo.id"
            + " FROM todo, top RETURNING seq),"
            + " bump AS (UPDATE weft_event_log SET value = (SELECT max(seq) FROM done) WHERE name = 'seq'"
            + " AND EXISTS (SELECT 1 FROM done))"
            + " SELECT count(*) FROM done";
    /**
     * The seq rows after a position (parameter 1), at most a limit of them (parameter 2), and
     * their groups by {@code id - seq}. A group is <em>whole</em> when its ids are every integer
     * from its least to its greatest: then its events are exactly the event rows from its least
     * id on, as many as it has ids (every sequenced id has its event row, in the same snapshot:
     * the prune deletes both together), and each one's seq is its id minus the group's
     * difference. Seqs are given in id order within a sequencer batch, so the events of a batch
     * written one after another form one whole group; ids skipped (rolled back, or numbered in
     * another batch) end one.
     */
    private static final String SEQS_AFTER = "WITH s AS MATERIALIZED (SELECT seq, id FROM weft_event_seqs WHERE seq > ?"
            + " ORDER BY seq LIMIT ?), g AS (SELECT id - seq AS d, min(id) AS lo, max(id) AS hi,"
            + " count(*) = max(id) - min(id) + 1 AS whole FROM s GROUP BY id - seq) ";
    /**
     * {@link EventRows#READ} of the events of {@link #SEQS_AFTER}, in {@link EventRows#row}'s
     * order, rows in no particular order ({@link #BY_SEQ} sorts them): a whole group's by one
     * range scan of the event rows' primary key, any other seq's by its id. Joining every seq row
     * to its event row by id probed that key once per event (decision record 0003, reads of
     * 2026-11-27: 1,543 buffer accesses per 512 events against 84 this way).
     *
     * <p>Both branches reach the event rows through a {@code LATERAL} subquery with a limit, which
     * PostgreSQL cannot flatten into a join, so each is a probe of the primary key from the seq
     * row whatever the estimates: the reader runs this as a generic plan ({@link #byKeys}), whose
     * guess of a tenth of the log for {@code LIMIT ?} made a plain join of the other seqs a merge
     * join over the whole primary key of {@code weft_events}.
     */
    private static final String ROWS = "SELECT e.id - g.d AS seq, e.at, e.db, e.coll, e.op, e.key, e.doc, e.pre, e.upd"
            + " FROM g JOIN LATERAL (SELECT * FROM weft_events e WHERE e.id >= g.lo ORDER BY e.id LIMIT g.hi - g.lo + 1) e"
            + " ON true WHERE g.whole UNION ALL SELECT s.seq, e.at, e.db, e.coll, e.op, e.key, e.doc, e.pre, e.upd"
            + " FROM g JOIN s ON s.id - s.seq = g.d JOIN LATERAL (SELECT * FROM weft_events e WHERE e.id = s.id LIMIT 1) e"
            + " ON true WHERE NOT g.whole";
    /** The reader's event read: parameters after and limit. */
    static final String EVENTS_AFTER = SEQS_AFTER + ROWS;
    /** The bounds (seq, floor) beside the events after a position, one snapshot (one statement). */
    private static final String AFTER = SEQS_AFTER + "SELECT b.top, b.bottom, r.* FROM (SELECT max(value) FILTER (WHERE name = 'seq')"
            + " AS top, max(value) FILTER (WHERE name = 'floor') AS bottom FROM weft_event_log) b LEFT JOIN (" + ROWS + ") r ON true";
    private static final Comparator<ChangeEvent> BY_SEQ = Comparator.comparingLong(ChangeEvent::seq);
    private static final int DROP = ChangeEvent.Operation.DROP.ordinal();
    private static final String DB_NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

    /** Opens the reader's own connection (outside the pool; the same bounds). */
    interface Opener {
        Connection open() throws SQLException;
    }

    private final DataSource pool;
    private final Opener readerConnection;
    private final Json json;
    private final long keepCount;
    private final long keepMs;
    private final long pollMs;
    private final List<CommitListener> listeners = new CopyOnWriteArrayList<>();
    private final Semaphore wakes = new Semaphore(0);
    /** Ids this node's sequencer numbered since its last vacuum of the pending table (the reader thread's alone). */
    private long sequencedSinceVacuum;
    private volatile long last;
    private volatile long floor;
    private volatile boolean closed;
    private Thread reader;

    PgEventLog(DataSource pool, Opener readerConnection, Json json, long keepCount, long keepMs, long pollMs) {
        this.pool = pool;
        this.readerConnection = readerConnection;
        this.json = json;
        this.keepCount = keepCount;
        this.keepMs = keepMs;
        this.pollMs = pollMs;
    }

    /**
     * Creates the tables, inside the store's schema transaction (under its advisory lock): the
     * wide event rows ({@code weft_events}, written once), the ids of those not yet numbered
     * ({@code weft_event_pending}) and the numbering ({@code weft_event_seqs}). A log of an earlier
     * version, whose sequencer wrote the seq into the event row, is converted first.
     *
     * <p>A schema stamped older than {@link PgSchema#VERSION} (or not at all) is converted with the
     * event rows locked (ACCESS EXCLUSIVE, until the schema transaction commits): the writes in
     * flight on nodes of any version commit first and are converted with the rest, and after the
     * commit an older node's writes fail on the event rows' version check ({@link PgSchema}).
     */
    static void createSchema(Statement s, int stamped) throws SQLException {
        s.execute("CREATE TABLE IF NOT EXISTS weft_events(id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                + " at bigint NOT NULL, db text NOT NULL, coll text NOT NULL, op smallint NOT NULL,"
                + " key bytea NOT NULL, doc bytea, pre bytea, upd bytea) WITH (" + PgSchema.WIDE_ROWS + ")");
        s.execute("CREATE TABLE IF NOT EXISTS weft_event_pending(id bigint PRIMARY KEY)");
        s.execute("CREATE TABLE IF NOT EXISTS weft_event_seqs(seq bigint PRIMARY KEY, id bigint NOT NULL UNIQUE)");
        if (stamped < PgSchema.VERSION) {
            s.execute("LOCK TABLE weft_events IN ACCESS EXCLUSIVE MODE");
            moveSeqsOutOfEventRows(s);
            PgSchema.guardEventRows(s);
        }
        s.execute("CREATE INDEX IF NOT EXISTS weft_events_drops_by_id ON weft_events(db, coll, id) WHERE op = " + DROP);
        s.execute("CREATE TABLE IF NOT EXISTS weft_event_log(name text PRIMARY KEY, value bigint NOT NULL)");
        s.execute("INSERT INTO weft_event_log(name, value) VALUES ('seq', 0), ('floor', 0) ON CONFLICT DO NOTHING");
    }

    /**
     * Schema of Weft before 2026-11-27: {@code weft_events.seq}, set by the sequencer's UPDATE of
     * the event row. Its seqs become rows of {@code weft_event_seqs}, its unnumbered events
     * pending ones, and the column (with its indexes) is dropped. An older node's sequencer and
     * reader then fail on the missing column, its writers on the event rows' version check.
     */
    private static void moveSeqsOutOfEventRows(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()"
                + " AND table_name = 'weft_events' AND column_name = 'seq'")) {
            if (!rs.next()) {
                return;
            }
        }
        s.execute("INSERT INTO weft_event_seqs(seq, id) SELECT seq, id FROM weft_events WHERE seq IS NOT NULL ON CONFLICT DO NOTHING");
        s.execute("INSERT INTO weft_event_pending(id) SELECT id FROM weft_events WHERE seq IS NULL ON CONFLICT DO NOTHING");
        s.execute("ALTER TABLE weft_events DROP COLUMN seq");
    }

    /** Reads the log's bounds (this node publishes what commits from now on) and starts the reader. */
    void start() {
        try (Connection c = pool.getConnection()) {
            long[] bounds = bounds(c);
            last = bounds[0];
            floor = bounds[1];
        } catch (SQLException e) {
            throw unavailable(e);
        }
        reader = Thread.ofPlatform().name("weft-pg-events").daemon(true).start(this::readLoop);
    }

    // --- writing (in the writer's transaction) ---------------------------------------------------

    /**
     * Logs {@code events}, without seqs, in the open writing transaction of {@code sql}, in one
     * statement (held back with the write's other rows in a {@link PgPipeline}); takes no shared
     * lock. Their ids follow the order of the list.
     */
    void append(SqlConnection sql, List<ChangeEvent> events) throws SQLException {
        if (events.isEmpty()) {
            return;
        }
        int n = events.size();
        String[] dbs = new String[n];
        String[] colls = new String[n];
        Integer[] ops = new Integer[n];
        byte[][] keys = new byte[n][];
        byte[][] docs = new byte[n][];
        byte[][] pres = new byte[n][];
        byte[][] upds = new byte[n][];
        for (int i = 0; i < n; i++) {
            ChangeEvent e = events.get(i);
            dbs[i] = e.ns().db();
            colls[i] = e.ns().coll();
            ops[i] = e.operation().ordinal();
            keys[i] = json.bytes(e.documentKey());
            docs[i] = e.fullDocument();
            pres[i] = e.previousDocument();
            upds[i] = e.updateDescription() == null ? null : json.bytes(e.updateDescription().toNode());
        }
        PgPipeline.run(sql, "WITH e AS (INSERT INTO weft_events(at, " + PgSchema.EVENT_ROW_COLUMN + ", " + EventRows.WRITTEN
                + ") SELECT " + DB_NOW_MS + ", " + PgSchema.VERSION + ", " + EventRows.WRITTEN
                + " FROM unnest(?::text[], ?::text[], ?::int[], ?::bytea[], ?::bytea[], ?::bytea[], ?::bytea[])"
                + " WITH ORDINALITY AS e(" + EventRows.WRITTEN + ", n) ORDER BY n RETURNING id)"
                + " INSERT INTO weft_event_pending(id) SELECT id FROM e", (ps, i) -> {
                    Connection c = ps.getConnection();
                    ps.setArray(i, c.createArrayOf("text", dbs));
                    ps.setArray(i + 1, c.createArrayOf("text", colls));
                    ps.setArray(i + 2, c.createArrayOf("int4", ops));
                    ps.setArray(i + 3, c.createArrayOf("bytea", keys));
                    ps.setArray(i + 4, c.createArrayOf("bytea", docs));
                    ps.setArray(i + 5, c.createArrayOf("bytea", pres));
                    ps.setArray(i + 6, c.createArrayOf("bytea", upds));
                    return i + 7;
                });
    }

    /** A commit happened (on this node, or notified from another): read the log now. */
    void wake() {
        if (wakes.availablePermits() == 0) {
            wakes.release();
        }
    }

    // --- EventLog ----------------------------------------------------------------------------

    @Override
    public void addCommitListener(CommitListener listener) {
        listeners.add(listener);
    }

    /**
     * Reads the bounds and the events in one statement, so in one snapshot: a concurrent prune is
     * either all seen or not at all. One round trip, because a thousand streams resuming at once
     * (their node died) each read here twice, on the pool the node's writes need too.
     */
    @Override
    public List<ChangeEvent> after(long after, int limit) {
        try (SqlConnection sql = new SqlConnection(pool.getConnection())) {
            PreparedStatement ps = sql.prepare(AFTER);
            ps.setLong(1, after);
            ps.setInt(2, limit);
            List<ChangeEvent> out = new ArrayList<>();
            long top = 0;
            long bottom = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    top = rs.getLong(1);
                    bottom = rs.getLong(2);
                    if (rs.getObject(3) != null) {
                        out.add(EventRows.row(rs, 3, json));
                    }
                }
            }
            out.sort(BY_SEQ);
            floor = Math.max(floor, bottom);
            if (after < bottom) {
                throw EventLog.tooOld();
            }
            if (after > top) {
                throw EventLog.unknownPosition();
            }
            return out;
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    /** See {@link EventLog#droppedAfter}: a drop not yet sequenced is not seen (a replay meets it later). */
    @Override
    public OptionalLong droppedAfter(Namespace ns, long after) {
        try (SqlConnection sql = new SqlConnection(pool.getConnection())) {
            // the collection's drops first (a probe of the partial index): walking the seqs in
            // order and joining each event until a drop, as a plan for LIMIT 1 may, reads the whole log
            return EventRows.droppedAfter(sql, "WITH drops AS MATERIALIZED (SELECT id FROM weft_events WHERE op = " + DROP
                    + " AND db = ? AND coll = ?) SELECT s.seq FROM drops d JOIN weft_event_seqs s ON s.id = d.id"
                    + " WHERE s.seq > ? ORDER BY s.seq LIMIT 1", ns, after);
        } catch (SQLException e) {
            throw unavailable(e);
        }
    }

    @Override
    public long floor() {
        return floor;
    }

    /** The newest event this node has published; another node may be a few milliseconds ahead. */
    @Override
    public long last() {
        return last;
    }

    void close() {
        closed = true;
        if (reader != null) {
            reader.interrupt();
            try {
                reader.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // --- the reader ----------------------------------------------------------------------------

    private void readLoop() {
        long nextPrune = 0;
        SqlConnection sql = null; // the reader's own connection, opened again after a failure
        while (!closed) {
            try {
                wakes.tryAcquire(pollMs, TimeUnit.MILLISECONDS);
                wakes.drainPermits();
            } catch (InterruptedException e) {
                continue; // closed is checked above
            }
            try {
                if (sql == null) {
                    sql = new SqlConnection(byKeys(readerConnection.open()));
                }
                Connection c = sql.connection();
                sequence(c);
                publishNew(sql);
                long now = System.currentTimeMillis();
                if (now >= nextPrune) {
                    nextPrune = now + PRUNE_EVERY_MS;
                    prune(c);
                    vacuumPending(c);
                }
            } catch (SQLException | RuntimeException e) {
                if (sql != null) {
                    sql.close();
                    sql = null;
                }
                if (closed) {
                    return;
                }
                outages.warn("reading the PostgreSQL event log failed, retrying", String.valueOf(e.getMessage()));
                try {
                    Thread.sleep(RETRY_MS);
                } catch (InterruptedException ie) {
                    // closed is checked above
                }
            }
        }
        if (sql != null) {
            sql.close();
        }
    }

    /**
     * The reader's connection, told to read its tables by their keys ({@code enable_seqscan =
     * off}): every statement it runs has a key to go by, and a plan made while a table was small
     * stays with the connection. The sequencer's statement is planned once, often at startup when
     * {@code weft_event_pending} is one page; a sequential scan chosen then was kept while the
     * table grew to thousands of pages of dead rows (decision record 0003, "the sequencer's plan").
     * A table with no index to use is still scanned.
     *
     * <p>Its prepared statements keep one generic plan ({@code plan_cache_mode =
     * force_generic_plan}): the event read ({@link #EVENTS_AFTER}, run at every wake) asks for the
     * seqs after the newest, which the statistics put at about one row, so PostgreSQL's default
     * chose a custom plan, planned again, at every run (29% of that backend's samples under YCSB
     * workload A). The read's plan goes by keys whatever its estimates ({@link #ROWS}). The prune
     * goes back to custom plans for its own transaction ({@link #prune}).
     */
    static Connection byKeys(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SET enable_seqscan = off");
            s.execute("SET plan_cache_mode = force_generic_plan");
        }
        return c;
    }

    /**
     * Gives seqs to every committed event that has none, in batches, each batch one transaction
     * under {@link #SEQUENCER_LOCK}. A sequencer of another node holding the lock is waited for:
     * skipping instead could leave an event committed just after its snapshot unsequenced until
     * the next poll.
     */
    private void sequence(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try {
            long done;
            do {
                try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
                    lock.setLong(1, SEQUENCER_LOCK);
                    lock.execute();
                }
                try (PreparedStatement ps = c.prepareStatement(SEQUENCE)) {
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        done = rs.getLong(1);
                    }
                }
                c.commit();
                sequencedSinceVacuum += done;
            } while (done == SEQUENCE_BATCH && !closed);
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    /** Publishes every sequenced event after {@link #last}, in seq order, in batches. */
    private void publishNew(SqlConnection sql) throws SQLException {
        while (!closed) {
            List<ChangeEvent> batch = EventRows.read(sql, json, EVENTS_AFTER, last, READ_BATCH);
            batch.sort(BY_SEQ);
            if (batch.isEmpty()) {
                return;
            }
            if (batch.getFirst().seq() != last + 1) {
                // only when this node fell behind a prune by another: the dispatcher sees the jump
                LOG.error("change events {}..{} were pruned before this node read them", last + 1, batch.getFirst().seq() - 1);
            }
            long top = batch.getLast().seq();
            last = top;
            List<ChangeEvent> events = List.copyOf(batch);
            for (CommitListener listener : listeners) {
                try {
                    listener.committed(top, events);
                } catch (RuntimeException e) {
                    LOG.error("commit listener failed", e);
                }
            }
            if (batch.size() < READ_BATCH) {
                return;
            }
        }
    }

    /**
     * Vacuums {@code weft_event_pending} once this node's sequencer has taken
     * {@link #VACUUM_PENDING_AFTER} ids from it since the last time. Every pending id is inserted
     * by its writer and deleted by a sequencer soon after, so the table is dead rows but a few,
     * and so is its primary key, whose oldest end the sequencer reads at every run ({@link #SEQUENCE}):
     * an index scan from there steps over every dead entry to the left of the first live one, and
     * autovacuum comes at most once per {@code autovacuum_naptime} (a minute by default). Under
     * YCSB workload A the sequencer's statement took 2.4 ms for 40 ids over about 200,000 dead
     * entries (291 index pages read to find them), growing with the writes until autovacuum came
     * (decision record 0003, addendum "the pending ids' dead rows"). Vacuumed here, the key holds
     * about a second of ids. Changes no row a reader or writer sees; runs outside any transaction
     * (the reader's connection is in autocommit here). A vacuum that fails (a server that refuses
     * the options) is only logged: the reader goes on, and the table is left to autovacuum. A
     * vacuum skipped (PostgreSQL warns: another one holds the table, or Weft's role does not own
     * it) is tried again at the next interval.
     */
    private void vacuumPending(Connection c) {
        if (sequencedSinceVacuum < VACUUM_PENDING_AFTER) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute(VACUUM_PENDING);
            if (s.getWarnings() == null) {
                sequencedSinceVacuum = 0;
            }
        } catch (SQLException e) {
            sequencedSinceVacuum = 0;
            outages.warn("vacuuming weft_event_pending failed (left to autovacuum)", String.valueOf(e.getMessage()));
        }
    }

    /**
     * Deletes the events beyond the count or older than the age, raising the floor in the same
     * transaction. Several nodes may prune at once: the floor only rises, deletes are idempotent.
     *
     * <p>Planned for its values ({@code plan_cache_mode = auto} for the transaction; it runs once a
     * second): a generic plan of {@code seq <= ?} guesses a third of the log, for which a join over
     * the whole primary key of the event rows looks cheaper than probing it per pruned seq.
     */
    private void prune(Connection c) throws SQLException {
        c.setAutoCommit(false);
        try {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL plan_cache_mode = auto");
            }
            long newest = bounds(c)[0];
            long upTo = newest - keepCount;
            try (PreparedStatement ps = c.prepareStatement("SELECT s.seq FROM " + SEQUENCED + " WHERE e.at >= " + DB_NOW_MS
                    + " - ? ORDER BY s.seq LIMIT 1")) {
                ps.setLong(1, keepMs);
                try (ResultSet rs = ps.executeQuery()) {
                    upTo = Math.max(upTo, rs.next() ? rs.getLong(1) - 1 : newest);
                }
            }
            if (upTo > floor) {
                try (PreparedStatement ps = c.prepareStatement(
                        "UPDATE weft_event_log SET value = greatest(value, ?) WHERE name = 'floor' RETURNING value")) {
                    ps.setLong(1, upTo);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        upTo = rs.getLong(1);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("WITH gone AS (DELETE FROM weft_event_seqs WHERE seq <= ? RETURNING id)"
                        + " DELETE FROM weft_events WHERE id IN (SELECT id FROM gone)")) {
                    ps.setLong(1, upTo);
                    ps.executeUpdate();
                }
            }
            c.commit();
            floor = Math.max(floor, upTo);
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
    }

    // --- rows --------------------------------------------------------------------------------

    /** {@code [seq, floor]} as committed (or as in the transaction's snapshot). */
    private static long[] bounds(Connection c) throws SQLException {
        long[] out = new long[2];
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT name, value FROM weft_event_log")) {
            while (rs.next()) {
                out["seq".equals(rs.getString(1)) ? 0 : 1] = rs.getLong(2);
            }
        }
        return out;
    }

    private static WeftException unavailable(SQLException e) {
        return new WeftException(503, "the change event log is unavailable: " + e.getMessage());
    }
}
