package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The evaluator on stored bytes ({@link StoredMatcher}: a pruned streaming read, then the
 * reference evaluator) against the reference on the whole parsed document: the same match for
 * every random filter and document, the same order for every random sort.
 */
class StoredMatcherDifferentialTest {
    private static final Json JSON = Json.standard();

    @Test
    void prunedReadsAnswerLikeWholeDocuments() {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomQueries rq = new RandomQueries(seed);
        List<ObjectNode> docs = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ObjectNode doc = rq.document(i);
            if (i % 2 == 1) { // an ObjectId _id as Weft makes them (and one in capitals), read whole by the sort on _id
                doc.putObject("_id").put("$oid", String.format(i % 4 == 1 ? "%024x" : "%024X", i * 7919L));
            }
            docs.add(JSON.parseObject(JSON.bytes(doc), "doc"));
        }
        List<byte[]> bodies = docs.stream().map(JSON::bytes).toList();
        int cases = 0;
        int matched = 0;
        for (int q = 0; q < 1500; q++) {
            String filterText = rq.filter();
            String sortText = rq.sort();
            Filter filter;
            Sort sort;
            try {
                filter = Filter.parse(JSON.parse(filterText, "filter"), QueryLimits.defaults());
                sort = sortText == null ? Sort.ID_DESCENDING : Sort.parse(sortText, QueryLimits.defaults());
            } catch (WeftException e) {
                continue; // a generated filter MongoDB refuses too
            }
            StoredMatcher matcher = StoredMatcher.of(JSON, filter, sort);
            Comparator<JsonNode> order = sort.comparator();
            String context = "seed=" + seed + " filter=" + filterText + " sort=" + sortText;
            JsonNode previousPruned = null;
            JsonNode previousWhole = null;
            for (int i = 0; i < docs.size(); i++) {
                boolean expected = filter.matches(docs.get(i));
                assertThat(matcher.matches(bodies.get(i))).as(context + " doc=" + docs.get(i)).isEqualTo(expected);
                JsonNode pruned = matcher.read(bodies.get(i));
                if (previousPruned != null) {
                    assertThat(Integer.signum(order.compare(previousPruned, pruned)))
                            .as(context + " order of " + previousWhole + " and " + docs.get(i))
                            .isEqualTo(Integer.signum(order.compare(previousWhole, docs.get(i))));
                }
                previousPruned = pruned;
                previousWhole = docs.get(i);
                matched += expected ? 1 : 0;
                cases++;
            }
        }
        System.out.printf("stored matcher differential: seed %d, %d cases, %d matches%n", seed, cases, matched);
        assertThat(cases).isGreaterThan(100_000);
        assertThat(matched).isGreaterThan(5_000);
    }

    @Test
    void prunedReadKeepsOnlyTheNamedPaths() {
        PrunedReader reader = new PrunedReader(JSON, PathTrie.of(List.of("a.b", "c.1.d", "e")));
        byte[] doc = "{\"_id\":1,\"a\":[{\"b\":1,\"x\":2},3,[{\"b\":4,\"y\":5}]],\"c\":[{\"d\":1,\"z\":1},{\"1\":{\"d\":2,\"q\":3},\"d\":4,\"w\":5}],\"e\":{\"f\":[1,{\"g\":2}]},\"big\":\"skipped\"}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(JSON.text(reader.read(doc))).isEqualTo(
                "{\"a\":[{\"b\":1},3,[{\"b\":4}]],\"c\":[{},{\"1\":{\"d\":2},\"d\":4}],\"e\":{\"f\":[1,{\"g\":2}]}}");
    }
}
