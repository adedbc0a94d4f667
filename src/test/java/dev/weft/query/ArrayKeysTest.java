package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Large arrays looked up in {@link ArrayKeys} answer as walking them does, and charge a budget
 * the same value tests, however many times the same array is met.
 */
class ArrayKeysTest {
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    @Test
    void rememberedArraysAnswerAndChargeAsAWalk() {
        RandomValues r = new RandomValues(11);
        for (int round = 0; round < 120; round++) {
            ArrayNode array = Json.NODES.arrayNode();
            int size = ArrayKeys.REMEMBERED_SIZE + r.random().nextInt(80);
            for (int i = 0; i < size; i++) {
                array.add(r.value(1));
            }
            JsonNode doc = Json.NODES.objectNode().set("x", array);
            ArrayKeys arrays = ArrayKeys.remembering();
            for (Filter f : filters(r)) {
                for (int meeting = 0; meeting < 3; meeting++) { // a walk, a map, a lookup
                    assertThat(f.matches(doc, MatchBudget.of(Long.MAX_VALUE, arrays))).as("%s on %s", f, array)
                            .isEqualTo(f.matches(doc));
                    assertThat(leastBudget(f, doc, arrays)).as("tests of %s", f).isEqualTo(leastBudget(f, doc, ArrayKeys.NONE));
                }
            }
        }
    }

    /**
     * Paths through arrays of documents ({@code x.name}, {@code x.a.name}, {@code x.0.name}...)
     * over random elements: documents with the name missing, a scalar, an array, a document or a
     * large array; scalars and arrays beside them; arrays of documents inside. Remembered walks
     * answer as the walk does and charge the same value tests, met by one filter or many.
     */
    @Test
    void rememberedWalksThroughArraysOfDocumentsAnswerAndChargeAsAWalk() {
        RandomValues r = new RandomValues(23);
        String[] paths = {"x.name", "x.name", "x.a.name", "x.0.name", "x.1", "x.name.0", "x.name.first", "x.a", "x.a.1.name"};
        for (int round = 0; round < 60; round++) {
            ArrayNode array = Json.NODES.arrayNode();
            int size = ArrayKeys.REMEMBERED_SIZE + r.random().nextInt(60);
            for (int i = 0; i < size; i++) {
                array.add(element(r, 2));
            }
            JsonNode doc = Json.NODES.objectNode().set("x", array);
            List<JsonNode> present = new ArrayList<>();
            scalars(doc, present);
            ArrayKeys arrays = ArrayKeys.remembering();
            for (int i = 0; i < 12; i++) {
                String path = paths[r.random().nextInt(paths.length)];
                for (Filter f : filters(r, path, present)) {
                    for (int meeting = 0; meeting < 3; meeting++) { // a walk, a record, a lookup
                        assertThat(f.matches(doc, MatchBudget.of(Long.MAX_VALUE, arrays))).as("%s on %s", f, doc)
                                .isEqualTo(f.matches(doc));
                        assertThat(leastBudget(f, doc, arrays)).as("tests of %s on %s", f, doc)
                                .isEqualTo(leastBudget(f, doc, ArrayKeys.NONE));
                    }
                }
            }
            assertThat(arrays.reads()).as("walks through x were remembered").isPositive();
        }
    }

    /** An element of an array of documents, as reader lists and their variants hold them. */
    private static JsonNode element(RandomValues r, int depth) {
        int kind = r.random().nextInt(12);
        ObjectNode o = Json.NODES.objectNode();
        switch (kind) {
            case 0, 1, 2 -> o.set("name", r.value(1));
            case 3 -> o.set("name", Json.NODES.arrayNode().add(r.value(0)).add(r.value(1)).add(element(r, 0)));
            case 4 -> o.set("name", Json.NODES.objectNode().set("first", r.value(1)));
            case 5 -> o.set("other", r.value(0)); // no name
            case 6 -> {
                return r.value(1); // a scalar, an array or a document beside the documents
            }
            case 7 -> {
                ArrayNode inner = Json.NODES.arrayNode();
                for (int i = r.random().nextInt(depth + 1); i > 0; i--) {
                    inner.add(element(r, depth - 1));
                }
                return inner; // an array of documents inside the array: the path does not enter it
            }
            case 8 -> {
                ArrayNode a = Json.NODES.arrayNode();
                for (int i = r.random().nextInt(3); i > 0; i--) {
                    a.add(depth > 0 ? element(r, depth - 1) : r.value(0));
                }
                o.set("a", a);
            }
            case 9 -> o.set("a", depth > 0 ? element(r, depth - 1) : r.value(0));
            case 10 -> o.set("name", large(r, () -> r.value(0))); // a remembered array inside
            default -> o.set("a", large(r, () -> depth > 0 ? element(r, 0) : r.value(0)));
        }
        if (r.random().nextInt(4) == 0) {
            o.set("first", r.value(0));
        }
        return o;
    }

