package dev.weft.store.sqlite;

import dev.weft.store.OutageLog;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies the write-ahead log back into the database file on a thread of its own. SQLite's
 * automatic checkpoint runs inside the COMMIT of the connection that crosses its threshold,
 * which here is always the single writer: every few megabytes of writes, the writer stopped to
 * copy pages and sync the database file while every queued write waited. This thread runs a
 * PASSIVE checkpoint every {@code intervalMs}; PASSIVE never waits for the writer or for
 * readers, it copies what it can. The writer's own automatic checkpoint stays on, at
 * {@code sqlite-wal-pages}, as the bound: should this thread fall behind (a long-lived reader
 * pins old frames, say), the log grows to that many pages and no further.
 *
 * <p>Durability is unchanged: a commit is durable once its log frames are synced, before any
 * checkpoint; a checkpoint only moves committed pages.
 */
final class Checkpointer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

    private final Connection connection;
    private final long intervalMs;
    private final AtomicLong framesCopied = new AtomicLong();
    /** Every 100 ms while the disk is full: logged at most every few seconds. */
    private final OutageLog failures = new OutageLog(LOG, 5000);
    private final Thread thread;
    private volatile boolean closing;

    Checkpointer(Connection connection, long intervalMs) {
        this.connection = connection;
        this.intervalMs = intervalMs;
        this.thread = Thread.ofPlatform().name("weft-sqlite-checkpointer").daemon(true).start(this::loop);
    }

    /** Log frames copied into the database file by this thread so far. */
    long framesCopied() {
        return framesCopied.get();
    }

    private void loop() {
        while (!closing) {
            checkpoint();
            try {
                TimeUnit.MILLISECONDS.sleep(intervalMs);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void checkpoint() {
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
            if (rs.next()) {
                framesCopied.addAndGet(Math.max(0, rs.getInt(3)));
            }
        } catch (SQLException e) {
            failures.warn("WAL checkpoint failed; the writer's own checkpoint bounds the log meanwhile", e.getMessage());
        }
    }

    @Override
    public void close() {
        closing = true;
        thread.interrupt();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // closing at shutdown
        }
    }
}
