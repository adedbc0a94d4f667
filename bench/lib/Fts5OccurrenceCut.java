import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Issue 22, two-word $text at 1M on SQLite (bench/results/text-pair-occurrence-cut.txt): would a
 * cut by per-document bound beat FTS5's bm25 over every match for two rare words (where
 * Fts5PairTop has no cut: fewer than n documents hold both)? The cut tried: each word's
 * occurrences read from an fts5vocab instance table (document, column, offset, packed in one
 * integer), a bound above each document's bm25 (a word's share idf (k1+1) f / (f + k1 (1 - b + b
 * D / avgdl)) at its exact weighted count f and the least length D the offsets prove, idf over
 * FTS5's own count of the phrase, avgdl from FTS5's averages record), the 2n documents of highest
 * bound scored exactly by FTS5 (the whole OR query, {@code +rowid IN (json_each)}: FTS5's own
 * scores), theta = their n-th best, then the rest whose bound is at least theta. Checks the page
 * (ids and scores) against FTS5's {@code ORDER BY bm25 LIMIT n}, then times both alternated,
 * thread CPU, with the cut's parts.
 * usage: java -cp sqlite-jdbc.jar bench/lib/Fts5OccurrenceCut.java DB INDEX_TABLE WEIGHTS A B N REPS [FIRST]
 *        e.g. weft.db i1 10,1 sorquen logalhol 200 31 3   (FIRST: the first round scores the FIRST x n of highest bound; 2)
 */
public class Fts5OccurrenceCut {
    static final double K1 = 1.2, B = 0.75, MARGIN = 1e-9;
    static int firstRound;
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    static final String[] PARTS = {"occurrences read", "two phrase counts", "bounds", "first round scored", "rest above theta scored"};

    record Ranked(byte[] id, double score) {}

