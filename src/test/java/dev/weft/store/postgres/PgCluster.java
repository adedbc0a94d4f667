package dev.weft.store.postgres;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL cluster of a test's own, for tests that stop, restart or replicate a server (the
 * shared cluster of scripts/test-env must stay up for the other tests). It runs as the
 * {@code postgres} user (PostgreSQL refuses root) from the newest {@code /usr/lib/postgresql/N/bin}
 * (scripts/test-env installs it), in a temporary folder that {@link #close} removes, on a free port
 * of 127.0.0.1 with trust authentication. {@link #replica} makes a streaming hot standby of it with
 * {@code pg_basebackup -R}.
 */
public final class PgCluster implements AutoCloseable {
    /** Server options of every cluster: small, replication-ready, pg_stat_statements loaded. */
    private static final List<String> OPTIONS = List.of("listen_addresses=127.0.0.1", "max_connections=100",
            "shared_buffers=32MB", "fsync=off", "full_page_writes=off", "wal_level=replica", "max_wal_senders=5",
            "hot_standby=on", "shared_preload_libraries=pg_stat_statements", "wal_receiver_status_interval=1s");

    private final Path dir;
    private final int port;

    private PgCluster(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    /** initdb and start a new primary. */
    public static PgCluster start() throws Exception {
        Path dir = ownedTempDir();
        run(List.of(bin("initdb"), "-D", dir.resolve("data").toString(), "-U", "postgres", "--auth=trust",
                "--encoding=UTF8", "--locale=C.UTF-8"), true);
        PgCluster cluster = new PgCluster(dir, freePort());
        cluster.startServer();
        return cluster;
    }

    /** A streaming hot standby of this cluster, started and connected. */
    public PgCluster replica() throws Exception {
        Path replicaDir = ownedTempDir();
        run(List.of(bin("pg_basebackup"), "-h", "127.0.0.1", "-p", Integer.toString(port), "-U", "postgres",
                "-D", replicaDir.resolve("data").toString(), "-R", "-X", "stream", "-c", "fast"), true);
        PgCluster replica = new PgCluster(replicaDir, freePort());
        replica.startServer();
        return replica;
    }

    public String url() {
        return "postgresql://postgres@127.0.0.1:" + port + "/postgres";
    }

    /** pg_ctl stop -m fast: clients are disconnected, committed work is checkpointed. */
    public void stop() throws Exception {
        run(List.of(bin("pg_ctl"), "-D", dir.resolve("data").toString(), "-m", "fast", "-w", "-t", "60", "stop"), true);
    }

    /** Starts the server again on the same port and data. */
    public void startServer() throws Exception {
        List<String> options = new ArrayList<>(List.of("-p " + port, "-k " + dir));
        OPTIONS.forEach(o -> options.add("-c " + o));
        run(List.of(bin("pg_ctl"), "-D", dir.resolve("data").toString(), "-l", dir.resolve("server.log").toString(),
                "-w", "-t", "60", "-o", String.join(" ", options), "start"), true);
    }

    /** Runs one statement; the first column of the first row as text, or empty text if none. */
    public String sql(String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", null);
             Statement s = c.createStatement()) {
            if (!s.execute(statement)) {
                return "";
            }
            try (ResultSet rs = s.getResultSet()) {
                return rs.next() ? String.valueOf(rs.getString(1)) : "";
            }
        }
    }

    /** The server log, for failure messages. */
    public String log() {
        try {
            return Files.readString(dir.resolve("server.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws Exception {
        run(List.of(bin("pg_ctl"), "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "stop"), false);
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static Path ownedTempDir() throws Exception {
        Path dir = Files.createTempDirectory("weft-pgc");
        if (isRoot()) {
            run(List.of("chown", "postgres:", dir.toString()), true);
        }
        run(List.of("chmod", "700", dir.toString()), true);
        return dir;
    }

    private static String bin(String tool) throws IOException {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            Path dir = versions.map(p -> p.resolve("bin")).filter(p -> Files.isExecutable(p.resolve("initdb")))
                    .max(Comparator.comparingInt(p -> Integer.parseInt(p.getParent().getFileName().toString().replaceAll("\\D", "0"))))
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL under /usr/lib/postgresql: run ./weft test"));
            return dir.resolve(tool).toString();
        }
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** Runs a command (as postgres when this is root); a failure with {@code check} throws with its output. */
    private static void run(List<String> command, boolean check) throws Exception {
        List<String> full = new ArrayList<>();
        if (isRoot() && !command.getFirst().equals("chown") && !command.getFirst().equals("chmod")) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("timed out: " + full);
        }
        if (check && p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", full) + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
