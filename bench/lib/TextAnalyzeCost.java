import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Issue 22, the request threads' part of an insert into a collection with a text index: the CPU
 * time of {@link TextIndex#termsByWeight} (what {@code SqlDocumentWrites.prepare} does per
 * document) over an ndjson file, with the search bench's index (title weight 10, body), on one
 * thread, no HTTP, no store. Prints each repetition's thread CPU per document and the median.
 * usage: java -cp target/classes:target/lib/* bench/lib/TextAnalyzeCost.java ENGLISH_NDJSON REPS
 *        (ENGLISH_NDJSON from bench/lib/gen.py english-ndjson 20000)
 */
public class TextAnalyzeCost {
    public static void main(String[] args) throws Exception {
        List<JsonNode> docs = new ArrayList<>();
        ObjectMapper mapper = new ObjectMapper();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (!line.isBlank()) {
                docs.add(mapper.readTree(line));
            }
        }
        int reps = Integer.parseInt(args[1]);
        TextIndex index = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.named("english"), TextIndex.DEFAULT_OVERRIDE);
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        double[] perDoc = new double[reps];
        long bytes = 0;
        for (int r = 0; r < reps; r++) {
            long t0 = cpu.getCurrentThreadCpuTime();
            for (JsonNode doc : docs) {
                for (String terms : index.termsByWeight(doc)) {
                    bytes += terms.length();
                }
            }
            perDoc[r] = (cpu.getCurrentThreadCpuTime() - t0) / (double) docs.size();
            System.out.printf("rep %d: %.0f ns a document%n", r + 1, perDoc[r]);
        }
        double[] sorted = perDoc.clone();
        Arrays.sort(sorted);
        System.out.printf("median %.0f ns a document over %d documents (%d term bytes)%n", sorted[reps / 2], docs.size(), bytes);
    }
}
