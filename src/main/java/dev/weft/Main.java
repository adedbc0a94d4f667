package dev.weft;

import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.http.WeftServer;
import dev.weft.security.Security;
import dev.weft.security.acl.AclAuthorizer;
import dev.weft.store.Store;
import dev.weft.store.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ./weft start [--setting value ...]}: opens the store, opens security (on the first
 * start this creates the {@code admin} user and may print its password once), starts the
 * listener, logs one line saying where it listens, and on SIGTERM stops gracefully (the listener closes, in-flight
 * requests finish, then the store closes, so every acknowledged write is already durable).
 */
public final class Main {
    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {}

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args, System.getenv());
        } catch (WeftException e) {
            System.err.println("weft: " + e.getMessage());
            Settings.DESCRIPTIONS.forEach((k, v) -> System.err.printf("  --%-24s %s%n", k, v));
            System.exit(2);
            return;
        }
        reserveCarriersForSqlite(settings);
        Store store;
        try {
            store = Stores.open(settings);
        } catch (WeftException | IllegalStateException e) {
            // a start-up fault the user must fix (a data folder that cannot be made, a database
            // that refuses): one line, never a stack trace
            System.err.println("weft: cannot open the store: " + withCause(e));
            System.exit(1);
            return;
        }
        WeftServer server;
        try {
            server = new WeftServer(settings, store, Security.open(settings, store, System.out),
                    AclAuthorizer.open(store, settings));
        } catch (WeftException | IllegalArgumentException e) {
            System.err.println("weft: " + e.getMessage());
            store.close();
            System.exit(2);
            return;
        }
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server, store), "weft-shutdown"));
        LOG.info("weft listening on http://{}:{} (data {})", settings.bind(), server.port(), settings.data().toAbsolutePath());
        server.tlsPort().ifPresent(port -> LOG.info("weft listening on https://{}:{}", settings.bind(), port));
        Thread.currentThread().join();
    }

    /**
     * The message, and for a file-system cause its kind: such messages are only the path
     * ({@code NoSuchFileException: /x}), which says nothing of what went wrong.
     */
    static String withCause(Exception e) {
        return e.getCause() instanceof java.io.IOException io
                ? e.getMessage() + " (" + io.getClass().getSimpleName() + ")"
                : e.getMessage();
    }

    /**
     * A native SQLite call holds its carrier thread without the scheduler noticing
     * (docs/decisions/0001, finding (c)). One extra carrier per concurrent SQLite read keeps
     * {@code cores} carriers free for everything else while every reader is inside SQLite. Must run
     * before the first virtual thread exists; an explicit -D setting wins.
     */
    private static void reserveCarriersForSqlite(Settings settings) {
        String property = "jdk.virtualThreadScheduler.parallelism";
        if (!settings.postgres() && System.getProperty(property) == null) {
            int carriers = Runtime.getRuntime().availableProcessors() + settings.sqliteReaders();
            System.setProperty(property, Integer.toString(carriers));
        }
    }

    private static void stop(WeftServer server, Store store) {
        LOG.info("weft stopping: finishing in-flight requests");
        try {
            server.close();
        } catch (Exception e) {
            LOG.warn("listener did not stop cleanly", e);
        }
        store.close();
        LOG.info("weft stopped");
    }
}