    public static void main(String[] args) throws Exception {
        String table = args[1];
        int[] weights = Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray();
        String a = args[3], b = args[4];
        int n = Integer.parseInt(args[5]), reps = Integer.parseInt(args[6]);
        firstRound = args.length > 7 ? Integer.parseInt(args[7]) : 2;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + args[0] + "?mode=ro")) {
            c.createStatement().execute("PRAGMA cache_size = -16000");
            c.createStatement().execute("PRAGMA mmap_size = 268435456");
            c.createStatement().execute("CREATE VIRTUAL TABLE temp.occ USING fts5vocab(main, '" + table + "_t', 'instance')");
            Cut cut = new Cut(c, table, weights, a, b);
            List<Double> cutMs = new ArrayList<>(), fullMs = new ArrayList<>();
            List<List<Double>> parts = new ArrayList<>();
            for (String p : PARTS) {
                parts.add(new ArrayList<>());
            }
            for (int r = 0; r <= reps; r++) {
                long t0 = MX.getCurrentThreadCpuTime();
                List<Ranked> mine = cut.best(n);
                long t1 = MX.getCurrentThreadCpuTime();
                List<Ranked> full = fullBest(c, table, weights, a, b, n);
                long t2 = MX.getCurrentThreadCpuTime();
                if (r == 0) {
                    check(mine, full, n);
                    System.out.printf("rows %d, occurrences %d, documents %d; first round %d, rest %d; theta %.4f%n",
                            cut.rows, cut.count, cut.docs, cut.first, cut.rest, cut.theta);
                    continue;
                }
                cutMs.add((t1 - t0) / 1e6);
                fullMs.add((t2 - t1) / 1e6);
                for (int i = 0; i < PARTS.length; i++) {
                    parts.get(i).add(cut.parts[i] / 1e6);
                }
            }
            System.out.printf("first round %d x n: %s %s, n %d, thread CPU ms, median (least) of %d alternated: FTS5 bm25 of every match %.2f (%.2f); cut %.2f (%.2f)%n",
                    firstRound, a, b, n, reps, median(fullMs), Collections.min(fullMs), median(cutMs), Collections.min(cutMs));
            for (int i = 0; i < PARTS.length; i++) {
                System.out.printf("   cut: %-24s %.2f%n", PARTS[i], median(parts.get(i)));
            }
        }
    }

    static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }

    /** The cut's page must be FTS5's: the same scores, the same ids but within the n-th's group of equal scores. */
    static void check(List<Ranked> mine, List<Ranked> full, int n) {
        for (int i = 0; i < n; i++) {
            if (mine.get(i).score() != full.get(i).score()) {
                throw new AssertionError("score " + i + ": " + mine.get(i).score() + " against " + full.get(i).score());
            }
            if (mine.get(i).score() != full.get(n - 1).score() && !Arrays.equals(mine.get(i).id(), full.get(i).id())) {
                throw new AssertionError("id " + i);
            }
        }
        System.out.println("page checked: the cut's " + n + " scores are FTS5's, ids the same above the n-th's score");
    }

    static String scored(String table, int[] weights) {
        StringBuilder w = new StringBuilder();
        for (int x : weights) {
            w.append(", ").append(x).append(".0");
        }
        return "SELECT rowid, -bm25(" + table + "_t" + w + ") AS score FROM " + table + "_t WHERE " + table + "_t MATCH ?";
    }

    static List<Ranked> fullBest(Connection c, String table, int[] weights, String a, String b, int n) throws SQLException {
        PreparedStatement ps = c.prepareStatement("SELECT m.id, s.score FROM (" + scored(table, weights)
                + " ORDER BY score DESC LIMIT ?) s CROSS JOIN " + table + " m ON m.n = s.rowid ORDER BY s.score DESC, m.id");
        ps.setString(1, "\"" + a + "\" OR \"" + b + "\"");
        ps.setInt(2, n);
        return rows(ps);
    }

    static List<Ranked> rows(PreparedStatement ps) throws SQLException {
        List<Ranked> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Ranked(rs.getBytes(1), rs.getDouble(2)));
            }
        }
        return out;
    }

    static int rankOrder(Ranked x, Ranked y) {
        int byScore = Double.compare(y.score(), x.score());
        return byScore != 0 ? byScore : Arrays.compareUnsigned(x.id(), y.id());
    }

    static final class Cut {
        final Connection c;
        final String table;
        final int[] weights;
        final String a, b;
        final PreparedStatement read, phraseCount, exact;
        long[] occ = new long[1024];
        long rows;
        int count, docs, first, rest;
        double theta;
        final long[] parts = new long[PARTS.length];

        Cut(Connection c, String table, int[] weights, String a, String b) throws SQLException {
            this.c = c;
            this.table = table;
            this.weights = weights;
            this.a = a;
            this.b = b;
            read = c.prepareStatement("SELECT (doc << 24) | (? << 23) | (CAST(substr(col, 2) AS INTEGER) << 16) | min(offset, 65535) FROM temp.occ WHERE term = ?");
            phraseCount = c.prepareStatement("SELECT count(*) FROM " + table + "_t WHERE " + table + "_t MATCH ?");
            exact = c.prepareStatement("SELECT m.id, s.score FROM (" + scored(table, weights)
                    + " AND +rowid IN (SELECT value FROM json_each(?))) s CROSS JOIN " + table + " m ON m.n = s.rowid");
        }

        List<Ranked> best(int n) throws SQLException {
            long t0 = MX.getCurrentThreadCpuTime();
            count = read(a, 0, 0);
            count = read(b, 1, count);
            long t1 = MX.getCurrentThreadCpuTime();
            long[] averages = averages();
            rows = averages[0];
            long greatest = one("SELECT max(n) FROM " + table);
            double avgdl = (double) averages[1] / averages[0] * (1 + MARGIN);
            double[] idf = {idf(Math.max(rows, greatest), hits(a)), idf(Math.max(rows, greatest), hits(b))};
            long t2 = MX.getCurrentThreadCpuTime();
            Arrays.sort(occ, 0, count);
            long[] rowid = new long[count];
            double[] bound = new double[count];
            docs = 0;
            double[] f = new double[2];
            int[] last = new int[weights.length];
            for (int i = 0; i < count; ) {
                long doc = occ[i] >>> 24;
                Arrays.fill(f, 0);
                Arrays.fill(last, -1);
                for (; i < count && occ[i] >>> 24 == doc; i++) {
                    int col = (int) (occ[i] >>> 16) & 0x7f;
                    f[(int) (occ[i] >>> 23) & 1] += weights[col];
                    last[col] = Math.max(last[col], (int) occ[i] & 0xffff);
                }
                long shortest = 0;
                for (int o : last) {
                    shortest += o + 1;
                }
                double lengthFactor = K1 * (1 - B + B * shortest / avgdl), sum = 0;
                for (int w = 0; w < 2; w++) {
                    if (f[w] > 0) {
                        sum += idf[w] * (f[w] * (K1 + 1)) / (f[w] + lengthFactor);
                    }
                }
                rowid[docs] = doc;
                bound[docs++] = sum * (1 + MARGIN);
            }
            double[] sorted = Arrays.copyOf(bound, docs);
            Arrays.sort(sorted);
            double firstBound = sorted[Math.max(0, docs - firstRound * n)];
            long t3 = MX.getCurrentThreadCpuTime();
            List<Long> firstRound = within(rowid, bound, firstBound, Double.POSITIVE_INFINITY);
            first = firstRound.size();
            List<Ranked> scored = exact(firstRound);
            scored.sort(Fts5OccurrenceCut::rankOrder);
            theta = scored.get(n - 1).score();
            long t4 = MX.getCurrentThreadCpuTime();
            rest = 0;
            if (theta < firstBound) {
                List<Long> more = within(rowid, bound, theta, firstBound);
                rest = more.size();
                scored.addAll(exact(more));
                scored.sort(Fts5OccurrenceCut::rankOrder);
            }
            long t5 = MX.getCurrentThreadCpuTime();
            long[] at = {t0, t1, t2, t3, t4, t5};
            for (int i = 0; i < PARTS.length; i++) {
                parts[i] = at[i + 1] - at[i];
            }
            return scored.subList(0, n);
        }

        static List<Long> within(long[] rowid, double[] bound, double low, double high) {
            List<Long> out = new ArrayList<>();
            for (int i = 0; i < rowid.length && i < bound.length; i++) {
                if (bound[i] >= low && bound[i] < high && rowid[i] > 0) {
                    out.add(rowid[i]);
                }
            }
            return out;
        }

        int read(String term, int word, int at) throws SQLException {
            read.setInt(1, word);
            read.setString(2, term);
            try (ResultSet rs = read.executeQuery()) {
                while (rs.next()) {
                    if (at == occ.length) {
                        occ = Arrays.copyOf(occ, 2 * at);
                    }
                    occ[at++] = rs.getLong(1);
                }
            }
            return at;
        }

        List<Ranked> exact(List<Long> docs) throws SQLException {
            if (docs.isEmpty()) {
                return new ArrayList<>();
            }
            StringBuilder ids = new StringBuilder("[");
            for (long d : docs) {
                ids.append(ids.length() == 1 ? "" : ",").append(d);
            }
            exact.setString(1, "\"" + a + "\" OR \"" + b + "\"");
            exact.setString(2, ids.append(']').toString());
            return rows(exact);
        }

        long hits(String term) throws SQLException {
            phraseCount.setString(1, "\"" + term + "\"");
            try (ResultSet rs = phraseCount.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }

        static double idf(long rows, long hits) {
            return Math.max(Math.log((rows - hits + 0.5) / (hits + 0.5)), 1e-6) * (1 + MARGIN);
        }

        long one(String q) throws SQLException {
            try (ResultSet rs = c.createStatement().executeQuery(q)) {
                rs.next();
                return rs.getLong(1);
            }
        }

        /** FTS5's averages record: rows, then each column's tokens (SQLite varints). */
        long[] averages() throws SQLException {
            try (ResultSet rs = c.createStatement().executeQuery("SELECT block FROM " + table + "_t_data WHERE id = 1")) {
                rs.next();
                byte[] block = rs.getBytes(1);
                int[] at = {0};
                long r = varint(block, at), tokens = 0;
                for (int i = 0; i < weights.length; i++) {
                    tokens += varint(block, at);
                }
                return new long[] {r, tokens};
            }
        }

        static long varint(byte[] bytes, int[] at) {
            long v = 0;
            for (int k = 0; k < 8; k++) {
                int x = bytes[at[0]++] & 0xff;
                v = (v << 7) | (x & 0x7f);
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            return (v << 8) | (bytes[at[0]++] & 0xff);
        }
    }
}
