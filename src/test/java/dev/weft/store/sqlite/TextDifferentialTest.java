package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import dev.weft.query.TextSearch;
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
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 22: random $text searches (words, -words, phrases, case and diacritic sensitivity, the
 * language none) over random texts in a text index, after rewrites and deletes: the store's
 * answer in textScore order equals the evaluator's over every document, its count too, and each
 * is read from the text index; ranked by the store (for a reader who sees every document), the
 * same documents, each with the store's score, and a page of them cut from that order. {@link #check} runs on any store.
 */
public class TextDifferentialTest {
    private static final String[] WORDS = {"coffee", "Coffee", "coffees", "shop", "shopping", "Shops", "café", "cafe",
            "CAFÉ", "tea", "the", "and", "running", "runs", "run", "brew", "brewed", "cold", "Cold", "leche"};
    private static final TextIndex INDEX = new TextIndex(Map.of("title", 5, "body", 1), TextLanguage.ENGLISH, "lang");

    @TempDir
    Path dir;

    private Random random;

    @Test
    void searchesAnswerLikeTheEvaluatorOverEveryDocument() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir)) {
            check(store, () -> store.lastPlan().description());
        }
    }

    public void check(Store store, Supplier<String> lastPlan) {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        random = new Random(seed);
        Namespace ns = new Namespace("txt", "c");
        store.putDatabase("txt", obj("{}"), Optional.empty());
        store.putCollection(ns, obj("{}"), Optional.empty());
        Map<Integer, ObjectNode> docs = new LinkedHashMap<>();
        List<ObjectNode> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            docs.put(i, document(i));
            batch.add(docs.get(i).deepCopy());
        }
        assertThat(store.write(new WriteOp.InsertMany(ns, batch)).ok()).isTrue();
        store.createIndex(ns, IndexSpec.text("t", INDEX)); // built over the documents
        List<WriteOp> changes = new ArrayList<>();
        for (int k = 0; k < 60; k++) {
            int i = random.nextInt(200);
            if (!docs.containsKey(i)) {
                continue;
            }
            if (random.nextInt(3) == 0) {
                changes.add(new WriteOp.DeleteOne(ns, docs.remove(i).get("_id"), Optional.empty()));
            } else {
                docs.put(i, document(i));
                changes.add(new WriteOp.Replace(ns, docs.get(i).deepCopy(), WriteOp.WriteMode.UPDATE, Optional.empty()));
            }
        }
        assertThat(store.writeAll(changes)).allMatch(WriteResult::ok);
        Sort byScore = Sort.parse("{\"s\":{\"$meta\":\"textScore\"},\"_id\":1}", LIMITS);
        for (int q = 0; q < 300; q++) {
            ObjectNode text = JSON.mapper().createObjectNode();
            text.putObject("$text").put("$search", search()).put("$caseSensitive", random.nextInt(4) == 0)
                    .put("$diacriticSensitive", random.nextInt(4) == 0).put("$language", random.nextInt(5) == 0 ? "none" : "english");
            Filter filter = Filter.parse(text, LIMITS);
            TextSearch search = filter.textSearch().orElseThrow();
            search.bind(INDEX);
            List<String> expected = docs.values().stream().filter(filter::matches)
                    .sorted(Comparator.<JsonNode>comparingDouble(search::score).reversed()
                            .thenComparing(d -> d.get("_id").asInt()))
                    .map(d -> JSON.text(d.get("_id"))).toList();
            Filter fresh = Filter.parse(text, LIMITS); // unbound: the store binds it to the collection's index
            List<String> actual = new ArrayList<>();
            store.find(ns, new FindQuery(fresh, byScore, 0, 1000, Optional.empty()),
                    d -> actual.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
            String context = "seed=" + seed + " filter=" + JSON.text(text);
            assertThat(actual).as(context).isEqualTo(expected);
            assertThat(lastPlan.get()).as(context).startsWith("TEXT t ");
            // ranked by the store (a reader who sees everything): the same documents in its own order, pages cut from it
            List<String> ranked = rankedIds(store, ns, text, byScore, 0, 1000);
            assertThat(ranked).as(context).containsExactlyInAnyOrderElementsOf(expected);
            if (ranked.size() > 4) {
                assertThat(rankedIds(store, ns, text, byScore, 2, 3)).as(context).isEqualTo(ranked.subList(2, 5));
            }
            if (q % 10 == 0) {
                assertThat(store.count(ns, Filter.parse(text, LIMITS))).as(context).isEqualTo(expected.size());
            }
        }
    }

    private static List<String> rankedIds(Store store, Namespace ns, ObjectNode text, Sort sort, long skip, long limit) {
        Filter filter = Filter.parse(text, LIMITS);
        filter.textSearch().orElseThrow().readerSeesEverything(true);
        List<String> out = new ArrayList<>();
        store.find(ns, new FindQuery(filter, sort, skip, limit, Optional.empty()), d -> {
            assertThat(d.textScore()).isNotNaN();
            out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id")));
        });
        return out;
    }

    private String search() {
        StringBuilder s = new StringBuilder();
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
            switch (random.nextInt(6)) {
                case 0 -> s.append('-').append(word());
                case 1 -> s.append('"').append(word()).append(' ').append(word()).append('"');
                default -> s.append(word());
            }
            s.append(' ');
        }
        return s.toString();
    }

    private String word() {
        return WORDS[random.nextInt(WORDS.length)];
    }

    private ObjectNode document(int i) {
        ObjectNode d = JSON.mapper().createObjectNode();
        d.put("_id", i);
        d.put("title", words(1 + random.nextInt(3)));
        if (random.nextBoolean()) {
            d.putArray("body").add(words(random.nextInt(6))).add(words(random.nextInt(6)));
        } else {
            d.put("body", words(random.nextInt(8)));
        }
        if (random.nextInt(6) == 0) {
            d.put("lang", "none");
        }
        return d;
    }

    private String words(int n) {
        StringBuilder s = new StringBuilder();
        for (int k = 0; k < n; k++) {
            s.append(k > 0 ? (random.nextInt(5) == 0 ? ", " : " ") : "").append(word());
        }
        return s.toString();
    }
}
