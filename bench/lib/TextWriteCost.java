import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 22, the writer's part of an insert into a collection with a text index on SQLite,
 * measured with JDBC alone (no HTTP) on tables shaped like Weft's: a WITHOUT ROWID document
 * table, the index's numbering table {@code m(n, id)} and its pending table {@code m_p(n, w0, w1)}
 * (the search bench's index: title weight 10, body), documents in transactions of 1,000 (the
 * ndjson chunk), their terms from {@link TextIndex#termsByWeight} made before the clock starts.
 * The figure is the writing thread's CPU time (SQLite runs on it, checkpoints too).
 * <ul>
 * <li>plain: documents only; num: + the numbering rows (json_each of hex ids);</li>
 * <li>json: + the pending rows as Weft writes them, a JSON array of rows read by json_each and
 *     {@code value ->> i}, and the pending span asked after each write;</li>
 * <li>vals: the pending rows as one multi-row VALUES statement of bound strings instead;</li>
 * <li>chunk: the pending rows as one row per write, the JSON array as given (what Weft writes
 *     since text-inserts), and the chunks' span asked after each write;</li>
 * <li>chunk2: chunk with the numbering rows left to the move into FTS5 too (the ids in the chunk).</li>
 * </ul>
 * usage: java -cp target/classes:target/lib/* bench/lib/TextWriteCost.java ENGLISH_NDJSON REPS VARIANT...
 */
public class TextWriteCost {
    record Doc(byte[] id, List<String> terms, byte[] body) {}

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        TextIndex index = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.named("english"), TextIndex.DEFAULT_OVERRIDE);
        List<Doc> docs = new ArrayList<>();
        byte[] process = new byte[8];
        ThreadLocalRandom.current().nextBytes(process);
        int counter = 0;
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            byte[] id = java.nio.ByteBuffer.allocate(12).put(process).putInt(counter++).array(); // increasing, as ObjectIds of one process
            docs.add(new Doc(id, index.termsByWeight(mapper.readTree(line)), line.getBytes()));
        }
        int reps = Integer.parseInt(args[1]);
        Map<String, List<Long>> ms = new LinkedHashMap<>();
        for (int r = 0; r < reps; r++) {
            for (int v = 2; v < args.length; v++) {
                ms.computeIfAbsent(args[v], k -> new ArrayList<>()).add(run(args[v], docs));
            }
        }
        long plain = ms.containsKey("plain") ? median(ms.get("plain")) : 0;
        ms.forEach((v, t) -> System.out.printf("%-6s writer CPU median %5d ms over %d docs%s; runs %s%n", v, median(t),
                docs.size(), plain > 0 ? String.format(" (plain/this %.2f)", (double) plain / median(t)) : "", t));
    }

    static long median(List<Long> t) {
        List<Long> s = new ArrayList<>(t);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }

    static long run(String v, List<Doc> docs) throws Exception {
        Path file = Files.createTempFile("text-write-cost", ".db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            Statement s = c.createStatement();
            s.execute("PRAGMA page_size = 16384");
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("PRAGMA synchronous = FULL");
            s.execute("CREATE TABLE d(id BLOB PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID");
            boolean numbered = !v.equals("plain") && !v.equals("chunk2");
            boolean pend = !v.equals("plain") && !v.equals("num");
            if (numbered) {
                s.execute("CREATE TABLE m(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)");
            }
            if (pend) {
                s.execute(v.startsWith("chunk") ? "CREATE TABLE m_p(n INTEGER PRIMARY KEY, last INTEGER, ids TEXT, rows TEXT)"
                        : "CREATE TABLE m_p(n INTEGER PRIMARY KEY, w0, w1)");
            }
            c.setAutoCommit(false);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long start = mx.getCurrentThreadCpuTime();
            long next = 1;
            for (int i = 0; i < docs.size(); i += 1000) {
                List<Doc> chunk = docs.subList(i, Math.min(docs.size(), i + 1000));
                PreparedStatement insert = c.prepareStatement("INSERT OR IGNORE INTO d(id, body) VALUES (?, ?)");
                for (Doc d : chunk) {
                    insert.setBytes(1, d.id);
                    insert.setBytes(2, d.body);
                    insert.executeUpdate();
                }
                if (numbered) {
                    StringBuilder ids = new StringBuilder("[");
                    for (Doc d : chunk) {
                        HexFormat.of().formatHex(ids.append(ids.length() == 1 ? "\"" : ",\""), d.id).append('"');
                    }
                    PreparedStatement n = c.prepareStatement("INSERT INTO m(n, id) SELECT ? + key, unhex(value) FROM json_each(?)");
                    n.setLong(1, next);
                    n.setString(2, ids.append(']').toString());
                    n.executeUpdate();
                }
                if (v.startsWith("chunk")) {
                    StringBuilder rows = new StringBuilder("[");
                    for (Doc d : chunk) {
                        rows.append(rows.length() == 1 ? "[\"" : ",[\"").append(d.terms.get(0)).append("\",\"").append(d.terms.get(1)).append("\"]");
                    }
                    StringBuilder ids = new StringBuilder("[");
                    if (v.equals("chunk2")) {
                        for (Doc d : chunk) {
                            HexFormat.of().formatHex(ids.append(ids.length() == 1 ? "\"" : ",\""), d.id).append('"');
                        }
                    }
                    PreparedStatement t = c.prepareStatement("INSERT INTO m_p(n, last, ids, rows) VALUES (?, ?, ?, ?)");
                    t.setLong(1, next);
                    t.setLong(2, next + chunk.size() - 1);
                    t.setString(3, ids.append(']').toString());
                    t.setString(4, rows.append(']').toString());
                    t.executeUpdate();
                } else if (v.equals("json")) {
                    StringBuilder rows = new StringBuilder("[");
                    for (Doc d : chunk) {
                        rows.append(rows.length() == 1 ? "[\"" : ",[\"").append(d.terms.get(0)).append("\",\"").append(d.terms.get(1)).append("\"]");
                    }
                    PreparedStatement t = c.prepareStatement("INSERT INTO m_p(n, w0, w1) SELECT ? + key, value ->> 0, value ->> 1 FROM json_each(?)");
                    t.setLong(1, next);
                    t.setString(2, rows.append(']').toString());
                    t.executeUpdate();
                } else if (v.equals("vals")) {
                    PreparedStatement t = c.prepareStatement("INSERT INTO m_p(n, w0, w1) VALUES " + "(?, ?, ?),".repeat(chunk.size() - 1) + "(?, ?, ?)");
                    int p = 1;
                    for (int k = 0; k < chunk.size(); k++) {
                        t.setLong(p++, next + k);
                        t.setString(p++, chunk.get(k).terms.get(0));
                        t.setString(p++, chunk.get(k).terms.get(1));
                    }
                    t.executeUpdate();
                }
                if (pend && v.startsWith("chunk")) {
                    try (java.sql.ResultSet span = c.prepareStatement("SELECT coalesce((SELECT max(last) FROM m_p) - (SELECT min(n) FROM m_p) + 1, 0)").executeQuery()) {
                        span.next();
                    }
                } else if (pend) {
                    try (java.sql.ResultSet span = c.prepareStatement("SELECT coalesce((SELECT max(n) FROM m_p) - (SELECT min(n) FROM m_p) + 1, 0)").executeQuery()) {
                        span.next();
                    }
                }
                next += chunk.size();
                c.commit();
            }
            return (mx.getCurrentThreadCpuTime() - start) / 1_000_000;
        } finally {
            for (String suffix : List.of("", "-wal", "-shm")) {
                Files.deleteIfExists(Path.of(file + suffix));
            }
        }
    }
}
