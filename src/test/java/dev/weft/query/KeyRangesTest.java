package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Filter.keyRanges: narrow where it can, and never lose a matching document's key. */
class KeyRangesTest {
    private static final List<IndexField> A = List.of(new IndexField("a", 1));

    private static Optional<List<KeyRange>> ranges(String filter, List<IndexField> fields, boolean multikey) {
        return Filter.parse(j(filter), QueryLimits.defaults()).keyRanges(fields, multikey);
    }

    private static boolean inRanges(List<KeyRange> ranges, JsonNode doc, List<IndexField> fields) {
        for (byte[] key : KeyEncoding.indexKeys(doc, fields)) {
            for (KeyRange r : ranges) {
                if (Arrays.compareUnsigned(key, r.low()) >= 0 && Arrays.compareUnsigned(key, r.high()) <= 0) {
                    return true;
                }
            }
        }
        return false;
    }

    @Test
    void equalityIsOneNarrowRange() {
        List<KeyRange> r = ranges("{a: 5}", A, false).orElseThrow();
        assertThat(r).hasSize(1);
        assertThat(inRanges(r, j("{a: 5.0}"), A)).isTrue();
        assertThat(inRanges(r, j("{a: 6}"), A)).isFalse();
        assertThat(inRanges(r, j("{a: '5'}"), A)).isFalse();
    }

    @Test
    void nullEqualityIncludesMissing() {
        List<KeyRange> r = ranges("{a: null}", A, false).orElseThrow();
        assertThat(inRanges(r, j("{}"), A)).isTrue();
        assertThat(inRanges(r, j("{a: null}"), A)).isTrue();
        assertThat(inRanges(r, j("{a: 0}"), A)).isFalse();
    }

    @Test
    void inGivesSeveralSortedRanges() {
        List<KeyRange> r = ranges("{a: {$in: [3, 'x', 1, 3.0]}}", A, false).orElseThrow();
        assertThat(r).hasSize(3);
        for (int i = 0; i + 1 < r.size(); i++) {
            assertThat(Arrays.compareUnsigned(r.get(i).high(), r.get(i + 1).low())).isNegative();
        }
    }

    @Test
    void rangesStayInTheOperandsBracket() {
        List<KeyRange> r = ranges("{a: {$gt: 5}}", A, false).orElseThrow();
        assertThat(inRanges(r, j("{a: 6}"), A)).isTrue();
        assertThat(inRanges(r, j("{a: 'z'}"), A)).isFalse();
        assertThat(inRanges(r, j("{a: 1}"), A)).isFalse();
        List<KeyRange> both = ranges("{a: {$gt: 5, $lt: 7}}", A, false).orElseThrow();
        assertThat(inRanges(both, j("{a: 8}"), A)).isFalse();
        assertThat(inRanges(both, j("{a: 6}"), A)).isTrue();
    }

    @Test
    void multikeyDoesNotIntersectTwoRangesOnOneField() {
        List<KeyRange> r = ranges("{a: {$gt: 5, $lt: 3}}", A, true).orElseThrow();
        assertThat(inRanges(r, j("{a: [1, 9]}"), A)).isTrue();
        assertThat(ranges("{a: {$gt: 5, $lt: 3}}", A, false)).contains(List.of());
    }

    @Test
    void compoundUsesEqualityThenRange() {
        List<IndexField> ab = List.of(new IndexField("a", 1), new IndexField("b", -1), new IndexField("c", 1));
        List<KeyRange> r = ranges("{a: 1, b: {$gte: 'm'}}", ab, false).orElseThrow();
        assertThat(r).hasSize(1);
        assertThat(inRanges(r, j("{a: 1, b: 'q', c: 7}"), ab)).isTrue();
        assertThat(inRanges(r, j("{a: 1, b: 'a', c: 7}"), ab)).isFalse();
        assertThat(inRanges(r, j("{a: 2, b: 'q'}"), ab)).isFalse();
    }

    @Test
    void negationsAndUnindexedFieldsDoNotNarrow() {
        assertThat(ranges("{a: {$ne: 1}}", A, false)).isEmpty();
        assertThat(ranges("{a: {$nin: [1]}}", A, false)).isEmpty();
        assertThat(ranges("{a: {$not: {$gt: 1}}}", A, false)).isEmpty();
        assertThat(ranges("{a: {$exists: false}}", A, false)).isEmpty();
        assertThat(ranges("{b: 1}", A, false)).isEmpty();
        assertThat(ranges("{$or: [{a: 1}, {b: 1}]}", A, false)).isEmpty();
        assertThat(ranges("{$or: [{a: 1}, {a: 2}]}", A, false).orElseThrow()).hasSize(2);
    }

