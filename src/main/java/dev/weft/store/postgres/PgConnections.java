package dev.weft.store.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.weft.core.WeftException;
import dev.weft.core.Settings;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Connections to one PostgreSQL server (the primary or a replica) with every wait bounded, so
 * that a database that stops answering turns into 503s rather than requests that hang:
 * <ul>
 * <li>a pooled connection is waited for at most {@code pg-timeout-ms} (HikariCP's
 *     {@code connectionTimeout}; the driver's connect and login timeouts are the same);</li>
 * <li>a statement runs at most {@code pg-statement-timeout-ms} ({@code statement_timeout}, set
 *     for the session), and a reply is waited for at most that plus {@code pg-timeout-ms} on the
 *     socket ({@code socketTimeout}), which also catches a server that vanished without closing
 *     the connection.</li>
 * </ul>
 * JIT compilation is off for the session: Weft's statements run in milliseconds, and a generic
 * plan's cost, from row estimates that are guesses for its parameters, can pass
 * {@code jit_above_cost} and compile for longer than the statement runs (the event reader's
 * statement: 1 ms to run, 60-80 ms to compile; decision record 0003, reads of 2026-11-27).
 * Recovery needs nothing of Weft: HikariCP validates a connection that has been idle before
 * handing it out, drops broken ones, and keeps opening new ones while requests wait.
 */
final class PgConnections {
    private PgConnections() {}

    static HikariDataSource pool(PgUrl url, Settings settings, String name, boolean mayStartDown) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url.jdbc());
        config.setUsername(url.user());
        if (url.password() != null) {
            config.setPassword(url.password());
        }
        config.setMaximumPoolSize(settings.pgPoolSize());
        config.setMinimumIdle(Math.min(2, settings.pgPoolSize()));
        config.setConnectionTimeout(settings.pgTimeoutMs());
        config.setValidationTimeout(Math.max(250, Math.min(5_000, settings.pgTimeoutMs() / 2)));
        config.setPoolName(name);
        // a replica that is down when Weft starts is left out until it answers, not fatal; the
        // primary may still be starting (or slow to accept its first login): wait for it a while
        config.setInitializationFailTimeout(mayStartDown ? -1 : Math.max(settings.pgTimeoutMs(), settings.pgStartupWaitMs()));
        driverProperties(settings).forEach((k, v) -> config.addDataSourceProperty((String) k, v));
        try {
            return new HikariDataSource(config);
        } catch (HikariPool.PoolInitializationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new WeftException(503, "PostgreSQL at " + url.jdbc() + " did not accept a connection within "
                    + config.getInitializationFailTimeout() + " ms: " + cause.getMessage());
        }
    }

    /** A connection outside the pool (the notification listener's), with the same bounds. */
    static java.sql.Connection connect(PgUrl url, Settings settings) throws SQLException {
        Properties props = driverProperties(settings);
        props.setProperty("user", url.user());
        if (url.password() != null) {
            props.setProperty("password", url.password());
        }
        return java.sql.DriverManager.getConnection(url.jdbc(), props);
    }

    private static Properties driverProperties(Settings settings) {
        long connectS = seconds(settings.pgTimeoutMs());
        Properties p = new Properties();
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("connectTimeout", Long.toString(connectS));
        p.setProperty("loginTimeout", Long.toString(connectS));
        p.setProperty("socketTimeout", Long.toString(seconds(settings.pgStatementTimeoutMs()) + connectS));
        p.setProperty("options", "-c statement_timeout=" + settings.pgStatementTimeoutMs() + " -c jit=off");
        return p;
    }

    private static long seconds(long ms) {
        return Math.max(1, (ms + 999) / 1000);
    }
}
