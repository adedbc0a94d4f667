package dev.weft.store.postgres;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The PostgreSQL the tests run on: {@code WEFT_TEST_PG_URL}, set by scripts/test-env (which
 * starts a throwaway cluster). Without it the tests fail: they never skip. Each test store gets a
 * fresh schema of its own, named in the store URL ({@code ?currentSchema=}).
 */
public final class PgTesting {
    private static final AtomicLong SEQ = new AtomicLong();

    private PgTesting() {}

    public static String baseUrl() {
        String url = System.getenv("WEFT_TEST_PG_URL");
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("WEFT_TEST_PG_URL is not set: run the tests with ./weft test"
                    + " (scripts/test-env starts a PostgreSQL cluster for them)");
        }
        return url;
    }

    /** Creates an empty schema and returns its name. */
    public static String freshSchema() {
        String name = "t" + ProcessHandle.current().pid() + "_" + SEQ.incrementAndGet() + "_" + (System.nanoTime() % 1_000_000);
        admin("CREATE SCHEMA " + name);
        return name;
    }

    /** The store URL of a schema. */
    public static String url(String schema) {
        return baseUrl() + "?currentSchema=" + schema;
    }

    public static void dropSchema(String schema) {
        admin("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }

    static void admin(String sql) {
        number(sql);
    }

    /**
     * A new database {@code name} where the new non-superuser role {@code name} may connect but
     * not create (so not install an extension, trusted or not), holding a schema {@code weft}
     * that role owns; answers the store URL of that schema as that role.
     */
    public static String restrictedDatabase(String name) {
        admin("CREATE ROLE " + name + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE");
        admin("CREATE DATABASE " + name);
        admin("REVOKE ALL ON DATABASE " + name + " FROM PUBLIC");
        admin("GRANT CONNECT, TEMPORARY ON DATABASE " + name + " TO " + name);
        number(name, "CREATE SCHEMA weft AUTHORIZATION " + name);
        URI uri = URI.create(baseUrl());
        return "postgresql://" + name + "@" + uri.getHost() + ":" + uri.getPort() + "/" + name + "?currentSchema=weft";
    }

    public static void dropRestrictedDatabase(String name) {
        admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        admin("DROP ROLE IF EXISTS " + name);
    }

    /** As {@link #number(String)}, in database {@code database}. */
    public static long number(String database, String sql) {
        URI uri = URI.create(baseUrl());
        String jdbc = "jdbc:postgresql://" + uri.getHost() + ":" + uri.getPort() + "/" + database;
        String user = uri.getUserInfo() == null ? "postgres" : uri.getUserInfo().split(":")[0];
        try (Connection c = DriverManager.getConnection(jdbc, user, null); Statement s = c.createStatement()) {
            if (!s.execute(sql)) {
                return 0;
            }
            try (var rs = s.getResultSet()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + jdbc + ": " + e.getMessage(), e);
        }
    }

    /** Runs a statement as the cluster's user; the first column of its first row as a number (0 without one). */
    static long number(String sql) {
        return number(URI.create(baseUrl()).getPath().substring(1), sql);
    }
}
