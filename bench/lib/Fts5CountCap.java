import java.sql.*;
import java.util.*;
/**
 * usage: java -cp sqlite-jdbc.jar bench/lib/Fts5CountCap.java DB FTS_TABLE FEWEST WORD1 WORD2
 * Fts5PairTop's two document counts (search-23): every document (before) against up to the fewest that put the bound below theta (after), interleaved, thread CPU. */
public class Fts5CountCap {
    public static void main(String[] a) throws Exception {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + a[0] + "?mode=ro")) {
            long fewest = Long.parseLong(a[2]);
            String[] words = {a[3], a[4]};
            PreparedStatement all = c.prepareStatement("SELECT count(*) FROM " + a[1] + " WHERE " + a[1] + " MATCH ?");
            PreparedStatement capped = c.prepareStatement("SELECT count(*) FROM (SELECT 1 FROM " + a[1] + " WHERE " + a[1] + " MATCH ? LIMIT (? + 0))");
            List<Double> before = new ArrayList<>(), after = new ArrayList<>();
            for (int round = 0; round < 61; round++) {
                long t0 = mx.getCurrentThreadCpuTime();
                for (String t : words) { all.setString(1, "\"" + t + "\""); try (ResultSet r = all.executeQuery()) { r.next(); } }
                long t1 = mx.getCurrentThreadCpuTime();
                for (String t : words) { capped.setString(1, "\"" + t + "\""); capped.setLong(2, fewest); try (ResultSet r = capped.executeQuery()) { r.next(); if (r.getLong(1) != fewest) throw new AssertionError(t); } }
                long t2 = mx.getCurrentThreadCpuTime();
                if (round > 0) { before.add((t1 - t0) / 1e6); after.add((t2 - t1) / 1e6); }
            }
            Collections.sort(before); Collections.sort(after);
            System.out.printf("two counts, thread CPU over 60 interleaved rounds: every document median %.2f ms (min %.2f); up to %d median %.2f ms (min %.2f)%n",
                before.get(30), before.get(0), fewest, after.get(30), after.get(0));
        }
    }
}
