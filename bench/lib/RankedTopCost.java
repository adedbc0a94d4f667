import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Issue 22 goal (2): the first page by score on SQLite, as Fts5Postings.top computed it before
 * (FTS5's bm25, SQLite's sorter keeping the best N, joined to ids) against how it computes it now
 * (the occurrences from an fts5vocab instance table, bm25 in Java with the length from the
 * number's low bits, the best N joined by json_each), on a file built by a harness as Weft lays
 * out a text index: m(n, id), t (FTS5, columns w0 weight 10, w1 weight 1), v (fts5vocab instance).
 * Thread CPU ms, runs alternated, median of REPS. Only the cost is compared: on a file numbered
 * 1..N the lengths read from the low bits are wrong, the work is the same.
 * usage: java -cp sqlite-jdbc.jar bench/lib/RankedTopCost.java DB REPS N TERM...
 */
public class RankedTopCost {
    public static void main(String[] args) throws Exception {
        int reps = Integer.parseInt(args[1]);
        int n = Integer.parseInt(args[2]);
        List<String> terms = List.of(args).subList(3, args.length);
        StringBuilder match = new StringBuilder();
        for (String t : terms) {
            match.append(match.isEmpty() ? "\"" : " OR \"").append(t).append('"');
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Double> sql = new ArrayList<>();
        List<Double> java = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + args[0])) {
            c.createStatement().execute("PRAGMA cache_size=-16000");
            c.createStatement().execute("PRAGMA mmap_size=268435456");
            for (int r = 0; r < reps; r++) {
                long c0 = mx.getCurrentThreadCpuTime();
                int a = inSql(c, match.toString(), n);
                long c1 = mx.getCurrentThreadCpuTime();
                int b = inJava(c, terms, n);
                long c2 = mx.getCurrentThreadCpuTime();
                sql.add((c1 - c0) / 1e6);
                java.add((c2 - c1) / 1e6);
                if (r == 0) {
                    System.out.printf("rows: sql %d, java %d%n", a, b);
                }
            }
        }
        Collections.sort(sql);
        Collections.sort(java);
        System.out.printf("terms %s, n %d: CPU ms median (least) before: bm25 in SQLite %.1f (%.1f); now: bm25 in Java %.1f (%.1f)%n",
                terms, n, sql.get(reps / 2), sql.get(0), java.get(reps / 2), java.get(0));
    }

    static int inSql(Connection c, String match, int n) throws Exception {
        PreparedStatement ps = c.prepareStatement("SELECT m.id, s.score FROM (SELECT rowid, -bm25(t, 10.0, 1.0) AS score FROM t"
                + " WHERE t MATCH ? ORDER BY score DESC LIMIT ?) s CROSS JOIN m ON m.n = s.rowid ORDER BY s.score DESC, m.id");
        ps.setString(1, match);
        ps.setInt(2, n);
        int rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rs.getBytes(1);
                rs.getDouble(2);
                rows++;
            }
        }
        return rows;
    }

    static int inJava(Connection c, List<String> terms, int n) throws Exception {
        int[] weights = {10, 1};
        long rows;
        long tokens = 0;
        try (ResultSet rs = c.createStatement().executeQuery("SELECT block FROM t_data WHERE id = 1")) {
            rs.next();
            byte[] b = rs.getBytes(1);
            int[] at = {0};
            rows = varint(b, at);
            while (at[0] < b.length) {
                tokens += varint(b, at);
            }
        }
        double avgdl = (double) tokens / rows;
        Map<Long, double[]> freqs = new HashMap<>();
        int[] hits = new int[terms.size()];
        PreparedStatement occ = c.prepareStatement("SELECT doc, col FROM v WHERE term = ?");
        for (int t = 0; t < terms.size(); t++) {
            occ.setString(1, terms.get(t));
            try (ResultSet rs = occ.executeQuery()) {
                while (rs.next()) {
                    double[] f = freqs.computeIfAbsent(rs.getLong(1), d -> new double[terms.size()]);
                    if (f[t] == 0) {
                        hits[t]++;
                    }
                    String col = rs.getString(2);
                    f[t] += weights[Integer.parseInt(col, 1, col.length(), 10)];
                }
            }
        }
        double[] idf = new double[terms.size()];
        for (int t = 0; t < terms.size(); t++) {
            idf[t] = Math.max(1e-6, Math.log((rows - hits[t] + 0.5) / (hits[t] + 0.5)));
        }
        long[] doc = new long[freqs.size()];
        double[] score = new double[freqs.size()];
        int i = 0;
        for (Map.Entry<Long, double[]> e : freqs.entrySet()) {
            double length = e.getKey() & ((1 << 20) - 1);
            double sum = 0;
            for (int t = 0; t < terms.size(); t++) {
                double f = e.getValue()[t];
                sum += idf[t] * ((f * 2.2) / (f + 1.2 * (0.25 + 0.75 * length / avgdl)));
            }
            doc[i] = e.getKey();
            score[i++] = sum;
        }
        double[] sorted = Arrays.copyOf(score, i);
        Arrays.sort(sorted);
        double least = sorted[Math.max(0, sorted.length - n)];
        StringBuilder numbers = new StringBuilder("[");
        for (int k = 0; k < i; k++) {
            if (score[k] >= least) {
                numbers.append(numbers.length() > 1 ? "," : "").append(doc[k]);
            }
        }
        PreparedStatement ids = c.prepareStatement("SELECT n, id FROM m WHERE n IN (SELECT value FROM json_each(?))");
        ids.setString(1, numbers.append(']').toString());
        int out = 0;
        try (ResultSet rs = ids.executeQuery()) {
            while (rs.next()) {
                rs.getLong(1);
                rs.getBytes(2);
                out++;
            }
        }
        return out;
    }

    static long varint(byte[] b, int[] at) {
        long v = 0;
        for (int k = 0; k < 8; k++) {
            int x = b[at[0]++] & 0xff;
            v = (v << 7) | (x & 0x7f);
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        return (v << 8) | (b[at[0]++] & 0xff);
    }
}
