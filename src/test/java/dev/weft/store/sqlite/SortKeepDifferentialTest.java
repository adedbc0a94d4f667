package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.Values;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An unindexed sort read split with the native row cut ({@code weft_sort_keep}, bound to each
 * part's worst kept first key: {@code ParallelScans.SortCut}) against the same store without it
 * ({@code text-native-ranking} 0) and against the reference comparator: random documents whose
 * sort field is a small integer (ties), a long past 2^53 (neighbours sharing a double), a random
 * long, a fraction, a large decimal, a string, null, missing, a boolean, an array, an object, or
 * whose document has an escaped name; random sorts on it ascending and descending, alone or with
 * a second key, random skip, limit and filters. Every page is the same three ways.
 */
class SortKeepDifferentialTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();
    private static final Namespace NS = new Namespace("sortkeep", "docs");

    @TempDir
    Path dir;

    @Test
    void pagesAreTheSameWithAndWithoutTheNativeCut() {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        Random random = new Random(seed);
        String[] split = {"--scan-split-min-rows", "10", "--parallel-scans", "1", "--scan-parts", "2"};
        try (SqliteStore cut = StoreTesting.open(dir.resolve("cut"), split);
             SqliteStore plain = open(dir.resolve("plain"), split)) {
            assertThat(NativeRanking.forStore(true).enabled()).as("the native library is not built: run scripts/build-native").isTrue();
            List<JsonNode> docs = new ArrayList<>();
            List<ObjectNode> batch = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                String text = document(i, random);
                ObjectNode d = JSON.parseObject(text.getBytes(StandardCharsets.UTF_8), "doc");
                batch.add(d);
                docs.add(JSON.parseObject(JSON.bytes(d), "doc"));
            }
            for (SqliteStore store : List.of(cut, plain)) {
                store.putDatabase("sortkeep", JSON.parseObject("{}".getBytes(), "db"), Optional.empty());
                store.putCollection(NS, JSON.parseObject("{}".getBytes(), "coll"), Optional.empty());
                List<ObjectNode> copies = batch.stream().map(ObjectNode::deepCopy).toList();
                assertThat(store.write(new WriteOp.InsertMany(NS, copies)).ok()).isTrue();
            }
            long splitBefore = cut.splitScans();
            for (int q = 0; q < 150; q++) {
                String spec = sort(random);
                String filterText = random.nextInt(4) == 0 ? "{\"m\":{\"$gte\":" + random.nextInt(6) + "}}" : "{}";
                long skip = random.nextInt(3) == 0 ? random.nextInt(40) : 0;
                long limit = 1 + random.nextInt(random.nextBoolean() ? 10 : 60);
                String context = "seed=" + seed + " sort=" + spec + " filter=" + filterText + " skip=" + skip + " limit=" + limit;
                Sort sort = Sort.parse(spec, LIMITS);
                Filter filter = Filter.parse(JSON.parse(filterText, "filter"), LIMITS);
                Comparator<JsonNode> order = sort.comparator().thenComparing((a, b) -> Values.compare(a.get("_id"), b.get("_id")));
                List<String> expected = docs.stream().filter(filter::matches).sorted(order).skip(skip).limit(limit)
                        .map(d -> d.get("_id").toString()).toList();
                FindQuery find = new FindQuery(filter, sort, skip, limit, Optional.empty());
                assertThat(ids(cut, find)).as(context + " (native cut)").isEqualTo(expected);
                assertThat(ids(plain, find)).as(context + " (no native cut)").isEqualTo(expected);
            }
            assertThat(cut.splitScans() - splitBefore).as("the sorts were read split").isGreaterThanOrEqualTo(100);
        }
    }

    private static SqliteStore open(Path data, String... split) {
        List<String> args = new ArrayList<>(List.of(split));
        args.addAll(List.of("--text-native-ranking", "0"));
        return StoreTesting.open(data, args.toArray(String[]::new));
    }

    private static List<String> ids(SqliteStore store, FindQuery find) {
        List<String> ids = new ArrayList<>();
        store.find(NS, find, d -> ids.add(JSON.parse(d.json(), "doc").get("_id").toString()));
        return ids;
    }

    private static String sort(Random random) {
        String n = "\"n\":" + (random.nextBoolean() ? 1 : -1);
        return switch (random.nextInt(3)) {
            case 0 -> "{" + n + "}";
            case 1 -> "{" + n + ",\"m\":" + (random.nextBoolean() ? 1 : -1) + "}";
            default -> "{" + n + ",\"_id\":-1}";
        };
    }

    /** Document {@code i}: its {@code n} one of many kinds, at the start, in the middle or last. */
    private static String document(int i, Random random) {
        String n = switch (random.nextInt(14)) {
            case 0, 1, 2 -> "\"n\":" + (random.nextInt(200) - 100);
            case 3 -> "\"n\":" + ((1L << 53) + random.nextInt(8) - 4);
            case 4 -> "\"n\":" + random.nextLong();
            case 5, 6 -> "\"n\":" + (random.nextInt(20000) - 10000) / 64.0;
            case 7 -> "\"n\":" + (random.nextBoolean() ? "123456789012345678901234567" : "0.10000000000000000555111512312578270211815834045410156251");
            case 8 -> "\"n\":\"s" + random.nextInt(50) + "\"";
            case 9 -> "\"n\":null";
            case 10 -> "\"x\":1";
            case 11 -> "\"n\":" + (random.nextBoolean() ? "true" : "[" + random.nextInt(200) + "," + (random.nextInt(200) - 100) + "]");
            case 12 -> "\"n\":{\"v\":" + random.nextInt(10) + "}";
            default -> "\"n\\\"\":" + random.nextInt(10) + ",\"n\":" + (random.nextInt(200) - 100);
        };
        String m = "\"m\":" + random.nextInt(8);
        String filler = "\"t\":\"text " + i + " with \\\"quotes\\\" and {brackets]\"";
        return switch (i % 3) {
            case 0 -> "{\"_id\":" + i + "," + n + "," + m + "," + filler + "}";
            case 1 -> "{\"_id\":" + i + "," + m + "," + n + "," + filler + "}";
            default -> "{\"_id\":" + i + "," + filler + "," + m + "," + n + "}";
        };
    }
}