    /** Rarely a large array (one remembered in its own right), else a short one. */
    private static ArrayNode large(RandomValues r, java.util.function.Supplier<JsonNode> element) {
        ArrayNode a = Json.NODES.arrayNode();
        int n = r.random().nextInt(8) == 0 ? ArrayKeys.REMEMBERED_SIZE + r.random().nextInt(10) : r.random().nextInt(4);
        for (int i = 0; i < n; i++) {
            a.add(element.get());
        }
        return a;
    }

    private static void scalars(JsonNode node, List<JsonNode> out) {
        if (node.isContainer() && !(node.isObject() && EqualityKeys.of(node) != null)) {
            node.forEach(child -> scalars(child, out));
        } else {
            out.add(node);
        }
    }

    /** Keyed tests (and a few unkeyed ones) on {@code path}, their operands mostly values of the document. */
    private static List<Filter> filters(RandomValues r, String path, List<JsonNode> present) {
        JsonNode operand = r.random().nextInt(4) == 0 ? r.value(0) : present.get(r.random().nextInt(present.size()));
        JsonNode other = present.get(r.random().nextInt(present.size()));
        ArrayNode some = Json.NODES.arrayNode().add(operand).add(other).add(r.value(0));
        List<Filter> filters = new ArrayList<>();
        filters.add(Filter.parse(Json.NODES.objectNode().set(path, operand), LIMITS));
        filters.add(Filter.parse(Json.NODES.objectNode().set(path, Json.NODES.objectNode().set("$ne", operand)), LIMITS));
        filters.add(Filter.parse(Json.NODES.objectNode().set(path, Json.NODES.objectNode().set("$in", some)), LIMITS));
        filters.add(Filter.parse(Json.NODES.objectNode().set(path, Json.NODES.objectNode().set("$nin", some)), LIMITS));
        filters.add(Filter.parse(Json.NODES.objectNode().set(path, Json.NODES.objectNode().set("$all", some)), LIMITS));
        filters.addAll(ranges(path, operand));
        filters.addAll(ranges(path, other));
        ArrayNode either = Json.NODES.arrayNode();
        either.add(Json.NODES.objectNode().set(path, operand));
        either.add(Json.NODES.objectNode().set("x.name", other));
        filters.add(Filter.parse(Json.NODES.objectNode().set("$or", either), LIMITS));
        return filters;
    }

    /** {@code $gt $gte $lt $lte} on {@code path}, and a range of two of them. */
    private static List<Filter> ranges(String path, JsonNode operand) {
        List<Filter> filters = new ArrayList<>();
        for (String op : new String[] {"$gt", "$gte", "$lt", "$lte"}) {
            filters.add(Filter.parse(Json.NODES.objectNode().set(path, Json.NODES.objectNode().set(op, operand)), LIMITS));
        }
        ObjectNode between = Json.NODES.objectNode().set("$gt", operand);
        between.set("$lte", operand.isNumber() ? Json.NODES.numberNode(operand.doubleValue() + 2.5) : operand);
        filters.add(Filter.parse(Json.NODES.objectNode().set(path, between), LIMITS));
        return filters;
    }

    /** Counted, not timed: a thousand subscribers' rules over one event's 100,000-element array read it twice. */
    @Test
    void oneArrayMetByManyFiltersIsReadTwice() {
        ArrayNode readers = Json.NODES.arrayNode();
        for (int i = 0; i < 100_000; i++) {
            readers.add("user" + i);
        }
        JsonNode doc = Json.NODES.objectNode().set("readers", readers);
        ArrayKeys arrays = thousandRules(doc, "readers");
        assertThat(arrays.reads()).isEqualTo(2);
        arrays.forget();
        Filter rule = Filter.parse(j("{readers: 'user5'}"), LIMITS);
        assertThat(rule.matches(doc, MatchBudget.of(Long.MAX_VALUE, arrays))).isTrue();
        assertThat(arrays.reads()).as("forgotten, so walked again").isEqualTo(3);
    }

    /** Counted, not timed: a thousand {@code readers.name} rules over 100,000 reader documents read them twice. */
    @Test
    void oneArrayOfDocumentsMetByManyFiltersIsReadTwice() {
        ArrayNode readers = Json.NODES.arrayNode();
        for (int i = 0; i < 100_000; i++) {
            readers.add(Json.NODES.objectNode().put("name", "user" + i).put("role", "reader"));
        }
        JsonNode doc = Json.NODES.objectNode().set("readers", readers);
        ArrayKeys arrays = thousandRules(doc, "readers.name");
        assertThat(arrays.reads()).isEqualTo(2);
        Filter role = Filter.parse(j("{'readers.role': 'reader'}"), LIMITS);
        assertThat(role.matches(doc, MatchBudget.of(Long.MAX_VALUE, arrays))).isTrue();
        assertThat(arrays.reads()).as("another path through the array is another walk").isEqualTo(3);
    }

