import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import dev.weft.store.sqlite.SqliteStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 22: one find of the seed regex ({"links.url":{"$regex":".*pach.*"}}, first page, _id
 * descending) over N link documents with a trigram index on links.url, in-process (no HTTP),
 * by the FTS5 trigram lookup and by the held rows, alternately. It needs a build with a switch: the
 * system property weft.exp.held, read per find, making held rows stand for every trigram lookup
 * whatever the collection's size (a one-line change of SqlEngine.Find.heap, not committed: see
 * bench/results/search-23-trigram-held-cost.txt); on any other build both figures are the same
 * path. Each figure is the median of REPS finds' CPU time on the calling thread (the find runs
 * there), after a warm-up: the machine's load moves it far less than wall time.
 * usage: java -cp target/classes:target/lib/* bench/lib/HeldTrigramCost.java LINKS_NDJSON REPS N...
 */
public class HeldTrigramCost {
    public static void main(String[] args) throws Exception {
        Json json = Json.standard();
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        List<String> lines = Files.readAllLines(Path.of(args[0])).stream().filter(l -> !l.isBlank()).toList();
        int reps = Integer.parseInt(args[1]);
        Filter regex = Filter.parse(json.parse("{\"links.url\":{\"$regex\":\".*pach.*\"}}", "f"), QueryLimits.defaults());
        for (int a = 2; a < args.length; a++) {
            int n = Integer.parseInt(args[a]);
            Path dir = Files.createTempDirectory("held-trigram");
            Settings settings = Settings.parse(new String[] {"--data", dir.toString(), "--sqlite-readers", "3"}, Map.of());
            try (SqliteStore store = new SqliteStore(settings, json)) {
                Namespace ns = new Namespace("bench", "big");
                store.putDatabase(ns.db(), json.parseObject("{}".getBytes(), "db"), Optional.empty());
                store.putCollection(ns, json.parseObject("{}".getBytes(), "coll"), Optional.empty());
                for (int i = 0; i < n; i += 1000) {
                    List<ObjectNode> batch = new ArrayList<>();
                    for (int j = i; j < Math.min(n, i + 1000); j++) {
                        batch.add(json.parseObject(lines.get(j % lines.size()).getBytes(), "doc"));
                    }
                    store.write(new WriteOp.InsertMany(ns, batch));
                }
                store.createIndex(ns, IndexSpec.trigram("url", "links.url"));
                FindQuery q = new FindQuery(regex, Sort.ID_DESCENDING, 0, 100, Optional.empty());
                int[] found = new int[1];
                for (int w = 0; w < 3000; w++) { // warm-up; asks for the held rows
                    for (String mode : new String[] {"true", "false"}) {
                        System.setProperty("weft.exp.held", mode);
                        found[0] = 0;
                        store.find(ns, q, d -> found[0]++);
                    }
                    Thread.sleep(w < 20 ? 20 : 0);
                }
                long[][] t = new long[2][reps];
                for (int r = 0; r < reps; r++) {
                    for (int m = 0; m < 2; m++) {
                        System.setProperty("weft.exp.held", m == 0 ? "true" : "false");
                        long t0 = cpu.getCurrentThreadCpuTime();
                        store.find(ns, q, d -> {});
                        t[m][r] = cpu.getCurrentThreadCpuTime() - t0;
                    }
                }
                System.out.printf("%7d docs (%d match, held %s): held rows %7.1f us, FTS5 trigram lookup %7.1f us (medians of %d)%n",
                        n, found[0], store.heldCollections().contains(ns), median(t[0]) / 1e3, median(t[1]) / 1e3, reps);
            }
        }
    }

    static long median(long[] t) {
        long[] s = t.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
