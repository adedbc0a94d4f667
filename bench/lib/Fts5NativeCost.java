import java.sql.*;
import java.util.*;
import org.sqlite.SQLiteConfig;

/**
 * Issue 22 (bench/results/search-26-native-ab.txt): thread CPU of single SQLite statements on a
 * Weft data file with Weft's native ranking function loaded (target/native/.../libweftrank.so),
 * the statements alternated, median (least) of REPS. Each statement's first row is printed.
 * usage: java -cp sqlite-jdbc.jar bench/lib/Fts5NativeCost.java DB /abs/libweftrank.so REPS 'SQL' ['SQL' ...]
 */
public class Fts5NativeCost {
    public static void main(String[] a) throws Exception {
        SQLiteConfig config = new SQLiteConfig();
        config.enableLoadExtension(true);
        config.setReadOnly(true);
        var mx = java.lang.management.ManagementFactory.getThreadMXBean();
        try (Connection c = config.createConnection("jdbc:sqlite:file:" + a[0] + "?mode=ro")) {
            c.createStatement().execute("PRAGMA cache_size = -16000");
            c.createStatement().execute("PRAGMA mmap_size = 268435456");
            try (ResultSet rs = c.createStatement().executeQuery("SELECT load_extension('" + a[1] + "', 'sqlite3_weftrank_init')")) { rs.next(); }
            int reps = Integer.parseInt(a[2]);
            List<String> sqls = Arrays.asList(a).subList(3, a.length);
            List<List<Double>> t = new ArrayList<>();
            List<String> first = new ArrayList<>();
            for (String s : sqls) { t.add(new ArrayList<>()); first.add(""); }
            for (int r = 0; r <= reps; r++) {
                for (int i = 0; i < sqls.size(); i++) {
                    long t0 = mx.getCurrentThreadCpuTime();
                    String row = "";
                    try (ResultSet rs = c.createStatement().executeQuery(sqls.get(i))) {
                        int cols = rs.getMetaData().getColumnCount();
                        boolean one = true;
                        while (rs.next()) {
                            if (one) { StringBuilder b = new StringBuilder(); for (int k = 1; k <= cols; k++) b.append(rs.getString(k)).append('|'); row = b.toString(); one = false; }
                        }
                    }
                    long t1 = mx.getCurrentThreadCpuTime();
                    if (r > 0) t.get(i).add((t1 - t0) / 1e6); else first.set(i, row);
                }
            }
            for (int i = 0; i < sqls.size(); i++) {
                List<Double> x = t.get(i); Collections.sort(x);
                String s = sqls.get(i);
                System.out.printf("%7.2f ms (min %6.2f)  %s  [%s]%n", x.get(reps / 2), x.get(0), s.length() > 150 ? s.substring(0, 150) : s, first.get(i));
            }
        }
    }
}
