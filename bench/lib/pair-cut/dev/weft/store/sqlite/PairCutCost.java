package dev.weft.store.sqlite;

import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.store.sql.SqlConnection;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.List;
import java.util.Map;

/**
 * Issue 22 goal (2): Fts5Postings.top for two words (the cut by score bound, Fts5PairTop) against
 * the plain best 200 of the OR query, on a Weft data file (read-only), runs alternated; median
 * wall and thread CPU ms of REPS. Compile against target/classes and run:
 *   javac -cp "target/classes:target/lib/*" -d /tmp/pc bench/lib/pair-cut/dev/weft/store/sqlite/PairCutCost.java
 *   java -cp "/tmp/pc:target/classes:target/lib/*" dev.weft.store.sqlite.PairCutCost DATA/weft.db i1 9 "finlov ulfen" "sorquen logalhol"
 * (the text index table i1; the words as the index holds them: folded and stemmed).
 */
public class PairCutCost {
    public static void main(String[] a) throws Exception {
        TextIndex index = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.ENGLISH, "language");
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + a[0] + "?mode=ro")) {
            SqlConnection sql = new SqlConnection(c);
            Fts5Postings p = new Fts5Postings(0, new PendingPostings());
            String table = a[1];
            int reps = Integer.parseInt(a[2]);
            for (int q = 3; q < a.length; q++) {
                List<String> terms = List.of(a[q].split(" "));
                long[][] t = new long[4][reps];
                int sizes[] = new int[2];
                for (int r = 0; r < reps; r++) {
                    long w0 = System.nanoTime(), c0 = mx.getCurrentThreadCpuTime();
                    sizes[0] = p.top(sql, table, index, terms, 200).ranked().size();
                    long w1 = System.nanoTime(), c1 = mx.getCurrentThreadCpuTime();
                    sizes[1] = Fts5Postings.best(sql, table, index, (String) p.lookupArgs(terms).getFirst(), 200).size();
                    long w2 = System.nanoTime(), c2 = mx.getCurrentThreadCpuTime();
                    t[0][r] = w1 - w0; t[1][r] = c1 - c0; t[2][r] = w2 - w1; t[3][r] = c2 - c1;
                }
                for (long[] x : t) java.util.Arrays.sort(x);
                System.out.printf("%-22s top (pair cut) wall %.1f cpu %.1f ms (%d) | plain OR best-200 wall %.1f cpu %.1f ms (%d)%n", a[q],
                        t[0][reps / 2] / 1e6, t[1][reps / 2] / 1e6, sizes[0], t[2][reps / 2] / 1e6, t[3][reps / 2] / 1e6, sizes[1]);
            }
        }
    }
}