    @Test
    void regexWithLiteralPrefixNarrowsToThatPrefix() {
        List<KeyRange> r = ranges("{a: {$regex: '^ab+c'}}", A, false).orElseThrow();
        assertThat(inRanges(r, j("{a: 'abbc'}"), A)).isTrue();
        assertThat(inRanges(r, j("{a: 'ac'}"), A)).isFalse();
        List<KeyRange> any = ranges("{a: {$regex: 'pach'}}", A, false).orElseThrow();
        assertThat(inRanges(any, j("{a: 'apache'}"), A)).isTrue();
        assertThat(inRanges(any, j("{a: 5}"), A)).isFalse();
    }

    private static final String[] COMPARISONS = {"$eq", "$gt", "$gte", "$lt", "$lte", "$ne"};

    @Test
    void everyMatchingDocumentHasAKeyInTheRangesOnRandomData() {
        RandomValues r = new RandomValues(2026);
        int narrowed = 0;
        int checkedMatches = 0;
        for (int round = 0; round < 300; round++) {
            List<JsonNode> docs = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                docs.add(r.document(2));
            }
            for (int f = 0; f < 15; f++) {
                List<IndexField> fields = new ArrayList<>();
                int n = 1 + r.random().nextInt(3);
                for (int i = 0; i < n; i++) {
                    fields.add(new IndexField(r.path(), r.random().nextBoolean() ? 1 : -1));
                }
                boolean multikey = docs.stream().anyMatch(d -> KeyEncoding.isMultikey(d, fields));
                Filter filter = Filter.parse(randomFilter(r, fields, 2), QueryLimits.defaults());
                Optional<List<KeyRange>> ranges = filter.keyRanges(fields, multikey);
                if (ranges.isEmpty()) {
                    continue;
                }
                narrowed++;
                for (JsonNode doc : docs) {
                    if (filter.matches(doc)) {
                        checkedMatches++;
                        assertThat(inRanges(ranges.get(), doc, fields))
                                .as("filter %s, index %s, multikey %s, doc %s, ranges %s", filter, fields, multikey, doc, ranges.get())
                                .isTrue();
                    }
                }
            }
        }
        assertThat(narrowed).isGreaterThan(1000);
        assertThat(checkedMatches).isGreaterThan(2000);
    }

    /** Filters biased toward the indexed paths, so that most can narrow. */
    static ObjectNode randomFilter(RandomValues r, List<IndexField> fields, int depth) {
        ObjectNode filter = Json.NODES.objectNode();
        int n = 1 + r.random().nextInt(3);
        for (int i = 0; i < n; i++) {
            String path = r.random().nextInt(4) == 0 ? r.path() : fields.get(r.random().nextInt(fields.size())).path();
            int kind = r.random().nextInt(depth > 0 ? 16 : 13);
            switch (kind) {
                case 0, 1 -> filter.set(path, r.value(1));
                case 2, 3, 4 -> merge(filter, path, r.pick(COMPARISONS), r.value(1));
                case 5 -> merge(filter, path, r.random().nextBoolean() ? "$in" : "$nin", r.array(1));
                case 6 -> merge(filter, path, "$exists", Json.NODES.booleanNode(r.random().nextBoolean()));
                case 7 -> merge(filter, path, "$type", Json.NODES.stringNode(r.pick(new String[] {"number", "string", "null", "array", "object", "date", "int", "double"})));
                case 8 -> merge(filter, path, "$regex", Json.NODES.stringNode(r.pick(new String[] {"^a", "^ab?", "a", "^$", "pach", "^\u00e9"})));
                case 9 -> merge(filter, path, "$size", Json.NODES.numberNode(r.random().nextInt(3)));
                case 10 -> merge(filter, path, "$all", r.array(1));
                case 11 -> merge(filter, path, "$elemMatch", Json.NODES.objectNode()
                        .set(r.pick(new String[] {"$gt", "$lte", "$eq"}), r.value(0)));
                case 12 -> merge(filter, path, "$not", Json.NODES.objectNode().set(r.pick(COMPARISONS), r.value(0)));
                case 13 -> merge(filter, path, "$elemMatch", randomFilter(r, List.of(new IndexField(r.pick(RandomValues.NAMES), 1)), depth - 1));
                default -> {
                    ArrayNode branches = Json.NODES.arrayNode();
                    for (int b = 0; b < 1 + r.random().nextInt(3); b++) {
                        branches.add(randomFilter(r, fields, depth - 1));
                    }
                    filter.set(r.pick(new String[] {"$and", "$or", "$nor"}), branches);
                }
            }
        }
        return filter;
    }

    private static void merge(ObjectNode filter, String path, String op, JsonNode operand) {
        JsonNode existing = filter.get(path);
        ObjectNode ops = existing instanceof ObjectNode o && o.size() > 0 && o.propertyNames().iterator().next().startsWith("$")
                && Values.bracket(o) == Values.Bracket.OBJECT ? o : Json.NODES.objectNode();
        ops.set(op, operand);
        filter.set(path, ops);
    }
}
