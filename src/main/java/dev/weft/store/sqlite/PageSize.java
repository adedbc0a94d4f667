package dev.weft.store.sqlite;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The page size of Weft's SQLite file, {@code sqlite-page-size}. SQLite fixes it when the first
 * page is written and a WAL database cannot change it without a VACUUM that rewrites the whole
 * file, so it applies to a new data directory only: an existing file keeps the size it was
 * created with (see docs/decisions/0007-sqlite-page-size.md for why the default is not 4 KiB).
 */
final class PageSize {
    private static final Logger LOG = LoggerFactory.getLogger(PageSize.class);

    private PageSize() {}

    /**
     * Creates {@code file} with {@code bytes} per page when it does not exist yet. The size must
     * be set before {@code journal_mode=WAL}, which writes the header, hence this plain connection
     * ahead of the configured ones.
     */
    static void createIfNew(Path file, int bytes) throws SQLException {
        if (Files.exists(file) && file.toFile().length() > 0) {
            return;
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
             var s = c.createStatement()) {
            s.execute("PRAGMA page_size = " + bytes);
            s.execute("PRAGMA journal_mode = WAL");
        }
    }

    /** Logs when the open file's page size is not the configured one (a file created before). */
    static void reportKept(Connection c, Path file, int configured) throws SQLException {
        long actual;
        try (var s = c.createStatement(); var rs = s.executeQuery("PRAGMA page_size")) {
            rs.next();
            actual = rs.getLong(1);
        }
        if (actual != configured) {
            LOG.info("sqlite-page-size {} applies to new data directories only: {} keeps its page size of {} bytes",
                    configured, file, actual);
        }
    }
}
