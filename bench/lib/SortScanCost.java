import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.query.SortKeys;
import dev.weft.query.StoredFields;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;

/**
 * Where an unindexed sort's time goes per row (issue 12), on one thread: the CPU nanoseconds a
 * row of a Weft collection table costs when read as Weft's scan reads it ({@code SELECT body, id
 * ... ORDER BY id}, the body through JDBC), then with the sort field located in its bytes
 * ({@link StoredFields}), then with the whole sort key read and compared with a kept worst key
 * ({@link SortKeys#readStored}, as {@code SqlEngine.Heap} does). Each kind runs on a connection
 * opened with SQLite's per-connection mutex ({@code mutex}) and without it ({@code nomutex}, as
 * Weft's readers are); the kinds take turns, round after round, so a shared machine's load falls
 * on all of them alike; the first round is left out (JIT). Thread CPU, not wall time.
 * usage: java -cp target/weft-*.jar:target/lib/* bench/lib/SortScanCost.java DB_FILE TABLE FIELD ROUNDS
 * (DB_FILE: a data dir's weft.db, e.g. from scan_ab.sh load; TABLE: the collection's d<N> table)
 */
public class SortScanCost {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        String file = args[0];
        String table = args[1];
        String field = args[2];
        int rounds = Integer.parseInt(args[3]);
        Map<String, List<Double>> perRow = new LinkedHashMap<>();
        Map<Boolean, Connection> connections = Map.of(false, open(file, false), true, open(file, true));
        for (int round = 0; round <= rounds; round++) {
            for (boolean nomutex : List.of(false, true)) {
                for (String kind : List.of("rows", "locate", "key")) {
                    double ns = pass(connections.get(nomutex), table, field, kind);
                    if (round > 0) {
                        perRow.computeIfAbsent((nomutex ? "nomutex " : "mutex   ") + kind, k -> new ArrayList<>()).add(ns);
                    }
                }
            }
        }
        System.out.printf("CPU ns per row of %s, one thread, median of %d rounds (all rounds):%n", table, rounds);
        perRow.forEach((name, all) -> {
            List<Double> sorted = new ArrayList<>(all);
            Collections.sort(sorted);
            System.out.printf("  %-16s %6.0f   %s%n", name, sorted.get(sorted.size() / 2),
                    all.stream().map(d -> String.format("%.0f", d)).toList());
        });
    }

    private static Connection open(String file, boolean nomutex) throws Exception {
        SQLiteConfig config = new SQLiteConfig();
        if (nomutex) {
            config.setOpenMode(SQLiteOpenMode.NOMUTEX);
        }
        Connection c = config.createConnection("jdbc:sqlite:" + file);
        try (var s = c.createStatement()) {
            s.execute("PRAGMA query_only = 1");
            s.execute("PRAGMA mmap_size = 68719476736"); // Weft's default sqlite-mmap-bytes
        }
        return c;
    }

    /** One pass over the table: thread CPU nanoseconds per row. */
    private static double pass(Connection c, String table, String field, String kind) throws Exception {
        SortKeys keys = SortKeys.of(new Sort(List.of(new IndexField(field, -1))));
        SortKeys.Scratch scratch = keys.scratch();
        StoredFields.Reader located = new StoredFields(List.of(field)).reader();
        byte[] worst = null;
        long rows = 0;
        long sink = 0;
        long t0 = CPU.getCurrentThreadCpuTime();
        try (PreparedStatement ps = c.prepareStatement("SELECT body, id FROM " + table + " ORDER BY id");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                byte[] body = rs.getBytes(1);
                rows++;
                switch (kind) {
                    case "rows" -> sink += body.length;
                    case "locate" -> sink += located.locate(body) ? located.start(0) : 0;
                    default -> {
                        if (keys.readStored(body, scratch)
                                && (worst == null || SortKeys.compare(scratch.bytes(), scratch.length(), worst) < 0)) {
                            worst = scratch.copy();
                            sink += rs.getBytes(2).length;
                        }
                    }
                }
            }
        }
        double ns = (CPU.getCurrentThreadCpuTime() - t0) / (double) Math.max(1, rows);
        if (sink == 42) {
            System.out.print(""); // keeps the work
        }
        return ns;
    }
}
