package dev.weft.store.postgres;

import com.zaxxer.hikari.HikariDataSource;
import dev.weft.core.Settings;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming replicas that serve {@code outdated} reads, each with its own pool, taken in
 * turn. A replica whose connection fails is left out for {@code replica-retry-ms}, after which
 * the next outdated read tries it again; while none is left, outdated reads go to the primary.
 *
 * <p>Weft does not bound how far behind a replica may be: an outdated read sees a consistent
 * snapshot of some past state of the primary (PostgreSQL replays commits in order), possibly
 * missing recent writes. Operators bound the lag on the PostgreSQL side (monitoring
 * {@code pg_stat_replication}, {@code max_standby_streaming_delay}).
 */
final class Replicas implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Replicas.class);

    record Replica(String name, HikariDataSource pool, AtomicLong downUntil) {}

    private final List<Replica> replicas;
    private final long retryNanos;
    private final AtomicInteger next = new AtomicInteger();

    Replicas(Settings settings) {
        List<Replica> list = new ArrayList<>();
        for (String url : settings.readReplicas()) {
            String name = "weft-replica-" + list.size();
            list.add(new Replica(name, PgConnections.pool(PgUrl.parse(url), settings, name, true), new AtomicLong()));
        }
        replicas = List.copyOf(list);
        retryNanos = settings.replicaRetryMs() * 1_000_000;
    }

    /** Whether any replica is configured (up or left out). */
    boolean configured() {
        return !replicas.isEmpty();
    }

    /** The next replica not left out, if any. */
    Optional<Replica> pick() {
        int n = replicas.size();
        if (n == 0) {
            return Optional.empty();
        }
        long now = System.nanoTime();
        int start = Math.floorMod(next.getAndIncrement(), n);
        for (int i = 0; i < n; i++) {
            Replica r = replicas.get((start + i) % n);
            if (now - r.downUntil().get() >= 0) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /**
     * A read on {@code r} failed. A replica that is behind the catalog (a table created on the
     * primary not replayed yet, 42P01) or that cancelled a query in conflict with replay (40001)
     * is healthy: the read goes to the primary and the replica stays in. Anything else leaves it out.
     */
    void failed(Replica r, SQLException e) {
        String state = e.getSQLState();
        if ("42P01".equals(state) || "40001".equals(state)) {
            return;
        }
        r.downUntil().set(System.nanoTime() + retryNanos);
        LOG.warn("read replica {} left out for {} ms: {}", r.name(), retryNanos / 1_000_000, e.getMessage());
    }

    @Override
    public void close() {
        replicas.forEach(r -> r.pool().close());
    }
}
