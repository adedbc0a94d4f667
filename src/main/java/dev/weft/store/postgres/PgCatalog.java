package dev.weft.store.postgres;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.store.Catalog;
import dev.weft.store.Namespace;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's copy of the catalog of a database several nodes share, kept current by
 * notifications: every catalog change notifies {@code c} on the store's channel in its
 * transaction, every document write {@code w<coll id>} after its commit ({@link WriteNotifier}),
 * and a listener thread on a connection of its own reloads the catalog, or invalidates a
 * collection's cached results, when they arrive.
 *
 * <p>Invariants: the catalog and the {@code gen} of each collection it was loaded with are
 * published together ({@link Planned}), so a write checks the gens of the very catalog it plans
 * with; a read that misses a name in the cache reloads first ({@link #fresh}), so a collection
 * made on another node a moment ago is found; after a lost listening connection everything is
 * reloaded and every collection invalidated, since notifications may have been missed meanwhile.
 */
final class PgCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(PgCatalog.class);

    /** The catalog and the {@code gen} of each collection it was loaded with. */
    record Planned(Catalog catalog, Map<Long, Long> gens) {}

    private final DataSource pool;
    private final PgUrl url;
    private final Settings settings;
    private final Json json;
    private final String channel;
    private final Consumer<Namespace> bump;
    private final BiConsumer<Catalog, Catalog> bumpChanged;
    private final Runnable wakeEvents;
    private final IntPredicate ownWrites;
    private final java.util.concurrent.atomic.AtomicLong ownSkipped = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong othersHeard = new java.util.concurrent.atomic.AtomicLong();
    private volatile Catalog catalog;
    private volatile Planned planned = new Planned(null, Map.of());
    /** Open once the listener's first LISTEN is in place and the catalog reloaded after it. */
    private final CountDownLatch listening = new CountDownLatch(1);
    private Thread listener;
    private volatile boolean closed;

    /**
     * @param bump        gives a collection a new version
     * @param bumpChanged gives a new version to the collections changed from one catalog to the next
     * @param wakeEvents  tells the event log a commit happened elsewhere
     * @param ownWrites   whether a backend (by its PID) sent this node's own write notifications
     */
    PgCatalog(DataSource pool, PgUrl url, Settings settings, Json json, String channel, Consumer<Namespace> bump,
              BiConsumer<Catalog, Catalog> bumpChanged, Runnable wakeEvents, IntPredicate ownWrites) {
        this.pool = pool;
        this.url = url;
        this.settings = settings;
        this.json = json;
        this.channel = channel;
        this.bump = bump;
        this.bumpChanged = bumpChanged;
        this.wakeEvents = wakeEvents;
        this.ownWrites = ownWrites;
        reload();
    }

    Catalog current() {
        return catalog;
    }

    Planned planned() {
        return planned;
    }

    /** The catalog, reloaded first when {@code present} says the cache lacks what was asked for. */
    Catalog fresh(BooleanSupplier present) {
        if (!present.getAsBoolean()) {
            reload();
        }
        return catalog;
    }

    /** Loads the catalog in one snapshot and publishes it; the collections it changed get new versions. */
    void reload() {
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
                before.colls().keySet().forEach(bump);
                fresh.colls().keySet().forEach(bump);
            } else {
                bumpChanged.accept(before, fresh);
            }
        } catch (SQLException e) {
            throw PgFailures.unavailable("cannot load the catalog", e);
        }
    }

    /** In a catalog change's transaction: every node reloads when it commits. */
    void notifyChange(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            ps.setString(1, channel);
            ps.setString(2, "c");
            ps.executeQuery().close();
        }
    }

    /**
     * Starts listening and serves nothing before other nodes' notifications reach this one: the
     * listener's first connect reloads everything (changes since the first load may have been
     * missed), which, once credentials and results are cached, would throw them all away.
     * Bounded by {@code pg-startup-wait-ms}; past it the node starts anyway and the reload comes later.
     */
    void listen() {
        listener = Thread.ofPlatform().name("weft-pg-listener").daemon(true).start(this::listenLoop);
        try {
            if (!listening.await(settings.pgStartupWaitMs(), TimeUnit.MILLISECONDS)) {
                LOG.warn("PostgreSQL notifications are not listened to yet; starting anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Listens on its own connection for the commits of every node: {@code w<coll id>} a document
     * write (invalidates that collection's cached results), {@code c} a catalog change (reloads the
     * catalog). After a lost connection it reconnects and reloads everything.
     */
    private void listenLoop() {
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
                    if (notes != null) {
                        received(notes);
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                PgFailures.OUTAGES.warn("PostgreSQL notifications lost, reconnecting", String.valueOf(e.getMessage()));
                try {
                    Thread.sleep(500);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void received(PGNotification[] notes) {
        boolean catalogChanged = false;
        for (PGNotification n : notes) {
            String p = n.getParameter();
            if (p.startsWith("w")) {
                if (ownWrites.test(n.getPID())) {
                    ownSkipped.incrementAndGet();
                    continue; // this node's commit already woke its event reader and bumped its caches
                }
                othersHeard.incrementAndGet();
                wakeEvents.run();
                long id = Long.parseLong(p.substring(1));
                for (Catalog.Coll coll : catalog.colls().values()) {
                    if (coll.id() == id) {
                        bump.accept(coll.ns());
                    }
                }
            } else {
                catalogChanged = true;
            }
        }
        if (catalogChanged) {
            reload();
            wakeEvents.run(); // another node's drop logged its event
        }
    }

    /** Write notifications heard: this node's own, skipped, and the other nodes' (for tests). */
    long ownWriteNotificationsSkipped() {
        return ownSkipped.get();
    }

    long otherWriteNotificationsHeard() {
        return othersHeard.get();
    }

    void close() {
        closed = true;
        if (listener != null) {
            listener.interrupt();
            try {
                listener.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
