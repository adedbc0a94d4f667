package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sort positions order documents exactly as the sort's comparator, ties by ascending {@code _id}
 * (mixed types, arrays, empty arrays, missing fields); an {@link AfterPosition} keeps exactly the
 * documents after (or at) a position, and narrows only an index walked in the sort's order.
 */
class SortPositionTest {

    private static List<JsonNode> documents(RandomValues values, int n) {
        List<JsonNode> docs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ObjectNode d = Json.NODES.objectNode();
            d.set("_id", i % 3 == 0 ? Json.NODES.numberNode(i) : Json.NODES.stringNode("id" + i));
            for (String name : RandomValues.NAMES) {
                if (values.random().nextInt(5) > 0) {
                    d.set(name, values.value(1));
                }
            }
            docs.add(d);
        }
        return docs;
    }

    private static Comparator<JsonNode> reference(Sort sort) {
        return sort.comparator().thenComparing(d -> KeyEncoding.encode(d.get("_id")), Arrays::compareUnsigned);
    }

    @Test
    void positionsOrderDocumentsAsTheSortThenIdAscending() {
        RandomValues values = new RandomValues(11);
        List<JsonNode> docs = documents(values, 400);
        for (String spec : List.of("{a:1}", "{a:-1}", "{a:1,b:-1}", "{b:-1,c:-1}", "{_id:-1}", "{c:1,_id:1}")) {
            Sort sort = Sort.parse(J.j(spec).toString(), QueryLimits.defaults());
            List<JsonNode> expected = new ArrayList<>(docs);
            expected.sort(reference(sort));
            List<JsonNode> byPosition = new ArrayList<>(docs);
            byPosition.sort(Comparator.comparing(d -> SortPosition.of(d, sort)));
            assertThat(byPosition).as(spec).isEqualTo(expected);
        }
    }

    @Test
    void afterPositionKeepsExactlyTheDocumentsPastIt() {
        RandomValues values = new RandomValues(12);
        List<JsonNode> docs = documents(values, 200);
        Sort sort = Sort.parse("{\"a\":-1,\"b\":1}", QueryLimits.defaults());
        docs.sort(reference(sort));
        for (int cut : new int[] {0, 1, 57, 198, 199}) {
            SortPosition at = SortPosition.of(docs.get(cut), sort);
            AfterPosition after = new AfterPosition(Filter.all(), sort, at, false);
            AfterPosition from = new AfterPosition(Filter.all(), sort, at, true);
            assertThat(docs.stream().filter(after::matches).toList()).isEqualTo(docs.subList(cut + 1, docs.size()));
            assertThat(docs.stream().filter(from::matches).toList()).isEqualTo(docs.subList(cut, docs.size()));
        }
    }

    @Test
    void aPositionNarrowsOnlyAnIndexInTheSortsOrder() {
        Sort sort = Sort.parse("{\"n\":-1}", QueryLimits.defaults());
        JsonNode doc = J.j("{_id: 'x', n: 5}");
        SortPosition p = SortPosition.of(doc, sort);
        AfterPosition after = new AfterPosition(Filter.all(), sort, p, false);
        List<IndexField> ascending = List.of(new IndexField("n", 1));
        List<IndexField> descending = List.of(new IndexField("n", -1));
        KeyRange reversed = after.keyRanges(ascending, false).orElseThrow().getFirst();
        assertThat(reversed.low()).isEmpty();
        assertThat(reversed.high()).isEqualTo(KeyEncoding.encode(J.j("5")));
        KeyRange same = after.keyRanges(descending, false).orElseThrow().getFirst();
        assertThat(same.low()).isEqualTo(p.key());
        assertThat(after.keyRanges(ascending, true)).isEqualTo(Optional.empty());
        assertThat(after.keyRanges(List.of(new IndexField("m", 1)), false)).isEqualTo(Optional.empty());
        // with the client's own range: the intersection
        Filter below = Filter.parse(J.j("{n: {$gt: 2}}"), QueryLimits.defaults());
        List<KeyRange> both = new AfterPosition(below, sort, p, false).keyRanges(ascending, false).orElseThrow();
        assertThat(both).hasSize(1);
        assertThat(Arrays.compareUnsigned(both.getFirst().low(), KeyEncoding.encode(J.j("2")))).isGreaterThanOrEqualTo(0);
        assertThat(both.getFirst().high()).isEqualTo(KeyEncoding.encode(J.j("5")));
    }
}
