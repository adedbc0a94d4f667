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
 * Whether SQLite could reject an unindexed sort's rows before they are copied to Java (issue 12):
 * the CPU nanoseconds per row, on one thread and on the SQLite sqlite-jdbc bundles, of walking a
 * Weft collection table as the scan does and of what SQLite can evaluate on each stored body
 * without Weft: the row alone (its length), finding the field's name ({@code instr}), the same in
 * the last 100 bytes, JSON extraction ({@code json_extract}, {@code ->>}), beside the row read
 * into Java as the scan reads it ({@code SELECT body, id}, {@code getBytes}). A bound pushed into
 * SQL pays off only if its test costs less than what it saves (the copy into Java, then the key
 * located and compared there). The kinds take turns, round after round; the first round is left
 * out (JIT). Thread CPU, not wall time.
 * usage: java -cp 'target/lib/*' bench/lib/SortSqlBound.java DB_FILE TABLE FIELD ROUNDS
 */
public class SortSqlBound {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        String file = args[0];
        String table = args[1];
        String field = args[2];
        int rounds = Integer.parseInt(args[3]);
        SQLiteConfig config = new SQLiteConfig();
        config.setOpenMode(SQLiteOpenMode.NOMUTEX); // as Weft's readers
        Connection c = config.createConnection("jdbc:sqlite:" + file);
        try (var s = c.createStatement()) {
            s.execute("PRAGMA query_only = 1");
            s.execute("PRAGMA mmap_size = 68719476736"); // Weft's default sqlite-mmap-bytes
        }
        String name = "'\"" + field + "\":'";
        Map<String, String> kinds = new LinkedHashMap<>();
        kinds.put("row into Java (getBytes)", "SELECT body, id FROM " + table + " ORDER BY id");
        kinds.put("length(body) > 0", "SELECT count(*) FROM " + table + " WHERE length(body) > 0");
        kinds.put("instr(body, name)", "SELECT count(*) FROM " + table + " WHERE instr(body, " + name + ") > 0");
        kinds.put("instr(last 100 bytes, name)", "SELECT count(*) FROM " + table + " WHERE instr(substr(body, -100), " + name + ") > 0");
        kinds.put("json_extract(body) > 0", "SELECT count(*) FROM " + table + " WHERE json_extract(body, '$." + field + "') > 0");
        kinds.put("body ->> field > 0", "SELECT count(*) FROM " + table + " WHERE body ->> '" + field + "' > 0");
        Map<String, List<Double>> perRow = new LinkedHashMap<>();
        long rows = 0;
        try (ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            rows = rs.getLong(1);
        }
        for (int round = 0; round <= rounds; round++) {
            for (Map.Entry<String, String> kind : kinds.entrySet()) {
                long t0 = CPU.getCurrentThreadCpuTime();
                long sink = 0;
                try (PreparedStatement ps = c.prepareStatement(kind.getValue()); ResultSet rs = ps.executeQuery()) {
                    boolean bodies = kind.getValue().startsWith("SELECT body");
                    while (rs.next()) {
                        sink += bodies ? rs.getBytes(1).length : rs.getLong(1);
                    }
                }
                double ns = (CPU.getCurrentThreadCpuTime() - t0) / (double) rows;
                if (round > 0) {
                    perRow.computeIfAbsent(kind.getKey(), k -> new ArrayList<>()).add(ns);
                }
                if (sink == 42) {
                    System.out.print(""); // keeps the work
                }
            }
        }
        try (ResultSet rs = c.createStatement().executeQuery("SELECT sqlite_version()")) {
            rs.next();
            System.out.printf("CPU ns per row of %s (%d rows), SQLite %s, one thread, median of %d rounds (all rounds):%n",
                    table, rows, rs.getString(1), rounds);
        }
        perRow.forEach((kind, all) -> {
            List<Double> sorted = new ArrayList<>(all);
            Collections.sort(sorted);
            System.out.printf("  %-28s %6.0f   %s%n", kind, sorted.get(sorted.size() / 2),
                    all.stream().map(d -> String.format("%.0f", d)).toList());
        });
    }
}
