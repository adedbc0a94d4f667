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
 * On SQLite also with writes left pending (the writer never idle) between the searches: the same
 * answers, and the store's ranked pages and scores equal a store's whose writes go straight into
 * FTS5.
 */
public class TextDifferentialTest {
    private static final String[] WORDS = {"coffee", "Coffee", "coffees", "shop", "shopping", "Shops", "café", "cafe",
            "CAFÉ", "tea", "the", "and", "running", "runs", "run", "brew", "brewed", "cold", "Cold", "leche"};
    private static final TextIndex INDEX = new TextIndex(Map.of("title", 5, "body", 1), TextLanguage.ENGLISH, "lang");

    @TempDir
    Path dir;

    private Random random;
    /** The _id of the next document inserted (ids are never used twice). */
    private int nextId;

    @Test
    void searchesAnswerLikeTheEvaluatorOverEveryDocument() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir)) {
            check(store, () -> store.lastPlan().description());
        }
    }

    /** Writes between the searches left pending; {@code twin}, written the same, puts them straight into FTS5. */
    @Test
    void searchesWhileDocumentsArePendingAnswerAsAStoreWithoutPendingDocuments() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir.resolve("pending"), "--trigram-pending-idle-ms", "86400000");
             SqliteStore twin = StoreTesting.open(dir.resolve("straight"), "--text-pending-rows", "0")) {
            check(store, () -> store.lastPlan().description(), List.of(twin));
        }
    }

    public void check(Store store, Supplier<String> lastPlan) {
        check(store, lastPlan, List.of());
    }

    /** As {@link #check(Store, Supplier)}, every write made on {@code twins} too, whose ranked pages must be the store's, scores and all. */
    private void check(Store store, Supplier<String> lastPlan, List<Store> twins) {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        random = new Random(seed);
        Namespace ns = new Namespace("txt", "c");
        List<Store> stores = new ArrayList<>(twins);
        stores.addFirst(store);
        Map<Integer, ObjectNode> docs = new LinkedHashMap<>();
        List<ObjectNode> batch = new ArrayList<>();
        for (nextId = 0; nextId < 200; nextId++) {
            docs.put(nextId, document(nextId));
            batch.add(docs.get(nextId).deepCopy());
        }
        for (Store each : stores) {
            each.putDatabase("txt", obj("{}"), Optional.empty());
            each.putCollection(ns, obj("{}"), Optional.empty());
            assertThat(each.write(new WriteOp.InsertMany(ns, batch)).ok()).isTrue();
            each.createIndex(ns, IndexSpec.text("t", INDEX)); // built over the documents
        }
        writeAll(stores, changes(ns, docs, 60));
        Sort byScore = Sort.parse("{\"s\":{\"$meta\":\"textScore\"},\"_id\":1}", LIMITS);
        for (int q = 0; q < 300; q++) {
            if (!twins.isEmpty() && q % 20 == 19) {
                writeAll(stores, changes(ns, docs, 1 + random.nextInt(30)));
            }
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
            for (Store twin : twins) {
                assertThat(rankedScores(store, ns, text, byScore)).as(context).isEqualTo(rankedScores(twin, ns, text, byScore));
            }
        }
    }

    private static void writeAll(List<Store> stores, List<WriteOp> ops) {
        for (Store store : stores) {
            assertThat(store.writeAll(ops)).allMatch(WriteResult::ok);
        }
    }

    /** About {@code n} random changes of {@code docs} (inserts of new ids, replaces, deletes), applied to it, as write ops. */
    private List<WriteOp> changes(Namespace ns, Map<Integer, ObjectNode> docs, int n) {
        List<WriteOp> changes = new ArrayList<>();
        List<ObjectNode> inserts = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            int i = random.nextInt(nextId);
            if (random.nextInt(4) == 0) {
                docs.put(nextId, document(nextId));
                inserts.add(docs.get(nextId++).deepCopy());
            } else if (!docs.containsKey(i)) {
                continue;
            } else if (random.nextInt(3) == 0) {
                changes.add(new WriteOp.DeleteOne(ns, docs.remove(i).get("_id"), Optional.empty()));
            } else {
                docs.put(i, document(i));
                changes.add(new WriteOp.Replace(ns, docs.get(i).deepCopy(), WriteOp.WriteMode.UPDATE, Optional.empty()));
            }
        }
        if (!inserts.isEmpty()) {
            changes.addFirst(new WriteOp.InsertMany(ns, inserts));
        }
        return changes;
    }

    /** The store's ranked answer (a reader who sees everything) as {@code id score} lines. */
    private static List<String> rankedScores(Store store, Namespace ns, ObjectNode text, Sort sort) {
        Filter filter = Filter.parse(text, LIMITS);
        filter.textSearch().orElseThrow().readerSeesEverything(true);
        List<String> out = new ArrayList<>();
        store.find(ns, new FindQuery(filter, sort, 0, 1000, Optional.empty()),
                d -> out.add(JSON.text(JSON.parse(d.json(), "doc").get("_id")) + " " + d.textScore()));
        return out;
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