    /**
     * A thousand subscribers' rules {@code {path: "userN"}} matched on {@code doc} through one
     * {@link ArrayKeys}, each matching when its user is among the 100,000 of the document.
     */
    private static ArrayKeys thousandRules(JsonNode doc, String path) {
        ArrayKeys arrays = ArrayKeys.remembering();
        for (int user = 0; user < 1_000; user++) {
            Filter rule = Filter.parse(Json.NODES.objectNode().put(path, "user" + (user * 97 + 13)), LIMITS);
            assertThat(rule.matches(doc, MatchBudget.of(Long.MAX_VALUE, arrays))).isEqualTo(user * 97 + 13 < 100_000);
        }
        return arrays;
    }

    @Test
    void smallArraysAndOtherTestsAreWalkedAsBefore() {
        ArrayKeys arrays = ArrayKeys.remembering();
        JsonNode small = j("{x: [1, 2, 3]}");
        Filter eq = Filter.parse(j("{x: 2}"), LIMITS);
        assertThat(eq.matches(small, MatchBudget.of(100, arrays))).isTrue();
        ArrayNode big = Json.NODES.arrayNode();
        for (int i = 0; i < 200; i++) {
            big.add(i);
        }
        JsonNode doc = Json.NODES.objectNode().set("x", big);
        Filter pattern = Filter.parse(j("{x: {$in: [5, {$regex: 'a'}]}}"), LIMITS);
        Filter objectRange = Filter.parse(j("{x: {$gt: {a: 1}}}"), LIMITS);
        Filter exists = Filter.parse(j("{'x.a': {$exists: true}}"), LIMITS);
        for (int i = 0; i < 3; i++) {
            assertThat(pattern.matches(doc, MatchBudget.of(1000, arrays))).isTrue();
            assertThat(objectRange.matches(doc, MatchBudget.of(1000, arrays))).isFalse();
            assertThat(exists.matches(doc, MatchBudget.of(1000, arrays))).isFalse();
        }
        assertThat(arrays.reads()).as("patterns, ranges on documents, $exists are walked").isZero();
        Filter range = Filter.parse(j("{x: {$gt: 150}}"), LIMITS);
        for (int i = 0; i < 3; i++) {
            assertThat(range.matches(doc, MatchBudget.of(1000, arrays))).isTrue();
        }
        assertThat(arrays.reads()).as("a range on a scalar is looked up").isEqualTo(2);
    }

    private static List<Filter> filters(RandomValues r) {
        List<Filter> filters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            JsonNode operand = r.value(0);
            filters.add(Filter.parse(Json.NODES.objectNode().set("x", operand), LIMITS));
            filters.add(Filter.parse(Json.NODES.objectNode().set("x", Json.NODES.objectNode().set("$ne", operand)), LIMITS));
            ArrayNode some = Json.NODES.arrayNode().add(operand).add(r.value(0)).add(r.value(0));
            filters.add(Filter.parse(Json.NODES.objectNode().set("x", Json.NODES.objectNode().set("$in", some)), LIMITS));
            filters.add(Filter.parse(Json.NODES.objectNode().set("x", Json.NODES.objectNode().set("$nin", some)), LIMITS));
            filters.add(Filter.parse(Json.NODES.objectNode().set("x", Json.NODES.objectNode().set("$all", some)), LIMITS));
            filters.addAll(ranges("x", operand));
            ObjectNode both = Json.NODES.objectNode();
            both.set("x", operand);
            both.set("y", Json.NODES.objectNode().put("$exists", false));
            filters.add(Filter.parse(both, LIMITS));
        }
        return filters;
    }

    /** The fewest value tests under which {@code f} answers on {@code doc} (a budget is monotone). */
    private static long leastBudget(Filter f, JsonNode doc, ArrayKeys arrays) {
        long low = 0;
        long high = 1_000_000;
        while (low < high) {
            long mid = (low + high) >>> 1;
            if (answers(f, doc, MatchBudget.of(mid, arrays))) {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        return low;
    }

    private static boolean answers(Filter f, JsonNode doc, MatchBudget budget) {
        try {
            f.matches(doc, budget);
            return true;
        } catch (MatchBudget.Exceeded e) {
            return false;
        }
    }
}
