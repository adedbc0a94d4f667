import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Times SQL statements on a SQLite file with the SQLite that Weft runs (sqlite-jdbc's; Debian's
 * CLI is older and cannot open an FTS5 table made with contentless_delete=1, as Weft's text and
 * trigram indexes are). Each statement runs REPS times, every row read through JDBC as Weft
 * reads them; prints the median and least wall and CPU milliseconds of the running thread (SQLite
 * runs on it, so the CPU figure is what a shared machine disturbs least), the row count, and the
 * first run's first rows. A PRAGMA runs as a statement too (e.g. Weft's reader settings first:
 * PRAGMA cache_size=-16000 and PRAGMA mmap_size=268435456).
 * usage: java -cp sqlite-jdbc.jar bench/lib/SqlTimes.java DB_FILE REPS 'SQL' ['SQL' ...]
 */
public class SqlTimes {
    public static void main(String[] args) throws Exception {
        int reps = Integer.parseInt(args[1]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0])) {
            for (int i = 2; i < args.length; i++) {
                List<Double> wall = new ArrayList<>();
                List<Double> cpu = new ArrayList<>();
                List<String> shown = new ArrayList<>();
                int rows = 0;
                for (int r = 0; r < reps; r++) {
                    long t0 = System.nanoTime();
                    long c0 = mx.getCurrentThreadCpuTime();
                    rows = run(c, args[i], r == 0 ? shown : null);
                    wall.add((System.nanoTime() - t0) / 1e6);
                    cpu.add((mx.getCurrentThreadCpuTime() - c0) / 1e6);
                }
                Collections.sort(wall);
                Collections.sort(cpu);
                System.out.printf("wall %.1f ms (least %.1f), cpu %.1f ms (least %.1f), %d rows: %s%n", wall.get(reps / 2),
                        wall.getFirst(), cpu.get(reps / 2), cpu.getFirst(), rows, args[i]);
                shown.forEach(row -> System.out.println("    " + row));
            }
        }
    }

    private static int run(Connection c, String sql, List<String> shown) throws Exception {
        try (Statement s = c.createStatement()) {
            if (!s.execute(sql)) {
                return 0;
            }
            int rows = 0;
            try (ResultSet rs = s.getResultSet()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    if (shown != null && rows < 3) {
                        StringBuilder row = new StringBuilder();
                        for (int k = 1; k <= columns; k++) {
                            row.append(k > 1 ? " | " : "").append(rs.getString(k));
                        }
                        shown.add(row.toString());
                    }
                    rows++;
                }
            }
            return rows;
        }
    }
}
