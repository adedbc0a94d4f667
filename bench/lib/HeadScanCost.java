import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * What a document head could save a 1M scan (issues 12 and 14): the CPU nanoseconds per row, on
 * one thread, of reading {@code id, body} as today's scans do against reading {@code id, head}, a
 * second column holding a compact object of the document's small top-level fields, on SQLite
 * tables shaped as Weft's ({@code WITHOUT ROWID}, 16 KiB pages, mmap), and what the head adds to
 * the table. Two body shapes: seed 000's ~460 B documents (head: _id, stars, active, name) and
 * YCSB's ~1.2 KB ones (ten 100-byte strings, then g and v; head: _id, g, v, or with field0 too).
 * The head is tried after the body (a column added to an existing table) and before it (a table
 * created with it), and {@code CASE WHEN head IS NULL THEN body END} (the fallback for rows
 * written before the head) is read beside it. Kinds take turns, round after round; the first
 * round is left out (JIT). Thread CPU, not wall time.
 * usage: java -cp 'target/lib/*' bench/lib/HeadScanCost.java DB_FILE ROWS ROUNDS
 */
public class HeadScanCost {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int rows = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        boolean fresh = !Files.exists(file);
        if (fresh) {
            try (Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + file); var s = c.createStatement()) {
                s.execute("PRAGMA page_size = 16384");
                s.execute("PRAGMA journal_mode = WAL");
            }
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setOpenMode(SQLiteOpenMode.NOMUTEX);
        Connection c = config.createConnection("jdbc:sqlite:" + file);
        try (var s = c.createStatement()) {
            s.execute("PRAGMA mmap_size = 68719476736");
        }
        if (fresh) {
            load(c, rows);
        }
        Map<String, String> kinds = new LinkedHashMap<>();
        for (String shape : List.of("seed", "ycsb")) {
            // one column, as Weft's scans read (the id only for the rows that need it)
            kinds.put(shape + " no head: body", "SELECT body FROM " + shape + "_plain");
            kinds.put(shape + " head after: body", "SELECT body FROM " + shape + "_after");
            kinds.put(shape + " head after: head", "SELECT head FROM " + shape + "_after");
            kinds.put(shape + " head after: CASE head", "SELECT CASE WHEN head IS NULL OR length(head) = 7 THEN body ELSE head END FROM " + shape + "_after");
            kinds.put(shape + " head before: head", "SELECT head FROM " + shape + "_before");
            kinds.put(shape + " walk: length(body)", "SELECT length(body) FROM " + shape + "_plain");
        }
        kinds.put("ycsb big head after: head", "SELECT head FROM ycsb_bighead");
        Map<String, List<Double>> perRow = new LinkedHashMap<>();
        for (int round = 0; round <= rounds; round++) {
            for (Map.Entry<String, String> kind : kinds.entrySet()) {
                long t0 = CPU.getCurrentThreadCpuTime();
                long sink = 0;
                long n = 0;
                try (PreparedStatement ps = c.prepareStatement(kind.getValue()); ResultSet rs = ps.executeQuery()) {
                    boolean length = kind.getValue().startsWith("SELECT length");
                    while (rs.next()) {
                        sink += length ? rs.getLong(1) : rs.getBytes(1).length;
                        n++;
                    }
                }
                double ns = (CPU.getCurrentThreadCpuTime() - t0) / (double) n;
                if (round > 0) {
                    perRow.computeIfAbsent(kind.getKey(), k -> new ArrayList<>()).add(ns);
                }
                if (sink == 42) {
                    System.out.print("");
                }
            }
        }
        System.out.printf("CPU ns per row (%d rows a table), one thread, median of %d rounds (all rounds):%n", rows, rounds);
        perRow.forEach((kind, all) -> {
            List<Double> sorted = new ArrayList<>(all);
            Collections.sort(sorted);
            System.out.printf("  %-34s %6.0f   %s%n", kind, sorted.get(sorted.size() / 2),
                    all.stream().map(d -> String.format("%.0f", d)).toList());
        });
        System.out.println("table bytes (dbstat), mean body and head bytes:");
        for (String table : List.of("seed_plain", "seed_after", "seed_before", "ycsb_plain", "ycsb_after", "ycsb_before", "ycsb_bighead")) {
            try (ResultSet rs = c.createStatement().executeQuery("SELECT (SELECT sum(pgsize) FROM dbstat WHERE name = '" + table + "'),"
                    + " avg(length(body)), " + (table.endsWith("plain") ? "0" : "avg(length(head))") + " FROM " + table)) {
                rs.next();
                System.out.printf("  %-14s %,14d  body %6.0f  head %5.0f%n", table, rs.getLong(1), rs.getDouble(2), rs.getDouble(3));
            }
        }
    }

    private static void load(Connection c, int rows) throws Exception {
        c.setAutoCommit(false);
        String[] tables = {"seed_plain(id BLOB PRIMARY KEY, body BLOB NOT NULL)",
                "seed_after(id BLOB PRIMARY KEY, body BLOB NOT NULL, head BLOB)",
                "seed_before(id BLOB PRIMARY KEY, head BLOB, body BLOB NOT NULL)",
                "ycsb_plain(id BLOB PRIMARY KEY, body BLOB NOT NULL)",
                "ycsb_after(id BLOB PRIMARY KEY, body BLOB NOT NULL, head BLOB)",
                "ycsb_before(id BLOB PRIMARY KEY, head BLOB, body BLOB NOT NULL)",
                "ycsb_bighead(id BLOB PRIMARY KEY, body BLOB NOT NULL, head BLOB)"};
        try (var s = c.createStatement()) {
            for (String t : tables) {
                s.execute("CREATE TABLE " + t + " WITHOUT ROWID");
            }
        }
        String[] words = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
                "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"};
        var seedPlain = c.prepareStatement("INSERT INTO seed_plain(id, body) VALUES (?, ?)");
        var seedAfter = c.prepareStatement("INSERT INTO seed_after(id, body, head) VALUES (?, ?, ?)");
        var seedBefore = c.prepareStatement("INSERT INTO seed_before(id, body, head) VALUES (?, ?, ?)");
        var ycsbPlain = c.prepareStatement("INSERT INTO ycsb_plain(id, body) VALUES (?, ?)");
        var ycsbAfter = c.prepareStatement("INSERT INTO ycsb_after(id, body, head) VALUES (?, ?, ?)");
        var ycsbBefore = c.prepareStatement("INSERT INTO ycsb_before(id, body, head) VALUES (?, ?, ?)");
        var ycsbBig = c.prepareStatement("INSERT INTO ycsb_bighead(id, body, head) VALUES (?, ?, ?)");
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < rows; i++) {
            String oid = String.format("%024x", (long) i * 2654435761L);
            String w = words[i % 20] + " " + words[(i / 20) % 20];
            String seed = "{\"_id\":{\"$oid\":\"" + oid + "\"},\"name\":\"" + w + " " + i + "\",\"description\":\""
                    + w + " " + w + " " + w + " " + w + "\",\"links\":[{\"url\":\"https://" + words[i % 7] + "-" + words[i % 11]
                    + ".example.org/river/lantern\",\"title\":\"alpha link\"},{\"url\":\"https://docs.zephyr.example.net/bravo-" + i
                    + "\",\"title\":\"november link\"},{\"url\":\"https://oscar.example.com/stone/meadow/" + i
                    + "\",\"title\":\"river link\"}],\"tags\":[\"papa\",\"alpha\"],\"stars\":" + (i * 7919L) % 10000
                    + ",\"active\":" + (i % 3 != 0) + "}";
            String seedHead = "{\"_id\":{\"$oid\":\"" + oid + "\"},\"stars\":" + (i * 7919L) % 10000 + ",\"active\":" + (i % 3 != 0)
                    + ",\"name\":\"" + w + " " + i + "\",\"\":[\"description\",\"links\",\"tags\"]}";
            String user = "user" + i;
            StringBuilder y = new StringBuilder("{\"_id\":\"" + user + "\"");
            String field0 = null;
            for (int f = 0; f < 10; f++) {
                StringBuilder v = new StringBuilder();
                for (int k = 0; k < 100; k++) {
                    v.append((char) ('#' + r.nextInt(57))); // '#' to '[': no quote, no backslash
                }
                String s = v.toString();
                if (f == 0) {
                    field0 = s;
                }
                y.append(",\"field").append(f).append("\":\"").append(s).append('"');
            }
            y.append(",\"g\":").append(i % 100).append(",\"v\":").append(r.nextInt(1000)).append('}');
            String ycsbHead = "{\"_id\":\"" + user + "\",\"g\":" + (i % 100) + ",\"v\":" + 0 + ",\"\":10}";
            String bigHead = "{\"_id\":\"" + user + "\",\"g\":" + (i % 100) + ",\"v\":" + 0 + ",\"field0\":\"" + field0 + "\",\"\":9}";
            byte[] id = oid.getBytes(StandardCharsets.UTF_8);
            byte[] yid = user.getBytes(StandardCharsets.UTF_8);
            bind(seedPlain, id, seed, null);
            bind(seedAfter, id, seed, seedHead);
            bind(seedBefore, id, seed, seedHead);
            bind(ycsbPlain, yid, y.toString(), null);
            bind(ycsbAfter, yid, y.toString(), ycsbHead);
            bind(ycsbBefore, yid, y.toString(), ycsbHead);
            bind(ycsbBig, yid, y.toString(), bigHead);
            if (i % 50_000 == 49_999) {
                c.commit();
            }
        }
        c.commit();
        c.setAutoCommit(true);
    }

    private static void bind(PreparedStatement ps, byte[] id, String body, String head) throws Exception {
        ps.setBytes(1, id);
        ps.setBytes(2, body.getBytes(StandardCharsets.UTF_8));
        if (head != null) {
            ps.setBytes(3, head.getBytes(StandardCharsets.UTF_8));
        }
        ps.executeUpdate();
    }
}
