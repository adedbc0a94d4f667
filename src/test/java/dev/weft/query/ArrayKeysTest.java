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

    /** Counted, not timed: a thousand subscribers' rules over one event's 100,000-element array read it twice. */
    @Test
    void oneArrayMetByManyFiltersIsReadTwice() {
        ArrayNode readers = Json.NODES.arrayNode();
        for (int i = 0; i < 100_000; i++) {
            readers.add("user" + i);
        }
        JsonNode doc = Json.NODES.objectNode().set("readers", readers);
        ArrayKeys arrays = ArrayKeys.remembering();
        for (int user = 0; user < 1_000; user++) {
            Filter rule = Filter.parse(Json.NODES.objectNode().put("readers", "user" + (user * 97 + 13)), LIMITS);
            assertThat(rule.matches(doc, MatchBudget.of(Long.MAX_VALUE, arrays))).isEqualTo(user * 97 + 13 < 100_000);
        }
        assertThat(arrays.reads()).isEqualTo(2);
        arrays.forget();
        Filter rule = Filter.parse(j("{readers: 'user5'}"), LIMITS);
        assertThat(rule.matches(doc, MatchBudget.of(Long.MAX_VALUE, arrays))).isTrue();
        assertThat(arrays.reads()).as("forgotten, so walked again").isEqualTo(3);
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
        Filter range = Filter.parse(j("{x: {$gt: 150}}"), LIMITS);
        Filter pattern = Filter.parse(j("{x: {$in: [5, {$regex: 'a'}]}}"), LIMITS);
        for (int i = 0; i < 3; i++) {
            assertThat(range.matches(doc, MatchBudget.of(1000, arrays))).isTrue();
            assertThat(pattern.matches(doc, MatchBudget.of(1000, arrays))).isTrue();
        }
        assertThat(arrays.reads()).as("only keyed equality is looked up").isZero();
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
