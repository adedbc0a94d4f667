package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
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
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 2, section 6: random documents, random indexes, thousands of random filters and sorts
 * with skip and limit, with and without hint; the store's planned answer must equal the
 * in-memory evaluator's over a full scan (sort, then _id ascending for ties, skip, limit).
 * {@link #check} runs on any store (the PostgreSQL store's test calls it too).
 */
public class PlannerDifferentialTest {
    private static final Namespace NS = new Namespace("diff", "docs");
    private static final String[] STRINGS = {"", "a", "ab", "b", "pach", "Zed", "apache"};
    private static final String[] PATHS = {"a", "b", "s", "n", "c.d", "c", "e", "g", "f", "u", "m", "c.0.d", "zz", "_id", "a.0"};
    private static final String[] TYPES = {"string", "number", "array", "object", "null", "bool", "date", "objectId",
            "double", "int"};
    private static final String[] SORTS = {null, "{\"_id\":1}", "{\"_id\":-1}", "{\"s\":1}", "{\"s\":-1}", "{\"n\":1}",
            "{\"n\":-1}", "{\"s\":1,\"n\":-1}", "{\"s\":-1,\"n\":1}", "{\"s\":1,\"n\":1}", "{\"a\":1}", "{\"a\":-1}",
            "{\"g\":-1}", "{\"g\":1}", "{\"c.d\":1}", "{\"e\":1,\"g\":-1}", "{\"e\":-1,\"g\":1}", "{\"b\":1}",
            "{\"u\":-1}", "{\"m\":1}", "{\"zz\":1}"};

    @TempDir
    Path dir;

    private Random random;

    @Test
    void plannedQueriesAnswerLikeAFullScan() {
        StoreTesting.assumeQueryImplemented();
        try (SqliteStore store = StoreTesting.open(dir)) {
            check(store, store::plans, store::indexedPlans, () -> store.lastPlan().description());
        }
    }

    /** The differential check on an empty store, with its counters of plans and indexed plans. */
    public void check(Store store, LongSupplier plansMade, LongSupplier indexedPlansMade, Supplier<String> lastPlan) {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        random = new Random(seed);
        {
            store.putDatabase("diff", obj("{}"), Optional.empty());
            store.putCollection(NS, obj("{}"), Optional.empty());
            List<IndexSpec> indexes = List.of(
                    index("s_1", false, "s", 1), index("n_-1", false, "n", -1), index("a_1", false, "a", 1),
                    index("s_1_n_-1", false, "s", 1, "n", -1), index("cd_1", false, "c.d", 1),
                    index("e_1_g_-1", false, "e", 1, "g", -1), index("b_1", false, "b", 1),
                    index("u_1", true, "u", 1), index("m_1", false, "m", 1));
            // half the indexes exist before the documents, half are built over them
            for (int i = 0; i < indexes.size(); i += 2) {
                store.createIndex(NS, indexes.get(i));
            }
            Map<String, ObjectNode> docs = new LinkedHashMap<>();
            List<ObjectNode> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                ObjectNode d = document(i);
                docs.put(JSON.text(d.get("_id")), roundTrip(d));
                batch.add(d.deepCopy());
            }
            assertThat(store.write(new WriteOp.InsertMany(NS, batch)).ok()).isTrue();
            for (int i = 1; i < indexes.size(); i += 2) {
                store.createIndex(NS, indexes.get(i));
            }
            // rewrite and delete some in one batch, so index maintenance and multi-op batches are exercised too
            List<String> keys = new ArrayList<>(docs.keySet());
            List<WriteOp> changes = new ArrayList<>();
            for (int i = 0; i < 120; i++) {
                String key = keys.get(random.nextInt(keys.size()));
                if (!docs.containsKey(key)) {
                    continue;
                }
                JsonNode id = docs.get(key).get("_id");
                if (random.nextInt(4) == 0) {
                    changes.add(new WriteOp.DeleteOne(NS, id, Optional.empty()));
                    docs.remove(key);
                } else {
                    ObjectNode d = document(random.nextInt(100_000) + 1000);
                    d.set("_id", id);
                    d.put("u", 1_000_000 + i);
                    changes.add(new WriteOp.Replace(NS, d.deepCopy(), WriteOp.WriteMode.UPDATE, Optional.empty()));
                    docs.put(key, roundTrip(d));
                }
            }
            assertThat(store.writeAll(changes)).allMatch(WriteResult::ok);
            List<ObjectNode> all = new ArrayList<>(docs.values());
            List<String> indexNames = new ArrayList<>(List.of("_id_"));
            indexes.forEach(i -> indexNames.add(i.name()));

            int queries = 2000;
            int compared = 0;
            int refused = 0;
            long plansBefore = plansMade.getAsLong();
            long indexedBefore = indexedPlansMade.getAsLong();
            for (int q = 0; q < queries; q++) {
                String filterText = filter(0);
                Filter filter = Filter.parse(JSON.parse(filterText, "filter"), LIMITS);
                String sortText = SORTS[random.nextInt(SORTS.length)];
                Sort sort = sortText == null ? Sort.ID_DESCENDING : Sort.parse(sortText, LIMITS);
                long skip = random.nextInt(4) == 0 ? random.nextInt(40) : 0;
                long limit = random.nextInt(5) == 0 ? Long.MAX_VALUE : 1 + random.nextInt(60);
                Optional<String> hint = random.nextInt(5) == 0
                        ? Optional.of(indexNames.get(random.nextInt(indexNames.size()))) : Optional.empty();
                List<String> expected = reference(all, filter, sort, skip, limit);
                List<String> actual = new ArrayList<>();
                String context = "seed=" + seed + " filter=" + filterText + " sort=" + sortText + " skip=" + skip
                        + " limit=" + (limit == Long.MAX_VALUE ? "none" : limit) + " hint=" + hint.orElse("-");
                try {
                    store.find(NS, new FindQuery(filter, sort, skip, limit, hint),
                            d -> actual.add(JSON.text(JSON.parse(d.json(), "doc").get("_id"))));
                } catch (WeftException e) {
                    assertThat(e.status()).as(context + ": " + e.getMessage()).isEqualTo(400);
                    assertThat(limit).as(context + ": refused a bounded query: " + e.getMessage()).isEqualTo(Long.MAX_VALUE);
                    assertThat(e.getMessage()).contains("sort");
                    refused++;
                    continue;
                }
                String plan = lastPlan.get();
                assertThat(actual).as(context + "\nplan: " + plan + "\nexpected: " + expected + "\nactual:   " + actual)
                        .isEqualTo(expected);
                if (q % 10 == 0) {
                    long expectedCount = all.stream().filter(filter::matches).count();
                    assertThat(store.count(NS, filter)).as(context + " count").isEqualTo(expectedCount);
                }
                compared++;
            }
            positionalUpdates(store, docs, seed);
            long plans = plansMade.getAsLong() - plansBefore;
            long indexed = indexedPlansMade.getAsLong() - indexedBefore;
            System.out.printf("differential: seed %d, %d queries compared, %d refused, %d of %d plans used an index%n",
                    seed, compared, refused, indexed, plans);
            assertThat(compared).isGreaterThan(queries / 2);
            assertThat(indexed).as("plans that used an index or key ranges").isGreaterThan(plans / 3);
        }
    }

    /**
     * Random positional bulk updates ({@code $}, {@code $[]}, {@code $[id]} with arrayFilters)
     * through the store, each also applied in memory to the reference documents: the store must
     * hold what the evaluator computed (an update refused for one document is refused whole),
     * and its indexes must still count every filter's matches.
     */
    private void positionalUpdates(Store store, Map<String, ObjectNode> docs, long seed) {
        int applied = 0;
        for (int u = 0; u < 150; u++) {
            String[] update = positionalUpdate();
            JsonNode filterSpec = JSON.parse(update[0], "filter");
            JsonNode arrayFilters = update[2] == null ? null : JSON.parse(update[2], "arrayFilters");
            Filter filter = Filter.parse(filterSpec, LIMITS);
            dev.weft.query.Update parsed = dev.weft.query.Update.parse(JSON.parse(update[1], "update"), LIMITS,
                    List.of(filterSpec), arrayFilters);
            String context = "seed=" + seed + " filter=" + update[0] + " update=" + update[1] + " arrayFilters=" + update[2];
            Map<String, ObjectNode> expected = new LinkedHashMap<>();
            boolean refused = false;
            for (Map.Entry<String, ObjectNode> e : docs.entrySet()) {
                ObjectNode doc = e.getValue().deepCopy();
                if (filter.matches(doc)) {
                    try {
                        parsed.apply(doc, false);
                    } catch (WeftException refusal) {
                        refused = true;
                    }
                }
                expected.put(e.getKey(), roundTrip(doc));
            }
            boolean ok;
            try {
                ok = store.write(new WriteOp.UpdateMany(NS, filter, parsed)).ok();
            } catch (WeftException e) {
                assertThat(e.status()).as(context).isEqualTo(400);
                ok = false;
            }
            assertThat(ok).as(context + ": refused in memory " + refused).isEqualTo(!refused);
            if (!refused) {
                docs.putAll(expected);
                applied++;
            }
            assertThat(stored(store)).as(context).isEqualTo(texts(docs));
            if (u % 5 == 0) {
                Filter probe = Filter.parse(JSON.parse(filter(0), "filter"), LIMITS);
                assertThat(store.count(NS, probe)).as(context + " count")
                        .isEqualTo(docs.values().stream().filter(probe::matches).count());
            }
        }
        System.out.printf("differential: seed %d, %d of 150 positional updates applied%n", seed, applied);
        assertThat(applied).isGreaterThan(30);
    }

    /** {filter, update, arrayFilters or null}, on the arrays at a (scalars) and c (documents {d}). */
    private String[] positionalUpdate() {
        String v = JSON.text(scalar());
        String n = JSON.text(number());
        String isArray = "\"$type\":\"array\"";
        return switch (random.nextInt(8)) {
            case 0 -> new String[] {"{\"a\":{" + isArray + "}}", "{\"$set\":{\"a.$[]\":" + v + "}}", null};
            case 1 -> new String[] {"{\"a\":" + v + "}", "{\"$set\":{\"a.$\":" + JSON.text(scalar()) + "}}", null};
            case 2 -> new String[] {"{\"a\":{" + isArray + "}}", "{\"$unset\":{\"a.$[x]\":1}}",
                    "[{\"x\":{\"$lt\":" + n + "}}]"};
            case 3 -> new String[] {"{\"c\":{" + isArray + "}}", "{\"$max\":{\"c.$[].d\":" + v + "}}", null};
            case 4 -> new String[] {"{\"c.d\":{\"$gte\":" + n + "}}", "{\"$set\":{\"c.$.d\":" + v + "}}", null};
            case 5 -> new String[] {"{\"c\":{" + isArray + "}}", "{\"$set\":{\"c.$[e].d\":" + v + "}}",
                    "[{\"e.d\":{\"$type\":\"" + TYPES[random.nextInt(TYPES.length)] + "\"}}]"};
            case 6 -> new String[] {"{\"c\":{" + isArray + "}}", "{\"$inc\":{\"c.$[e].d\":" + n + "}}",
                    "[{\"e.d\":{\"$gt\":" + n + "}}]"};
            default -> new String[] {"{\"a\":{\"$in\":[" + v + "," + n + "]}}", "{\"$mul\":{\"a.$\":2}}", null};
        };
    }

    private static List<String> stored(Store store) {
        List<String> texts = new ArrayList<>();
        store.find(NS, new FindQuery(Filter.all(), Sort.parse("{\"_id\":1}", LIMITS), 0, Long.MAX_VALUE, Optional.empty()), d -> {
            ObjectNode doc = JSON.parseObject(d.json(), "doc");
            doc.remove("_etag");
            texts.add(JSON.text(doc));
        });
        return texts;
    }

    private static List<String> texts(Map<String, ObjectNode> docs) {
        return docs.values().stream().sorted((x, y) -> Values.compare(x.get("_id"), y.get("_id")))
                .map(d -> {
                    ObjectNode copy = d.deepCopy();
                    copy.remove("_etag");
                    return JSON.text(copy);
                }).toList();
    }

    /** The document as the store will read it back (JSON has no int/long distinction). */
    private static ObjectNode roundTrip(ObjectNode d) {
        return JSON.parseObject(JSON.bytes(d), "doc");
    }

    private static List<String> reference(List<ObjectNode> all, Filter filter, Sort sort, long skip, long limit) {
        Comparator<JsonNode> order = sort.comparator().thenComparing((a, b) -> Values.compare(a.get("_id"), b.get("_id")));
        return all.stream().filter(filter::matches).sorted(order).skip(skip).limit(limit)
                .map(d -> JSON.text(d.get("_id"))).toList();
    }

    private static IndexSpec index(String name, boolean unique, Object... pathsAndDirections) {
        List<IndexField> fields = new ArrayList<>();
        for (int i = 0; i < pathsAndDirections.length; i += 2) {
            fields.add(new IndexField((String) pathsAndDirections[i], (Integer) pathsAndDirections[i + 1]));
        }
        return new IndexSpec(name, fields, unique);
    }

    // --- random documents ----------------------------------------------------------------

    private ObjectNode document(int i) {
        ObjectNode d = JSON.mapper().createObjectNode();
        switch (i % 5) {
            case 0, 1, 2 -> d.put("_id", i);
            case 3 -> d.put("_id", "id" + i);
            default -> d.putObject("_id").put("$oid", String.format("%024x", i));
        }
        maybe(d, "a", () -> random.nextInt(3) == 0 ? array(3) : scalar());
        maybe(d, "b", this::anyValue);
        if (random.nextInt(4) != 0) {
            d.put("s", STRINGS[random.nextInt(STRINGS.length)]);
        }
        if (random.nextInt(5) != 0) {
            d.set("n", number());
        }
        maybe(d, "c", () -> {
            if (random.nextInt(3) == 0) {
                var arr = JSON.mapper().createArrayNode();
                for (int k = random.nextInt(3); k >= 0; k--) {
                    arr.addObject().set("d", scalar());
                }
                return arr;
            }
            ObjectNode c = JSON.mapper().createObjectNode();
            if (random.nextInt(4) != 0) {
                c.set("d", scalar());
            }
            return c;
        });
        if (random.nextInt(3) != 0) {
            d.put("e", random.nextBoolean());
        }
        if (random.nextInt(3) != 0) {
            d.set("g", date());
        }
        maybe(d, "f", this::objectId);
        d.put("u", i);
        maybe(d, "m", () -> random.nextInt(2) == 0 ? JSON.mapper().createArrayNode() : scalar());
        return d;
    }

    private void maybe(ObjectNode d, String field, java.util.function.Supplier<JsonNode> value) {
        if (random.nextInt(5) != 0) {
            d.set(field, value.get());
        }
    }

    private JsonNode anyValue() {
        return switch (random.nextInt(6)) {
            case 0 -> array(2);
            case 1 -> {
                ObjectNode o = JSON.mapper().createObjectNode();
                o.set("x", scalar());
                yield o;
            }
            default -> scalar();
        };
    }

    private JsonNode array(int max) {
        var arr = JSON.mapper().createArrayNode();
        for (int k = random.nextInt(max + 1); k > 0; k--) {
            arr.add(scalar());
        }
        return arr;
    }

    private JsonNode scalar() {
        return switch (random.nextInt(8)) {
            case 0 -> JSON.mapper().getNodeFactory().nullNode();
            case 1 -> JSON.mapper().getNodeFactory().booleanNode(random.nextBoolean());
            case 2 -> JSON.mapper().getNodeFactory().stringNode(STRINGS[random.nextInt(STRINGS.length)]);
            case 3 -> objectId();
            case 4 -> date();
            default -> number();
        };
    }

    private JsonNode number() {
        var f = JSON.mapper().getNodeFactory();
        return switch (random.nextInt(4)) {
            case 0 -> f.numberNode(random.nextInt(10) - 3 + 0.5);
            case 1 -> f.numberNode((long) random.nextInt(10) - 3);
            default -> f.numberNode(random.nextInt(10) - 3);
        };
    }

    private JsonNode objectId() {
        ObjectNode o = JSON.mapper().createObjectNode();
        o.put("$oid", String.format("%024x", random.nextInt(6)));
        return o;
    }

    private JsonNode date() {
        ObjectNode o = JSON.mapper().createObjectNode();
        o.put("$date", 1_700_000_000_000L + random.nextInt(6) * 1000L);
        return o;
    }

    // --- random filters ------------------------------------------------------------------

    private String filter(int depth) {
        int kind = random.nextInt(depth > 1 ? 8 : 12);
        if (kind >= 8) {
            String op = kind == 8 || kind == 9 ? "$and" : kind == 10 ? "$or" : "$nor";
            int n = 1 + random.nextInt(3);
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                parts.add(filter(depth + 1));
            }
            return "{\"" + op + "\":[" + String.join(",", parts) + "]}";
        }
        if (kind == 7) {
            return "{" + leaf() + "," + leaf() + "}";
        }
        if (kind == 6 && depth == 0) {
            return "{}";
        }
        return "{" + leaf() + "}";
    }

    private String leaf() {
        String path = "\"" + PATHS[random.nextInt(PATHS.length)] + "\":";
        String v = JSON.text(scalar());
        return path + switch (random.nextInt(13)) {
            case 0, 1 -> v;
            case 2 -> "{\"$gt\":" + v + "}";
            case 3 -> "{\"$gte\":" + v + ",\"$lt\":" + JSON.text(scalar()) + "}";
            case 4 -> "{\"$lte\":" + v + "}";
            case 5 -> "{\"$in\":[" + v + "," + JSON.text(scalar()) + "," + JSON.text(scalar()) + "]}";
            case 6 -> "{\"$ne\":" + v + "}";
            case 7 -> "{\"$exists\":" + random.nextBoolean() + "}";
            case 8 -> "{\"$type\":\"" + TYPES[random.nextInt(TYPES.length)] + "\"}";
            case 9 -> "{\"$nin\":[" + v + "," + JSON.text(scalar()) + "]}";
            case 10 -> "{\"$gt\":" + JSON.text(number()) + ",\"$lte\":" + JSON.text(number()) + "}";
            case 11 -> "{\"$not\":{\"$gt\":" + v + "}}";
            default -> "{\"$in\":[" + JSON.text(number()) + "," + JSON.text(number()) + "]}";
        };
    }
}
