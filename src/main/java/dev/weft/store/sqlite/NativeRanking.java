package dev.weft.store.sqlite;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConnection;
import org.sqlite.core.DB;

/**
 * Weft's native {@code $text} ranking function, {@code weft_top} (src/main/c/weft_rank.c: FTS5's
 * bm25 that skips the length lookup of a row that cannot be among the best n;
 * docs/decisions/0010-native-text-ranking.md), loaded into each SQLite connection of a store.
 *
 * <p>The library is built for this platform by {@code scripts/build-native} (when a C compiler is
 * there) and packaged as the resource {@code /weft-native/<os>-<arch>/libweftrank.so}. The first
 * store of the process copies it into a directory of its own made for it (owner-only, so no other
 * user can write or replace the file that is loaded) and loads it from there. Where there is no
 * library (another platform, no compiler at build time), where the setting
 * {@code text-native-ranking} is 0, or where it fails to load, the store ranks with FTS5's
 * {@code bm25} alone: the same answers, more CPU; said once in the log at the store's start.
 *
 * <p>Loading: sqlite-jdbc's {@code enable_load_extension} (SQLite's
 * {@code sqlite3_enable_load_extension}) is switched on only for the one {@code load_extension}
 * call naming this file and this entry point, and off again at once, so no later statement on
 * the connection can load anything.
 */
final class NativeRanking {
    private static final Logger LOG = LoggerFactory.getLogger(NativeRanking.class);
    /** The library's entry point (sqlite3_weftrank_init in weft_rank.c). */
    private static final String ENTRY = "sqlite3_weftrank_init";

    /** The extracted library of this process, once looked for: empty when there is none for this platform. */
    private static Optional<Path> extracted;
    private static String absentReason = "";

    private final Optional<Path> library;

    private NativeRanking(Optional<Path> library) {
        this.library = library;
    }

    /** Native ranking off (setting {@code text-native-ranking} 0), or as a store's default without one. */
    static NativeRanking off() {
        return new NativeRanking(Optional.empty());
    }

    /**
     * For a store starting with {@code text-native-ranking} {@code enabled}: the library when
     * wanted and there; logs which ranking the store uses.
     */
    static NativeRanking forStore(boolean enabled) {
        if (!enabled) {
            LOG.info("$text ranking: FTS5's bm25 over every match (text-native-ranking is 0)");
            return off();
        }
        Optional<Path> library = library();
        if (library.isEmpty()) {
            LOG.warn("$text ranking: FTS5's bm25 over every match ({}); build with a C compiler (scripts/build-native) for the native weft_top", absentReason);
            return off();
        }
        NativeRanking ranking = new NativeRanking(library);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
            ranking.load(c); // this SQLite takes it (its FTS5, its extension API)
        } catch (SQLException e) {
            LOG.warn("$text ranking: FTS5's bm25 over every match (the native weft_top from {} did not load: {})", library.get(), e.getMessage());
            return off();
        }
        LOG.info("$text ranking: native weft_top, loaded from {}", library.get());
        return ranking;
    }

    /** True when each connection of the store gets {@code weft_top}. */
    boolean enabled() {
        return library.isPresent();
    }

    /** This platform's name as scripts/build-native spells it ({@code uname -s}-{@code uname -m}, lower case). */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).replace(" ", "");
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (arch.equals("amd64")) {
            arch = "x86_64";
        }
        return os + "-" + arch;
    }

    /**
     * Loads {@code weft_top} into {@code c} when enabled; a failure here (once it loaded into the
     * first connection) is an error of the store's start, not a silent fallback.
     */
    void load(Connection c) throws SQLException {
        if (library.isEmpty()) {
            return;
        }
        DB db = c.unwrap(SQLiteConnection.class).getDatabase();
        db.enable_load_extension(true);
        try (PreparedStatement ps = c.prepareStatement("SELECT load_extension(?, ?)")) {
            ps.setString(1, library.get().toString());
            ps.setString(2, ENTRY);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
        } finally {
            db.enable_load_extension(false);
        }
    }

    /** The library extracted once per process (empty, with {@link #absentReason}, when there is none). */
    private static synchronized Optional<Path> library() {
        if (extracted == null) {
            extracted = extract();
        }
        return extracted;
    }

    private static Optional<Path> extract() {
        String resource = "/weft-native/" + platform() + "/libweftrank.so";
        try (InputStream in = NativeRanking.class.getResourceAsStream(resource)) {
            if (in == null) {
                absentReason = "no native library for " + platform() + " in this build";
                return Optional.empty();
            }
            // a new directory only this user can enter (createTempDirectory makes it rwx------ on POSIX)
            Path dir = Files.createTempDirectory("weft-native-");
            Path file = dir.resolve("libweftrank.so");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r-x------"));
            file.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
            return Optional.of(file);
        } catch (IOException | UnsupportedOperationException e) {
            absentReason = "native library not extracted: " + e.getMessage();
            return Optional.empty();
        }
    }
}
