import dev.weft.query.Trigrams;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 22, trigram inserts: the Java side of a trigram-indexed insert on the writer, per document,
 * in-process: {@link Trigrams#indexed} (the folded text of links.url) and the JSON array of those
 * texts that the write hands SQLite, for 20,000 seed-000 link documents, after a JIT warm-up.
 * "tree": the texts as Jackson string nodes serialized (as Fts5Trigrams wrote them before);
 * "direct": Fts5Trigrams' own one-pass writer (copied here: it is package-private).
 * usage: java -cp target/classes:target/lib/* bench/lib/TrigramTextCost.java LINKS_NDJSON REPS
 */
public class TrigramTextCost {
    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> docs = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            docs.add(mapper.readTree(line));
        }
        int reps = Integer.parseInt(args[1]);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int r = 0; r < reps; r++) {
            long t0 = mx.getCurrentThreadCpuTime();
            List<String> texts = new ArrayList<>();
            for (JsonNode d : docs) {
                texts.add(Trigrams.indexed(d, "links.url").text());
            }
            long t1 = mx.getCurrentThreadCpuTime();
            var tree = mapper.createArrayNode();
            texts.forEach(tree::add);
            int treeChars = tree.toString().length();
            long t2 = mx.getCurrentThreadCpuTime();
            StringBuilder direct = new StringBuilder().append('[');
            texts.forEach(t -> appendJsonString(direct, t));
            int directChars = direct.append(']').length();
            long t3 = mx.getCurrentThreadCpuTime();
            System.out.printf("rep %d: indexed %.2f us/doc, tree json %.2f us/doc (%d chars), direct json %.2f us/doc (%d chars)%n", r,
                    (t1 - t0) / 1e3 / docs.size(), (t2 - t1) / 1e3 / docs.size(), treeChars, (t3 - t2) / 1e3 / docs.size(), directChars);
        }
    }

    static void appendJsonString(StringBuilder array, String text) {
        array.append(array.length() == 1 ? "\"" : ",\"");
        int plainFrom = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                array.append(text, plainFrom, i).append('\\');
                switch (c) {
                    case '\n' -> array.append('n');
                    case '"', '\\' -> array.append(c);
                    default -> array.append("u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 0xF, 16));
                }
                plainFrom = i + 1;
            }
        }
        array.append(text, plainFrom, text.length()).append('"');
    }
}
