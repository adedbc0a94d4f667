package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.query.Values;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 22: random regexes over random strings (plain, in arrays, under a dotted path, case
 * folds that leave ASCII), on collections with and without a trigram index on the regex's path;
 * the store's answer (and count) equals the in-memory evaluator's over a full scan, also after
 * documents are rewritten and deleted, unhinted (the planner takes the lookup when its probe finds
 * few candidates) and hinted (every regex with literals answered from the index). {@link #check} runs on any store.
 */
public class TrigramDifferentialTest {
    private static final String[] ATOMS = {"a", "b", "ab", "pach", "ach", "apa", "K", "k", "s", "S", "\u212a", "\u017f",
            "\u00e9", "\u00c9", ".", "[ab]", "[a-c]", "[^a]", "\\d", "\\w", "x", "^", "$", "\\b", "\uD83D\uDE00", "ks", "ch"};
    private static final String ALPHABET = "abcehpKks\u212a\u017fx\u00e9\u00c9AB1 \uD83D\uDE00";
    private static final String[] PATHS = {"s", "l.u"};

    @TempDir
    Path dir;

    private Random random;

    @Test
    void regexesAnswerLikeAFullScanWithAndWithoutATrigramIndex() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir)) {
            check(store, () -> store.lastPlan().description());
        }
    }

    /** Every write after the first index's creation left pending (the writer never idle long enough), then a bound of 50 crossed now and then. */
    @Test
    void regexesAnswerLikeAFullScanWhileDocumentsArePending() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir, "--trigram-pending-idle-ms", "86400000")) {
            check(store, () -> store.lastPlan().description());
        }
        try (SqliteStore store = StoreTesting.open(dir.resolve("bounded"), "--trigram-pending-idle-ms", "86400000",
                "--trigram-pending-rows", "50")) {
            check(store, () -> store.lastPlan().description());
        }
    }

    public void check(Store store, Supplier<String> lastPlan) {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        random = new Random(seed);
        Namespace indexed = new Namespace("tri", "indexed");
        Namespace plain = new Namespace("tri", "plain");
        store.putDatabase("tri", obj("{}"), Optional.empty());
        store.putCollection(indexed, obj("{}"), Optional.empty());
        store.putCollection(plain, obj("{}"), Optional.empty());
        store.createIndex(indexed, IndexSpec.trigram("s_tri", "s"));
        Map<String, ObjectNode> docs = new LinkedHashMap<>();
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ObjectNode d = document(i);
            docs.put(JSON.text(d.get("_id")), d);
            batch.add(d);
        }
        for (Namespace ns : List.of(indexed, plain)) {
            assertThat(store.write(new WriteOp.InsertMany(ns, batch.stream().map(ObjectNode::deepCopy).toList())).ok()).isTrue();
        }
        store.createIndex(indexed, IndexSpec.trigram("lu_tri", "l.u")); // built over the documents
        List<WriteOp> changes = new ArrayList<>();
        List<String> keys = new ArrayList<>(docs.keySet());
        for (int i = 0; i < 100; i++) {
            String key = keys.get(random.nextInt(keys.size()));
            if (!docs.containsKey(key)) {
                continue;
            }
            JsonNode id = docs.get(key).get("_id");
            boolean delete = random.nextInt(4) == 0;
            ObjectNode d = document(0);
            d.set("_id", id);
            for (Namespace ns : List.of(indexed, plain)) {
                changes.add(delete ? new WriteOp.DeleteOne(ns, id, Optional.empty())
                        : new WriteOp.Replace(ns, d.deepCopy(), WriteOp.WriteMode.UPDATE, Optional.empty()));
            }
            if (delete) {
                docs.remove(key);
            } else {
                docs.put(key, d);
            }
        }
        assertThat(store.writeAll(changes)).allMatch(WriteResult::ok);
        List<ObjectNode> all = new ArrayList<>(docs.values());
        Sort byId = Sort.parse("{\"_id\":1}", LIMITS);
        int fromIndex = 0;
        int withLiterals = 0;
        for (int q = 0; q < 1500; q++) {
            String path = PATHS[random.nextInt(PATHS.length)];
            String pattern = dev.weft.query.RegexLiteralsTest.pattern(random, ATOMS, 3);
            ObjectNode spec = JSON.mapper().createObjectNode();
            spec.putObject(path).put("$regex", pattern).put("$options", random.nextInt(3) == 0 ? "i" : "");
            Filter filter;
            try {
                filter = Filter.parse(spec, LIMITS);
            } catch (RuntimeException e) {
                continue;
            }
            String context = "seed=" + seed + " filter=" + JSON.text(spec);
            List<String> expected = all.stream().filter(filter::matches)
                    .sorted(Comparator.comparing(d -> d.get("_id"), Values::compare))
                    .map(d -> JSON.text(d.get("_id"))).toList();
            List<String> actual = ids(store, indexed, filter, byId, Optional.empty());
            String plan = lastPlan.get();
            assertThat(actual).as(context + "\nplan: " + plan).isEqualTo(expected);
            fromIndex += plan.startsWith("TRIGRAMS") ? 1 : 0;
            if (dev.weft.query.Trigrams.query(filter, path) != null) {
                withLiterals++;
                // hinted, the lookup is taken whatever its estimate: its answer is the scan's too
                String hint = path.equals("s") ? "s_tri" : "lu_tri";
                assertThat(ids(store, indexed, filter, byId, Optional.of(hint))).as(context + " hinted").isEqualTo(expected);
                assertThat(lastPlan.get()).as(context).startsWith("TRIGRAMS");
            }
            if (q % 10 == 0) {
                assertThat(store.count(indexed, filter)).as(context + " count").isEqualTo(expected.size());
                assertThat(ids(store, plain, filter, byId, Optional.empty())).as(context + " without the index").isEqualTo(expected);
            }
        }
        System.out.printf("trigram differential: seed %d, %d of %d regexes with literals answered from the index unhinted%n",
                seed, fromIndex, withLiterals);
        assertThat(withLiterals).isGreaterThan(300);
        assertThat(fromIndex).isPositive().isLessThanOrEqualTo(withLiterals);
        selectivity(store, lastPlan);
    }

    /**
     * Unhinted, the planner takes the lookup only when it returns few documents: a literal no
     * document holds is looked up, one every document holds is scanned (the probe's estimate).
     */
    private static void selectivity(Store store, Supplier<String> lastPlan) {
        Namespace ns = new Namespace("tri", "probe");
        store.putCollection(ns, obj("{}"), Optional.empty());
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            batch.add(obj("{\"_id\":" + i + ",\"u\":\"https://host" + i + ".example/" + (i == 7 ? "apache" : "x") + "\"}"));
        }
        assertThat(store.write(new WriteOp.InsertMany(ns, batch)).ok()).isTrue();
        store.createIndex(ns, IndexSpec.trigram("u_tri", "u"));
        Sort byId = Sort.parse("{\"_id\":1}", LIMITS);
        assertThat(ids(store, ns, Filter.parse(obj("{\"u\":{\"$regex\":\"pach\"}}"), LIMITS), byId, Optional.empty()))
                .containsExactly("7");
        assertThat(lastPlan.get()).startsWith("TRIGRAMS");
        assertThat(ids(store, ns, Filter.parse(obj("{\"u\":{\"$regex\":\"^https\"}}"), LIMITS), byId, Optional.empty()))
                .hasSize(100);
        assertThat(lastPlan.get()).doesNotStartWith("TRIGRAMS");
    }

    private static List<String> ids(Store store, Namespace ns, Filter filter, Sort sort, Optional<String> hint) {
        List<String> out = new ArrayList<>();
        store.find(ns, new FindQuery(filter, sort, 0, 1000, hint),
                d -> out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
        return out;
    }

    private ObjectNode document(int i) {
        ObjectNode d = JSON.mapper().createObjectNode();
        d.put("_id", i == 0 ? 100_000 + random.nextInt(1_000_000) : i);
        int kind = i % 50 == 1 ? -1 : random.nextInt(5);
        switch (kind) {
            case -1 -> d.put("s", overflowing() + string()); // too many trigrams: a candidate of every lookup
            case 0 -> { }
            case 1 -> d.put("s", 7);
            case 2 -> strings(d.putArray("s"));
            default -> d.put("s", string());
        }
        ArrayNode l = d.putArray("l");
        for (int k = random.nextInt(3); k > 0; k--) {
            ObjectNode link = l.addObject();
            if (random.nextBoolean()) {
                link.put("u", string());
            } else {
                strings(link.putArray("u"));
            }
        }
        return d;
    }

    /** More distinct trigrams than a trigram index holds of one document. */
    private String overflowing() {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < 2 * dev.weft.query.Trigrams.MAX_KEYS_PER_DOCUMENT; k++) {
            s.appendCodePoint(0x4e00 + random.nextInt(5000));
        }
        return s.toString();
    }

    private void strings(ArrayNode into) {
        for (int k = random.nextInt(3); k > 0; k--) {
            into.add(string());
        }
    }

    private String string() {
        StringBuilder s = new StringBuilder();
        int size = ALPHABET.codePointCount(0, ALPHABET.length());
        for (int n = random.nextInt(12); n > 0; n--) {
            s.appendCodePoint(ALPHABET.codePointAt(ALPHABET.offsetByCodePoints(0, random.nextInt(size))));
        }
        return s.toString();
    }
}
