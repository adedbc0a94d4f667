import java.sql.*;
import java.util.*;
import org.sqlite.SQLiteConfig;

/**
 * Issue 22 (bench/results/text-pair-occurrence-cut.txt): FTS5's ORDER BY bm25 LIMIT n against
 * the probe's weft_top (bench/lib/weft_top_probe.c: bm25 that skips the length lookup of a row
 * its instances already bound below the n-th best so far), both over the whole OR query; checks
 * the pages equal (ids and scores, bit for bit), then thread CPU of each, alternated.
 * usage: gcc -O2 -fPIC -shared -ffp-contract=off -o weft_top_probe.so bench/lib/weft_top_probe.c -lm
 *        java -cp sqlite-jdbc.jar bench/lib/Fts5TopProbe.java DB /abs/weft_top_probe.so INDEX_TABLE WEIGHTS 'MATCH' N REPS
 *        e.g. weft.db /tmp/weft_top_probe.so i1 10.0,1.0 '"sorquen" OR "logalhol"' 200 21
 */
public class Fts5TopProbe {
    public static void main(String[] a) throws Exception {
        SQLiteConfig config = new SQLiteConfig();
        config.enableLoadExtension(true);
        config.setReadOnly(true);
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        try (Connection c = config.createConnection("jdbc:sqlite:file:" + a[0] + "?mode=ro")) {
            c.createStatement().execute("PRAGMA cache_size = -16000");
            c.createStatement().execute("PRAGMA mmap_size = 268435456");
            try (ResultSet rs = c.createStatement().executeQuery("SELECT load_extension('" + a[1] + "', 'sqlite3_wefttopprobe_init')")) { rs.next(); }
            String t = a[2], w = a[3], match = a[4];
            int n = Integer.parseInt(a[5]), reps = Integer.parseInt(a[6]);
            String tail = ") s CROSS JOIN " + t + " m ON m.n = s.rowid ORDER BY s.score DESC, m.id";
            PreparedStatement bm25 = c.prepareStatement("SELECT m.id, s.score FROM (SELECT rowid, -bm25(" + t + "_t, " + w + ") AS score FROM " + t + "_t WHERE " + t + "_t MATCH ? ORDER BY score DESC LIMIT " + n + tail);
            PreparedStatement probe = c.prepareStatement("SELECT m.id, s.score FROM (SELECT rowid, -weft_top(" + t + "_t, " + n + ", " + w + ") AS score FROM " + t + "_t WHERE " + t + "_t MATCH ? ORDER BY score DESC LIMIT " + n + tail);
            List<Double> x = new ArrayList<>(), y = new ArrayList<>();
            for (int r = 0; r <= reps; r++) {
                long t0 = mx.getCurrentThreadCpuTime();
                List<String> p1 = page(bm25, match);
                long t1 = mx.getCurrentThreadCpuTime();
                List<String> p2 = page(probe, match);
                long t2 = mx.getCurrentThreadCpuTime();
                if (r == 0) {
                    if (!p1.equals(p2)) { System.out.println("PAGES DIFFER\n" + p1 + "\n" + p2); System.exit(1); }
                    System.out.println("pages equal: " + p1.size() + " (id, score) rows, scores compared as raw double bits; last " + p1.getLast().replaceAll("^.*\\|", ""));
                } else { x.add((t1 - t0) / 1e6); y.add((t2 - t1) / 1e6); }
            }
            Collections.sort(x); Collections.sort(y);
            System.out.printf("%s n %d, thread CPU ms, median (least) of %d alternated: bm25 %.2f (%.2f); weft_top probe %.2f (%.2f)%n",
                match, n, reps, x.get(reps / 2), x.get(0), y.get(reps / 2), y.get(0));
        }
    }

    static List<String> page(PreparedStatement ps, String match) throws SQLException {
        ps.setString(1, match);
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) out.add(HexFormat.of().formatHex(rs.getBytes(1)) + "|" + Long.toHexString(Double.doubleToRawLongBits(rs.getDouble(2))) + "|" + rs.getDouble(2));
        }
        return out;
    }
}
