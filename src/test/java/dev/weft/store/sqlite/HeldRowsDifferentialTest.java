package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.RandomQueries;
import dev.weft.query.Sort;
import dev.weft.query.Values;
import dev.weft.store.FindQuery;
import dev.weft.store.IndexSpec;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.IntNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Finds over a collection whose rows are held in memory ({@link HeldCollections}), in {@code _id} order
 * or by an unindexed sort, answer as the
 * reference evaluator does, while inserts, replaces and deletes go on between them: the held rows
 * follow every commit. And a collection past {@code held-rows-bytes} is not held; a catalog
 * change drops what is held.
 */
class HeldRowsDifferentialTest {
    private static final Namespace NS = new Namespace("held", "docs");
    private static final String[] SORTS = {null, "{\"_id\":1}", "{\"_id\":-1}"};
    /** Regexes whose literals only a few of RandomQueries' strings hold. */
    private static final String[] RARE_REGEXES = {"elvin", "ojects\\.", "elvin|x\"y", "lvi.*$", "^https://pro"};

    @TempDir
    Path dir;

    @Test
    void heldRowsAnswerLikeTheReferenceEvaluatorThroughWrites() throws Exception {
        compareThroughWrites(false);
    }

    /** With trigram indexes, regexes plan trigram lookups, which the held rows of this small collection stand for. */
    @Test
    void heldRowsStandingForTrigramLookupsAnswerLikeTheReferenceEvaluator() throws Exception {
        compareThroughWrites(true);
    }

