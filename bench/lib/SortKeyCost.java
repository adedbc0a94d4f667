import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.query.SortKeys;
import dev.weft.query.StoredFields;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteConfig;

/**
 * The Java part of an unindexed sort's row alone (issue 12), without SQLite and JDBC: N stored
 * bodies of a Weft collection table held in memory (few enough to stay in cache, as a row just
 * copied from SQLite is), each read REPEAT times a round: the field located ({@link StoredFields}),
 * the key read ({@link SortKeys#readStored}), the key read and compared with a worst key (the
 * descending key of WORST, as {@code SqlEngine.Heap} compares). Thread CPU nanoseconds per row,
 * median and fastest of ROUNDS rounds (the first left out). To compare two builds, run it with
 * each build's jar in turn, several times: the fastest round is the least disturbed by a shared
 * machine.
 * usage: java -cp 'target/weft-*.jar:target/lib/*' bench/lib/SortKeyCost.java DB_FILE TABLE FIELD WORST N ROUNDS
 */
public class SortKeyCost {
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    private static final int REPEAT = 100;

    public static void main(String[] args) throws Exception {
        String table = args[1];
        String field = args[2];
        String worstValue = args[3];
        int n = Integer.parseInt(args[4]);
        int rounds = Integer.parseInt(args[5]);
        List<byte[]> bodies = new ArrayList<>();
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        try (Connection c = config.createConnection("jdbc:sqlite:" + args[0]);
             ResultSet rs = c.createStatement().executeQuery("SELECT body FROM " + table + " LIMIT " + n)) {
            while (rs.next()) {
                bodies.add(rs.getBytes(1));
            }
        }
        SortKeys keys = SortKeys.of(new Sort(List.of(new IndexField(field, -1))));
        SortKeys.Scratch scratch = keys.scratch();
        StoredFields.Reader located = new StoredFields(List.of(field)).reader();
        byte[] worst = keys.ofStored(("{\"" + field + "\":" + worstValue + "}").getBytes(StandardCharsets.UTF_8));
        Map<String, List<Long>> perRow = new LinkedHashMap<>();
        long sink = 0;
        for (int round = 0; round <= rounds; round++) {
            for (String kind : List.of("locate", "key", "key+compare")) {
                long t0 = CPU.getCurrentThreadCpuTime();
                for (int r = 0; r < REPEAT; r++) {
                    for (byte[] body : bodies) {
                        sink += switch (kind) {
                            case "locate" -> located.locate(body) ? located.start(0) : 0;
                            case "key" -> keys.readStored(body, scratch) ? scratch.length() : 0;
                            default -> keys.readStored(body, scratch)
                                    && SortKeys.compare(scratch.bytes(), scratch.length(), worst) <= 0 ? 1 : 0;
                        };
                    }
                }
                if (round > 0) {
                    perRow.computeIfAbsent(kind, k -> new ArrayList<>())
                            .add((CPU.getCurrentThreadCpuTime() - t0) / ((long) REPEAT * bodies.size()));
                }
            }
        }
        System.out.printf("CPU ns per row of %s {%s:-1}, %d bodies in memory, one thread, %d rounds (sink %d):%n",
                table, field, bodies.size(), rounds, sink % 10);
        perRow.forEach((kind, all) -> {
            List<Long> sorted = new ArrayList<>(all);
            Collections.sort(sorted);
            System.out.printf("  %-12s median %4d  fastest %4d   %s%n", kind, sorted.get(sorted.size() / 2), sorted.get(0), all);
        });
    }
}
