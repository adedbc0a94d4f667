import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteOpenMode;
import org.sqlite.core.CoreResultSet;
import org.sqlite.core.CoreStatement;
import org.sqlite.core.DB;

/**
 * What it costs to hand a row's body from SQLite to Java (issue 12, the unindexed sort): one
 * thread's CPU per row of {@code SELECT body, id FROM TABLE ORDER BY id} read three ways, round
 * after round in turn (the first round left out, JIT): {@code jdbc}, sqlite-jdbc's result set
 * ({@code next}, {@code getBytes}), as the scans read before; {@code stepped}, its {@code DB}'s
 * {@code step} and {@code column_blob} called directly, as {@code SteppedRows} reads; {@code
 * stepped+lock}, the same with the connection's lock held around the whole read (each call then
 * takes it again recursively). Each reads the body's length and one byte, nothing else.
 * usage: java --enable-native-access=ALL-UNNAMED -cp 'target/lib/*' bench/lib/ScanRowCost.java DB_FILE TABLE ROUNDS
 */
public class ScanRowCost {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        config.setOpenMode(SQLiteOpenMode.NOMUTEX);
        String sql = "SELECT body, id FROM " + args[1] + " ORDER BY id";
        int rounds = Integer.parseInt(args[2]);
        Map<String, List<Long>> perRow = new LinkedHashMap<>();
        long rows = 0;
        try (Connection c = config.createConnection("jdbc:sqlite:" + args[0])) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA mmap_size = 68719476736");
            }
            for (int round = 0; round <= rounds; round++) {
                for (String kind : List.of("jdbc", "stepped", "stepped+lock")) {
                    long t0 = CPU.getCurrentThreadCpuTime();
                    long[] counted = read(c, sql, kind);
                    long ns = CPU.getCurrentThreadCpuTime() - t0;
                    rows = counted[0];
                    if (round > 0) {
                        perRow.computeIfAbsent(kind, k -> new ArrayList<>()).add(ns / counted[0]);
                    }
                }
            }
        }
        System.out.printf("CPU ns per row of %s (%d rows), one thread, %d rounds:%n", args[1], rows, rounds);
        perRow.forEach((kind, all) -> {
            List<Long> sorted = new ArrayList<>(all);
            Collections.sort(sorted);
            System.out.printf("  %-13s median %4d  fastest %4d   %s%n", kind, sorted.get(sorted.size() / 2), sorted.get(0), all);
        });
    }

    /** Rows read and a checksum of the bytes looked at. */
    private static long[] read(Connection c, String sql, String kind) throws Exception {
        long n = 0;
        long sum = 0;
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            if (kind.equals("jdbc")) {
                while (rs.next()) {
                    byte[] b = rs.getBytes(1);
                    sum += b.length + b[b.length / 2];
                    n++;
                }
                return new long[] {n, sum};
            }
            CoreStatement core = (CoreStatement) ps;
            DB db = core.getDatabase();
            long stmt = core.pointer.safeRunLong((d, p) -> p);
            boolean any = !((CoreResultSet) rs).emptyResultSet;
            if (kind.equals("stepped")) {
                for (boolean row = any; row; row = db.step(stmt) == 100) {
                    byte[] b = db.column_blob(stmt, 0);
                    sum += b.length + b[b.length / 2];
                    n++;
                }
            } else {
                synchronized (db) {
                    for (boolean row = any; row; row = db.step(stmt) == 100) {
                        byte[] b = db.column_blob(stmt, 0);
                        sum += b.length + b[b.length / 2];
                        n++;
                    }
                }
            }
        }
        return new long[] {n, sum};
    }
}