    private void compareThroughWrites(boolean trigramIndexes) throws Exception {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomQueries rq = new RandomQueries(seed);
        try (SqliteStore store = StoreTesting.open(dir)) {
            create(store);
            if (trigramIndexes) {
                store.createIndex(NS, IndexSpec.trigram("s_tri", "s"));
                store.createIndex(NS, IndexSpec.trigram("a_tri", "a"));
            }
            TreeMap<Integer, ObjectNode> docs = new TreeMap<>();
            List<ObjectNode> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                ObjectNode d = rq.document(i);
                batch.add(d.deepCopy());
                docs.put(i, stored(d));
            }
            assertThat(store.write(new WriteOp.InsertMany(NS, batch)).ok()).isTrue();
            awaitHeld(store);
            int compared = 0;
            int textRequired = 0;
            int trigramPlans = 0;
            for (int q = 0; q < 600; q++) {
                if (q % 3 == 0) {
                    write(store, rq, docs, 300 + q);
                }
                Filter filter;
                Sort sort;
                // with trigram indexes, half the filters hold a regex on s whose literals few documents hold (a trigram lookup)
                String filterText = trigramIndexes && q % 2 == 0
                        ? "{\"$and\":[{\"s\":{\"$regex\":" + JSON.text(JSON.mapper().getNodeFactory().stringNode(
                        RARE_REGEXES[rq.random().nextInt(RARE_REGEXES.length)])) + "}}," + rq.filter() + "]}"
                        : rq.filter();
                // mostly _id orders (the ordered scan), else a random sort (unindexed: the top-k heap)
                String sortText = rq.random().nextInt(4) == 0 ? rq.sort() : SORTS[rq.random().nextInt(SORTS.length)];
                try {
                    filter = Filter.parse(JSON.parse(filterText, "filter"), LIMITS);
                    sort = sortText == null ? Sort.ID_DESCENDING : Sort.parse(sortText, LIMITS);
                } catch (WeftException e) {
                    continue;
                }
                long skip = rq.random().nextInt(3) == 0 ? rq.random().nextInt(30) : 0;
                long limit = 1 + rq.random().nextInt(60);
                String context = "seed=" + seed + " filter=" + filterText + " sort=" + sortText + " skip=" + skip
                        + " limit=" + limit;
                Comparator<JsonNode> order = sort.comparator().thenComparing((a, b) -> Values.compare(a.get("_id"), b.get("_id")));
                List<String> expected = docs.values().stream().filter(filter::matches).sorted(order).skip(skip).limit(limit)
                        .map(JSON::text).toList();
                List<String> actual = new ArrayList<>();
                store.find(NS, new FindQuery(filter, sort, skip, limit, Optional.empty()), d -> {
                    ObjectNode shown = JSON.parseObject(d.json(), "doc");
                    shown.remove("_etag");
                    actual.add(JSON.text(shown));
                });
                assertThat(actual).as(context).isEqualTo(expected);
                compared++;
                if (store.lastPlan().trigrams() != null) {
                    trigramPlans++;
                }
                if (dev.weft.store.plan.HeldText.requiresText(filter)) {
                    textRequired++;
                }
            }
            System.out.printf("held rows differential: seed %d, %d queries compared, %d requiring text, %d trigram lookups%n",
                    seed, compared, textRequired, trigramPlans);
            if (trigramIndexes) {
                assertThat(trigramPlans).isGreaterThan(20);
            }
            assertThat(compared).isGreaterThan(500);
            assertThat(textRequired).isGreaterThan(100);
            // every write was followed, none made the rows be dropped
            assertThat(store.heldCollections()).contains(NS);
            store.createIndex(NS, new IndexSpec("x_1", List.of(new IndexField("x", 1)), false));
            assertThat(store.heldCollections()).doesNotContain(NS);
        }
    }

    @Test
    void aCollectionPastTheBoundIsNotHeldAndStillAnswers() throws Exception {
        try (SqliteStore store = StoreTesting.open(dir, "--held-rows-bytes", "2000")) {
            create(store);
            List<ObjectNode> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                batch.add(StoreTesting.obj("{\"_id\":" + i + ",\"s\":\"" + (i % 10 == 3 ? "apache" : "other") + "\"}"));
            }
            assertThat(store.write(new WriteOp.InsertMany(NS, batch)).ok()).isTrue();
            Filter regex = StoreTesting.filter("{\"s\":{\"$regex\":\"pach\"}}");
            for (int i = 0; i < 20; i++) {
                List<Integer> found = new ArrayList<>();
                store.find(NS, new FindQuery(regex, Sort.parse("{\"_id\":1}", LIMITS), 0, 100, Optional.empty()),
                        d -> found.add(JSON.parse(d.json(), "doc").get("_id").asInt()));
                assertThat(found).containsExactly(3, 13, 23, 33, 43, 53, 63, 73, 83, 93);
                Thread.sleep(5);
            }
            // the writer took the read asked for before this write (its queue is in order): it found the rows too large
            assertThat(store.write(new WriteOp.InsertMany(NS, List.of(StoreTesting.obj("{\"_id\":1000}")))).ok()).isTrue();
            assertThat(store.heldCollections()).isEmpty();
        }
    }

    private static void create(SqliteStore store) {
        store.putDatabase(NS.db(), JSON.parseObject("{}".getBytes(), "db"), Optional.empty());
        store.putCollection(NS, JSON.parseObject("{}".getBytes(), "coll"), Optional.empty());
    }

    /** Asks for the collection's rows with a find that tests a literal, until the writer has read them in. */
    private static void awaitHeld(SqliteStore store) throws InterruptedException {
        Filter literal = StoreTesting.filter("{\"s\":\"no such string\"}");
        for (int i = 0; i < 500 && !store.heldCollections().contains(NS); i++) {
            store.find(NS, new FindQuery(literal, Sort.ID_DESCENDING, 0, 10, Optional.empty()), d -> {});
            Thread.sleep(10);
        }
        assertThat(store.heldCollections()).contains(NS);
    }

    /** One random insert, replace or delete, applied to the store and to {@code docs}. */
    private static void write(SqliteStore store, RandomQueries rq, TreeMap<Integer, ObjectNode> docs, int newId) {
        int kind = rq.random().nextInt(3);
        Integer id = docs.isEmpty() ? null : docs.ceilingKey(rq.random().nextInt(newId));
        if (kind == 0 || id == null) {
            ObjectNode d = rq.document(newId);
            assertThat(store.write(new WriteOp.InsertMany(NS, List.of(d.deepCopy()))).ok()).isTrue();
            docs.put(newId, stored(d));
        } else if (kind == 1) {
            ObjectNode d = rq.document(id);
            assertThat(store.write(new WriteOp.Replace(NS, d.deepCopy(), WriteOp.WriteMode.UPDATE, Optional.empty())).ok())
                    .isTrue();
            docs.put(id, stored(d));
        } else {
            assertThat(store.write(new WriteOp.DeleteOne(NS, IntNode.valueOf(id), Optional.empty())).ok()).isTrue();
            docs.remove(id);
        }
    }

    /** A document as the reference compares it: its JSON round trip, without the store's _etag. */
    private static ObjectNode stored(ObjectNode d) {
        return JSON.parseObject(JSON.bytes(d), "doc");
    }
}
