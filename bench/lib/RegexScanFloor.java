import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.sqlite.SQLiteConfig;

/**
 * What SQLite alone spends on the seed regex over 1M documents (issue 12, engine (d)), on the
 * SQLite sqlite-jdbc bundles, so that a request's cost can be set beside it:
 * <ul>
 * <li>{@code kinds}: one thread's CPU for {@code count(*)} under each condition, the kinds taking
 * turns round after round (the first round left out: JIT): the row walk alone
 * ({@code length(body)}, read from the record header), Weft's prefilter
 * ({@code CAST(body AS TEXT) GLOB '*pach*'}), the same without the CAST, {@code instr}, LIKE, and
 * GLOB patterns whose first byte is rarer or more common in the data (GLOB jumps from one
 * occurrence of the pattern's first byte to the next with {@code strcspn}, so its cost follows
 * how often that byte occurs);</li>
 * <li>{@code floor}: the scan as Weft's split read makes it, without Weft: two threads on two
 * connections, each reading half of the {@code _id} range with Weft's prefilter
 * ({@code SELECT body ... AND CAST(body AS TEXT) GLOB (? || '') ORDER BY id}), the rows that
 * pass copied into Java; wall time and each thread's CPU.</li>
 * </ul>
 * With a fifth argument, the path of {@code bench/lib/weft_has_probe.c} built as a loadable
 * extension, {@code kinds} also measures {@code weft_has(body, 'pach')}: glibc's {@code memmem} on
 * the stored bytes, a substring test that does not stop at each occurrence of the first byte.
 * usage: java -cp 'target/lib/*' bench/lib/RegexScanFloor.java DB_FILE TABLE kinds|floor ROUNDS [PROBE_SO]
 */
public class RegexScanFloor {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final String[] KINDS = {
        "length(body) > 0",
        "CAST(body AS TEXT) GLOB '*pach*'",
        "body GLOB '*pach*'",
        "CAST(body AS TEXT) LIKE '%pach%'",
        "instr(body, X'70616368') > 0",
        "CAST(body AS TEXT) GLOB '*qach*'",
        "CAST(body AS TEXT) GLOB '*hach*'",
        "CAST(body AS TEXT) GLOB '*ach*'",
    };

    public static void main(String[] args) throws Exception {
        String file = args[0];
        String table = args[1];
        int rounds = Integer.parseInt(args[3]);
        if (args[2].equals("kinds")) {
            List<String> kinds = new ArrayList<>(List.of(KINDS));
            Connection c = open(file, args.length > 4);
            if (args.length > 4) {
                try (Statement s = c.createStatement()) {
                    s.executeQuery("SELECT load_extension('" + args[4] + "', 'sqlite3_wefthasprobe_init')").close();
                }
                kinds.add("weft_has(body, X'70616368')");
            }
            kinds(c, table, kinds, rounds);
        } else {
            floor(new Connection[] {open(file, false), open(file, false)}, table, rounds);
        }
    }

    private static Connection open(String file, boolean extensions) throws Exception {
        SQLiteConfig config = new SQLiteConfig();
        config.enableLoadExtension(extensions);
        Connection c = config.createConnection("jdbc:sqlite:file:" + file + "?mode=ro");
        try (Statement s = c.createStatement()) {
            s.execute("PRAGMA mmap_size = 68719476736"); // as Weft's sqlite-mmap-bytes default
        }
        return c;
    }

    private static void kinds(Connection c, String table, List<String> kinds, int rounds) throws Exception {
        for (int round = 0; round <= rounds; round++) {
            for (String kind : kinds) {
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE " + kind);
                long t0 = CPU.getCurrentThreadCpuTime();
                long n;
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    n = rs.getLong(1);
                }
                long cpu = CPU.getCurrentThreadCpuTime() - t0;
                if (round > 0) {
                    System.out.printf("round %d  %-36s %7d rows  cpu %6.1f ms%n", round, kind, n, cpu / 1e6);
                }
            }
        }
    }

    private static void floor(Connection[] cs, String table, int rounds) throws Exception {
        byte[] mid;
        try (ResultSet rs = cs[0].createStatement()
                .executeQuery("SELECT id FROM " + table + " ORDER BY id LIMIT 1 OFFSET (SELECT count(*) / 2 FROM " + table + ")")) {
            rs.next();
            mid = rs.getBytes(1);
        }
        ExecutorService threads = Executors.newFixedThreadPool(2);
        for (int round = 0; round <= rounds; round++) {
            long t0 = System.nanoTime();
            List<Future<long[]>> parts = new ArrayList<>();
            for (int part = 0; part < 2; part++) {
                Connection c = cs[part];
                String range = part == 0 ? "id < ?" : "id >= ?";
                parts.add(threads.submit(() -> {
                    long c0 = CPU.getCurrentThreadCpuTime();
                    PreparedStatement ps = c.prepareStatement("SELECT body FROM " + table + " WHERE " + range
                            + " AND CAST(body AS TEXT) GLOB (? || '') ORDER BY id");
                    ps.setBytes(1, mid);
                    ps.setString(2, "*pach*");
                    long rows = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rs.getBytes(1);
                            rows++;
                        }
                    }
                    return new long[] {rows, CPU.getCurrentThreadCpuTime() - c0};
                }));
            }
            long[] a = parts.get(0).get();
            long[] b = parts.get(1).get();
            long wall = System.nanoTime() - t0;
            if (round > 0) {
                System.out.printf("round %d  two readers: wall %6.1f ms  cpu %6.1f + %6.1f ms  rows %d%n", round, wall / 1e6,
                        a[1] / 1e6, b[1] / 1e6, a[0] + b[0]);
            }
        }
        threads.shutdown();
    }
}
