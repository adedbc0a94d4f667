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
        check(false);
    }

    /**
     * Only small integers, their documents' ids in descending order of them: one reader reads the
     * best of a descending sort in its first run, its heap's worst is the page's boundary, so a cut
     * that dropped a tie or a row a little better would show on the page.
     */
    @Test
    void pagesAreTheSameWhereOnePartHoldsThePage() {
        check(true);
    }

    private void check(boolean onlySmall) {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        Random random = new Random(seed);
        String[] split = {"--scan-split-min-rows", "10", "--parallel-scans", "1", "--scan-parts", "2"};
        try (SqliteStore cut = StoreTesting.open(dir.resolve("cut"), split);
             SqliteStore plain = open(dir.resolve("plain"), split)) {
            assertThat(NativeRanking.forStore(true).enabled()).as("the native library is not built: run scripts/build-native").isTrue();
            List<JsonNode> docs = new ArrayList<>();
            List<ObjectNode> batch = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                String text = onlySmall ? smallDocument(i, random) : document(i, random);
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
                long skip = random.nextInt(3) == 0 ? random.nextInt(200) : 0;
                long limit = 1 + random.nextInt(random.nextBoolean() ? 10 : 100);
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

    /** 40 bytes in increasing order, none escaped in JSON. */
    private static final String GROUPS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcd";

    private static String smallDocument(int i, Random random) {
        int small = random.nextInt(40) - 20;
        // the id's first byte orders the documents by n, descending; random letters after it spread each n over many ranges
        char group = GROUPS.charAt(19 - small);
        StringBuilder id = new StringBuilder().append(group);
        for (int j = 0; j < 6; j++) {
            id.append((char) ('a' + random.nextInt(26)));
        }
        return String.format("{\"_id\":\"%s-%d\",\"m\":%d,\"n\":%d}", id, i, random.nextInt(8), small);
    }

    /** Document {@code i}: its {@code n} one of many kinds, at the start, in the middle or last. */
    private static String document(int i, Random random) {
        boolean rare = random.nextInt(8) == 0; // large numbers rare, so that pages reach the small ones with their ties
        int small = random.nextInt(40) - 20;
        String n = switch (random.nextInt(14)) {
            case 3 -> "\"n\":" + (rare ? Long.toString((1L << 53) + random.nextInt(8) - 4) : "-0");
            case 4 -> "\"n\":" + (rare ? random.nextLong() : small);
            case 5, 6 -> "\"n\":" + (random.nextInt(2560) - 1280) / 64.0;
            case 7 -> "\"n\":" + (!rare ? "0.5e1" : random.nextBoolean() ? "123456789012345678901234567"
                    : "0.10000000000000000555111512312578270211815834045410156251");
            case 8 -> "\"n\":\"s" + random.nextInt(50) + "\"";
            case 9 -> "\"n\":null";
            case 10 -> "\"x\":1";
            case 11 -> "\"n\":" + (random.nextBoolean() ? "true" : "[" + (random.nextInt(40) - 20) + "," + (random.nextInt(40) - 20) + "]");
            case 12 -> "\"n\":{\"v\":" + random.nextInt(10) + "}";
            case 13 -> "\"n\\\"\":" + random.nextInt(10) + ",\"n\":" + small;
            default -> "\"n\":" + small; // small integers, many ties
        };
        // ids: a small integer's document sorts by it (the larger, the earlier), so that one reader reads the best of
        // a descending sort in its first run, its heap's worst is the page's boundary, and a wrong cut shows on the page
        String id = n.endsWith(":" + small) ? String.format("\"k%02d-%d\"", 20 - small, i) : "\"z" + random.nextLong() + "\"";
        String m = "\"m\":" + random.nextInt(8);
        String filler = "\"t\":\"text " + i + " with \\\"quotes\\\" and {brackets]\"";
        return switch (i % 3) {
            case 0 -> "{\"_id\":" + id + "," + n + "," + m + "," + filler + "}";
            case 1 -> "{\"_id\":" + id + "," + m + "," + n + "," + filler + "}";
            default -> "{\"_id\":" + id + "," + filler + "," + m + "," + n + "}";
        };
    }
}
