import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Issue 22, $text at 1M on SQLite: what splitting the ranked FTS5 statement by rowid range over
 * PARTS read connections, one thread each, would save. Each part runs Fts5Postings' best-n
 * statement ({@code -bm25(...)} with the index's weights, {@code ORDER BY score DESC LIMIT n})
 * restricted to its rowid range; FTS5 computes bm25's inverse document frequencies over the whole
 * table in every part, so the parts' scores are the whole statement's (same snapshot). Prints the
 * median and least wall milliseconds of the whole statement on one connection and of the split
 * (the parts started together, timed until the last ends), and checks that the best n of the
 * parts' union have the whole statement's scores.
 * usage: java -cp sqlite-jdbc.jar bench/lib/RankedSplit.java DB_FILE INDEX_TABLE 'MATCH' WEIGHTS N PARTS REPS
 *        e.g. weft.db i1 '"sorquen" OR "logalhol"' 10.0,1.0 200 2 15
 */
public class RankedSplit {
    public static void main(String[] args) throws Exception {
        String db = args[0];
        String table = args[1];
        String match = args[2];
        String weights = args[3];
        int n = Integer.parseInt(args[4]);
        int parts = Integer.parseInt(args[5]);
        int reps = Integer.parseInt(args[6]);
        String scored = "SELECT rowid, -bm25(" + table + "_t, " + weights + ") AS score FROM " + table + "_t WHERE " + table
                + "_t MATCH ?";
        List<Connection> connections = new ArrayList<>();
        for (int i = 0; i < parts; i++) {
            Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA cache_size = -16000");
                s.execute("PRAGMA mmap_size = 268435456");
            }
            connections.add(c);
        }
        long maxRowid;
        try (Statement s = connections.getFirst().createStatement();
             ResultSet rs = s.executeQuery("SELECT max(n) FROM " + table)) {
            rs.next();
            maxRowid = rs.getLong(1);
        }
        ExecutorService threads = Executors.newFixedThreadPool(parts);
        List<Double> whole = new ArrayList<>();
        List<Double> split = new ArrayList<>();
        List<Double> wholeScores = null;
        List<Double> splitScores = null;
        for (int r = 0; r < reps; r++) {
            long t0 = System.nanoTime();
            wholeScores = scores(connections.getFirst(), scored + " ORDER BY score DESC LIMIT ?", match, n, -1, -1);
            whole.add((System.nanoTime() - t0) / 1e6);
            t0 = System.nanoTime();
            List<Future<List<Double>>> futures = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                Connection c = connections.get(p);
                long lo = maxRowid * p / parts + 1;
                long hi = p == parts - 1 ? Long.MAX_VALUE : maxRowid * (p + 1) / parts + 1;
                futures.add(threads.submit(() -> scores(c, scored + " AND rowid >= ? AND rowid < ? ORDER BY score DESC LIMIT ?",
                        match, n, lo, hi)));
            }
            List<Double> union = new ArrayList<>();
            for (Future<List<Double>> f : futures) {
                union.addAll(f.get());
            }
            split.add((System.nanoTime() - t0) / 1e6);
            union.sort(Collections.reverseOrder());
            splitScores = union.subList(0, Math.min(n, union.size()));
        }
        threads.shutdown();
        System.out.printf("whole statement: %.1f ms median (least %.1f); split in %d parts: %.1f ms median (least %.1f);"
                        + " best %d scores equal: %s%n", median(whole), Collections.min(whole), parts, median(split),
                Collections.min(split), n, wholeScores.equals(splitScores));
    }

    private static List<Double> scores(Connection c, String sql, String match, int n, long lo, long hi) throws Exception {
        PreparedStatement ps = c.prepareStatement(sql);
        int i = 1;
        ps.setString(i++, match);
        if (lo >= 0) {
            ps.setLong(i++, lo);
            ps.setLong(i++, hi);
        }
        ps.setInt(i, n);
        List<Double> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getDouble(2));
            }
        }
        ps.close();
        return out;
    }

    private static double median(List<Double> t) {
        List<Double> s = new ArrayList<>(t);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
