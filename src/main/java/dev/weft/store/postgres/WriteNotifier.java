package dev.weft.store.postgres;

import dev.weft.store.OutageLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;

/**
 * Tells the other nodes, after commit, which collections this node wrote to ({@code w<coll id>}
 * on the store's channel), so they invalidate their cached results and read the event log at
 * once.
 *
 * <p>Why not {@code pg_notify} inside the writing transaction: PostgreSQL commits notifying
 * transactions one at a time (a cluster-wide lock taken at pre-commit and held through the WAL
 * flush), which capped concurrent writes at about one per flush. Here one thread per node sends
 * the notifications of every commit since its last round in one short transaction of its own.
 *
 * <p>Losing a notification (a crash between commit and send, a failed send) costs latency, not
 * correctness: every write also logs events in its transaction, and each node's event reader,
 * which polls at least every {@code stream-poll-ms}, invalidates the collections of the events it
 * reads ({@link PostgresStore}).
 */
final class WriteNotifier {
    private static final int MAX_SENDERS = 64;
    private final DataSource pool;
    private final String channel;
    private final OutageLog outages;
    private final Set<Long> pending = ConcurrentHashMap.newKeySet();
    /** PIDs of the backends that sent this node's notifications (its pool's connections: a few). */
    private final Set<Integer> senders = ConcurrentHashMap.newKeySet();
    private final Semaphore wake = new Semaphore(0);
    private final Thread thread;
    private volatile boolean closed;

    WriteNotifier(DataSource pool, String channel, OutageLog outages) {
        this.pool = pool;
        this.channel = channel;
        this.outages = outages;
        this.thread = Thread.ofPlatform().name("weft-pg-notifier").daemon(true).start(this::run);
    }

    /** After a commit that wrote to these collections. Never blocks. */
    void written(Iterable<Long> collIds) {
        collIds.forEach(pending::add);
        if (wake.availablePermits() == 0) {
            wake.release();
        }
    }

    private void run() {
        while (!closed) {
            try {
                wake.tryAcquire(1, TimeUnit.SECONDS);
                wake.drainPermits();
            } catch (InterruptedException e) {
                continue; // closed is checked above
            }
            List<Long> ids = new ArrayList<>(pending);
            if (ids.isEmpty()) {
                continue;
            }
            ids.forEach(pending::remove);
            send(ids);
        }
    }

    private void send(List<Long> ids) {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, 'w' || id) FROM unnest(?::bigint[]) AS id")) {
            remember(c.unwrap(PGConnection.class).getBackendPID());
            ps.setString(1, channel);
            ps.setArray(2, c.createArrayOf("bigint", ids.toArray()));
            ps.executeQuery().close();
        } catch (SQLException e) {
            outages.warn("commit notification not sent (other nodes catch up from the event log)", String.valueOf(e.getMessage()));
        }
    }

    /**
     * Whether a notification came from this node (its listener skips those: the commit itself woke
     * the event reader and bumped the caches). A PID reused by another node's backend after one of
     * these connections closed would have that node's notifications skipped: latency only, as for a
     * lost notification; the set is emptied when it grows past the pool's likely size.
     */
    boolean sentBy(int pid) {
        return senders.contains(pid);
    }

    private void remember(int pid) {
        if (senders.add(pid) && senders.size() > MAX_SENDERS) {
            senders.clear();
            senders.add(pid);
        }
    }

    void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
