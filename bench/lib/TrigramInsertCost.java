import dev.weft.query.Trigrams;
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
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 22, insert cost of a trigram index on SQLite: where the writer's time goes, measured with
 * JDBC alone (no HTTP), on tables shaped like Weft's (a WITHOUT ROWID document table; the index's
 * numbering table and its contentless FTS5 trigram table, detail=none, written as Fts5Trigrams
 * writes them: one json_each statement per table per transaction). Documents go in transactions
 * of 1,000 (the ndjson chunk). The figure is the writing thread's CPU time (SQLite runs on it),
 * so other processes on a shared machine disturb it far less than wall time.
 * <ul>
 * <li>plain: documents only; num: + the numbering rows; tiny: + FTS5 rows of 4 characters
 *     (FTS5's cost per row); half: + the first half of each text; full: what Weft writes;</li>
 * <li>am0: full with FTS5 automerge 0 (no merging while writing); am16: automerge 16;
 *     pgsz: pgsz 16000; cs0: columnsize=0 instead of contentless_delete=1 (no %_docsize row);</li>
 * <li>pend: what Weft writes since pending postings (Fts5Trigrams): the texts into a plain table
 *     m_p(n, s) and the pending span asked after each write, FTS5 left to the idle writer;</li>
 * <li>chunk: what Weft writes since pending chunks (PendingPostings#insertChunk): the write's
 *     texts as one row m_p(n, last, rows) of a JSON array of one-element arrays, the span asked after;</li>
 * <li>stop: full with the trigrams that every document of this data holds (31) left out, each
 *     text cut into the runs between them: what a stop-list could save at best.</li>
 * </ul>
 * usage: java -cp target/classes:target/lib/* bench/lib/TrigramInsertCost.java LINKS_NDJSON REPS VARIANT...
 *        (LINKS_NDJSON from bench/lib/gen.py links-ndjson 20000 3)
 */
public class TrigramInsertCost {
    record Doc(byte[] id, String text, byte[] body) {}

    static final Set<String> EVERY_DOCUMENTS = Set.of("e.o", "tps", "le.", "s:/", "org", ".ex", ".or", "ps:", "htt",
            "ple", "amp", "mpl", "com", "xam", "ttp", ".co", "://", "\nht", "om/", "exa", "e.c", "rg/", "et/", "doc",
            "cs.", ".ne", "//d", "ocs", "e.n", "net", "/do");
    static final Set<Long> STOPPED = new java.util.HashSet<>();

    static {
        EVERY_DOCUMENTS.forEach(g -> STOPPED.add(packed(g, 0)));
    }

    /** Three chars of an ASCII text as one number (a HashSet<Long> lookup, not a substring per position). */
    static long packed(String text, int at) {
        return (long) text.charAt(at) << 32 | (long) text.charAt(at + 1) << 16 | text.charAt(at + 2);
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        List<Doc> docs = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            JsonNode doc = mapper.readTree(line);
            byte[] id = new byte[12];
            ThreadLocalRandom.current().nextBytes(id);
            docs.add(new Doc(id, Trigrams.indexed(doc, "links.url").text(), line.getBytes()));
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
        Path file = Files.createTempFile("trigram-insert-cost", ".db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            Statement s = c.createStatement();
            s.execute("PRAGMA page_size = 16384");
            s.execute("PRAGMA journal_mode = WAL");
            s.execute("PRAGMA synchronous = FULL");
            s.execute("CREATE TABLE d(id BLOB PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID");
            boolean numbered = !v.equals("plain");
            boolean pend = v.equals("pend");
            boolean chunked = v.equals("chunk");
            boolean fts = numbered && !v.equals("num") && !pend && !chunked;
            if (pend) {
                s.execute("CREATE TABLE m_p(n INTEGER PRIMARY KEY, s TEXT NOT NULL)");
            }
            if (chunked) {
                s.execute("CREATE TABLE m_p(n INTEGER PRIMARY KEY, last INTEGER NOT NULL, rows TEXT NOT NULL)");
            }
            if (numbered) {
                s.execute("CREATE TABLE m(n INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE)");
            }
            if (fts) {
                s.execute("CREATE VIRTUAL TABLE m_t USING fts5(s, content='', "
                        + (v.equals("cs0") ? "columnsize=0" : "contentless_delete=1") + ", detail=none, tokenize='trigram case_sensitive 1')");
                switch (v) {
                    case "am0" -> s.execute("INSERT INTO m_t(m_t, rank) VALUES('automerge', 0)");
                    case "am16" -> s.execute("INSERT INTO m_t(m_t, rank) VALUES('automerge', 16)");
                    case "pgsz" -> s.execute("INSERT INTO m_t(m_t, rank) VALUES('pgsz', 16000)");
                    default -> { }
                }
            }
            c.setAutoCommit(false);
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long start = mx.getCurrentThreadCpuTime();
            ObjectMapper json = new ObjectMapper();
            long next = 1;
            for (int i = 0; i < docs.size(); i += 1000) {
                List<Doc> chunk = docs.subList(i, Math.min(docs.size(), i + 1000));
                PreparedStatement insert = c.prepareStatement("INSERT OR IGNORE INTO d(id, body) VALUES (?, ?)");
                for (Doc d : chunk) {
                    insert.setBytes(1, d.id);
                    insert.setBytes(2, d.body);
                    insert.executeUpdate();
                }
                List<String> ids = new ArrayList<>();
                List<String> texts = new ArrayList<>();
                for (Doc d : chunk) {
                    ids.add(HexFormat.of().formatHex(d.id));
                    texts.add(text(v, d.text));
                }
                if (numbered) {
                    PreparedStatement n = c.prepareStatement("INSERT INTO m(n, id) SELECT ? + key, unhex(value) FROM json_each(?)");
                    n.setLong(1, next);
                    n.setString(2, json.writeValueAsString(ids));
                    n.executeUpdate();
                }
                if (fts) {
                    PreparedStatement t = c.prepareStatement("INSERT INTO m_t(rowid, s) SELECT ? + key, value FROM json_each(?)");
                    t.setLong(1, next);
                    t.setString(2, json.writeValueAsString(texts));
                    t.executeUpdate();
                }
                if (pend) {
                    PreparedStatement t = c.prepareStatement("INSERT INTO m_p(n, s) SELECT ? + key, value FROM json_each(?)");
                    t.setLong(1, next);
                    t.setString(2, json.writeValueAsString(texts));
                    t.executeUpdate();
                    try (java.sql.ResultSet span = c.prepareStatement("SELECT coalesce(max(n) - min(n) + 1, 0) FROM m_p").executeQuery()) {
                        span.next();
                    }
                }
                if (chunked) {
                    List<List<String>> rows = new ArrayList<>();
                    texts.forEach(t -> rows.add(List.of(t)));
                    PreparedStatement t = c.prepareStatement("INSERT INTO m_p(n, last, rows) VALUES (?, ?, ?)");
                    t.setLong(1, next);
                    t.setLong(2, next + chunk.size() - 1);
                    t.setString(3, json.writeValueAsString(rows));
                    t.executeUpdate();
                    try (java.sql.ResultSet span = c.prepareStatement("SELECT coalesce((SELECT max(last) FROM m_p) - (SELECT min(n) FROM m_p)"
                            + " + 1, 0)").executeQuery()) {
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

    static String text(String variant, String text) {
        return switch (variant) {
            case "tiny" -> text.substring(0, 4);
            case "half" -> text.substring(0, text.length() / 2);
            case "stop" -> withoutStopped(text);
            default -> text;
        };
    }

    /** The runs of {@code text} between trigrams of {@link #EVERY_DOCUMENTS}, joined by line feeds (ASCII texts). */
    static String withoutStopped(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int run = -1;
        for (int i = 0; i + 3 <= text.length(); i++) {
            boolean stopped = STOPPED.contains(packed(text, i));
            if (!stopped && run < 0) {
                run = i;
            } else if (stopped && run >= 0) {
                out.append(out.isEmpty() ? "" : "\n").append(text, run, i + 2);
                run = -1;
            }
        }
        if (run >= 0) {
            out.append(out.isEmpty() ? "" : "\n").append(text, run, text.length());
        }
        return out.toString();
    }
}
