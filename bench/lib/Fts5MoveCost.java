import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import java.lang.management.ManagementFactory;
import java.nio.file.*;
import java.sql.*;
import java.util.*;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 22, the deferred part of a text-indexed insert on SQLite: what putting pending documents
 * into FTS5 costs (PendingPostings.move), apart from Weft. The terms of an ndjson file (the search
 * bench's index: title weight 10, body; TextIndex.termsByWeight) go into a contentless FTS5 table
 * made as Fts5Postings makes it, 2,048 documents per statement and transaction (the idle step),
 * LOADS times over the file; thread CPU per document and the file's size per FTS5 setting.
 * A variant is "default" or FTS5 options joined by "+" ("automerge=8", "crisismerge=64",
 * "pgsz=16000", "hashsize=8388608"), or "nocd" (without contentless_delete), "perdoc" (a statement
 * per document instead of json_each). Each variant runs twice, alternately.
 * usage: java -cp "target/classes:target/lib/*" bench/lib/Fts5MoveCost.java ENGLISH_NDJSON LOADS VARIANT,VARIANT...
 *        (ENGLISH_NDJSON from bench/lib/gen.py english-ndjson 20000); its files go to $TMPDIR (default /tmp)
 */
public class Fts5MoveCost {
    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        TextIndex index = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.named("english"), TextIndex.DEFAULT_OVERRIDE);
        List<List<String>> terms = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) if (!line.isBlank()) terms.add(index.termsByWeight(mapper.readTree(line)));
        int loads = Integer.parseInt(args[1]);
        String[] variants = args[2].split(",");
        var cpu = ManagementFactory.getThreadMXBean();
        for (int rep = 0; rep < 2; rep++) for (String v : variants) {
            Path db = Files.createTempFile("fts5-move", ".db");
            Files.delete(db);
            try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
                try (Statement s = c.createStatement()) {
                    s.execute("PRAGMA page_size=16384"); s.execute("PRAGMA journal_mode=WAL"); s.execute("PRAGMA synchronous=FULL");
                    s.execute("CREATE VIRTUAL TABLE x_t USING fts5(w0, w1, content='', contentless_delete=1, tokenize=\"ascii tokenchars ''''\")");
                    for (String opt : v.split("\\+")) {
                        if (opt.equals("default") || opt.equals("nocd") || opt.equals("perdoc")) continue;
                        String[] kv = opt.split("=");
                        s.execute("INSERT INTO x_t(x_t, rank) VALUES ('" + kv[0] + "', " + kv[1] + ")");
                    }
                }
                c.setAutoCommit(false);
                long t0 = cpu.getCurrentThreadCpuTime(); long w0 = System.nanoTime();
                long n = 1;
                PreparedStatement ps = c.prepareStatement("INSERT INTO x_t(rowid, w0, w1) SELECT ? + key, value ->> 0, value ->> 1 FROM json_each(?)");
                for (int l = 0; l < loads; l++) {
                    for (int from = 0; from < terms.size(); from += 2048) {
                        List<List<String>> part = terms.subList(from, Math.min(terms.size(), from + 2048));
                        StringBuilder sb = new StringBuilder("[");
                        for (List<String> t : part) { sb.append(sb.length() == 1 ? "[" : ",["); sb.append('"').append(t.get(0)).append("\",\"").append(t.get(1)).append("\"]"); }
                        if (v.contains("perdoc")) {
                            PreparedStatement one = c.prepareStatement("INSERT INTO x_t(rowid, w0, w1) VALUES (?, ?, ?)");
                            long k = n;
                            for (List<String> t : part) { one.setLong(1, k++); one.setString(2, t.get(0)); one.setString(3, t.get(1)); one.executeUpdate(); }
                            c.commit();
                        } else {
                        ps.setLong(1, n); ps.setString(2, sb.append(']').toString()); ps.executeUpdate(); c.commit();
                        }
                        n += part.size();
                    }
                }
                long ms = (cpu.getCurrentThreadCpuTime() - t0) / 1_000_000;
                long segs;
                try (ResultSet rs = c.createStatement().executeQuery("SELECT count(*) FROM x_t_data")) { rs.next(); segs = rs.getLong(1); }
                System.out.printf("%-40s %d docs: cpu %d ms (%.1f us/doc), wall %d ms, db %d KB, data rows %d%n", v, n - 1, ms, ms * 1000.0 / (n - 1),
                        (System.nanoTime() - w0) / 1_000_000, Files.size(db) / 1024, segs);
            }
            for (String suf : new String[]{"", "-wal", "-shm"}) Files.deleteIfExists(Path.of(db + suf));
        }
    }
}
