package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * {@code $in} by hash set ({@link EqualityKeys}) answers exactly as trying each operand with
 * {@code $eq} does, and {@link MatchBudget} caps a filter's work.
 */
class InSetTest {
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    /** Values in every representation the evaluator distinguishes, and the edge cases of its number rules. */
    private static List<JsonNode> edgeValues() {
        List<JsonNode> v = new ArrayList<>();
        v.add(null);
        v.add(Json.NODES.nullNode());
        for (String s : List.of("", "a", "A", "1", "\uD83D\uDE00")) {
            v.add(Json.NODES.stringNode(s));
        }
        v.add(Json.NODES.booleanNode(true));
        v.add(Json.NODES.booleanNode(false));
        v.add(Json.NODES.numberNode(0));
        v.add(Json.NODES.numberNode(-0.0));
        v.add(Json.NODES.numberNode(0.0));
        v.add(Json.NODES.numberNode(1));
        v.add(Json.NODES.numberNode(1L));
        v.add(Json.NODES.numberNode(1.0));
        v.add(Json.NODES.numberNode(1.0f));
        v.add(Json.NODES.numberNode((short) 1));
        v.add(Json.NODES.numberNode(new BigDecimal("1.00")));
        v.add(Json.NODES.numberNode(BigInteger.ONE));
        v.add(Json.NODES.numberNode(0.1));
        v.add(Json.NODES.numberNode(new BigDecimal("0.1")));
        v.add(Json.NODES.numberNode(new BigDecimal(0.1)));
        v.add(Json.NODES.numberNode(0.5));
        v.add(Json.NODES.numberNode(new BigDecimal("0.50")));
        v.add(Json.NODES.numberNode(Long.MAX_VALUE));
        v.add(Json.NODES.numberNode(Long.MIN_VALUE));
        v.add(Json.NODES.numberNode(-0x1p63));
        v.add(Json.NODES.numberNode(0x1p63));
        v.add(Json.NODES.numberNode(new BigDecimal("9223372036854775808")));
        v.add(Json.NODES.numberNode(9007199254740993L));
        v.add(Json.NODES.numberNode(9007199254740992.0));
        v.add(Json.NODES.numberNode(1e300));
        v.add(Json.NODES.numberNode(new BigDecimal("1e300")));
        v.add(Json.NODES.numberNode(Double.POSITIVE_INFINITY));
        v.add(Json.NODES.numberNode(Double.NEGATIVE_INFINITY));
        v.add(Json.NODES.numberNode(Double.NaN));
        v.add(Json.NODES.numberNode(Float.NaN));
        v.add(j("{$oid: '5f0000000000000000000001'}"));
        v.add(j("{$oid: '5F0000000000000000000001'}"));
        v.add(j("{$oid: 'not-an-oid'}"));
        v.add(j("{$date: 1000}"));
        v.add(j("{$date: '1970-01-01T00:00:01Z'}"));
        v.add(j("{$date: {$numberLong: '1000'}}"));
        v.add(j("{a: 1}"));
        v.add(j("{}"));
        v.add(j("[1, 2]"));
        v.add(j("[]"));
        return v;
    }

    @Test
    void keysAreEqualExactlyWhenTheEvaluatorSaysEqual() {
        List<JsonNode> values = edgeValues();
        RandomValues r = new RandomValues(7);
        for (int i = 0; i < 400; i++) {
            values.add(r.value(1));
        }
        for (JsonNode a : values) {
            for (JsonNode b : values) {
                Object ka = EqualityKeys.of(a);
                Object kb = EqualityKeys.of(b);
                boolean equal = Values.compare(a, b) == 0;
                if (ka != null && kb != null) {
                    assertThat(ka.equals(kb)).as("%s vs %s", a, b).isEqualTo(equal);
                    if (equal) {
                        assertThat(ka.hashCode()).isEqualTo(kb.hashCode());
                    }
                } else if (ka != null || kb != null) {
                    assertThat(equal).as("a value without a key never equals one with a key: %s vs %s", a, b).isFalse();
                }
            }
        }
    }

    @Test
    void inAndNinAnswerAsEqualityOperandByOperandDoes() {
        List<JsonNode> values = edgeValues().stream().filter(Objects::nonNull).toList();
        List<JsonNode> operandPool = values.stream() // an operator-like object is refused as an operand
                .filter(v -> !(Values.bracket(v) == Values.Bracket.OBJECT && v.propertyNames().stream().anyMatch(k -> k.startsWith("$"))))
                .toList();
        RandomValues r = new RandomValues(8);
        for (int round = 0; round < 300; round++) {
            ArrayNode operands = Json.NODES.arrayNode();
            int n = r.random().nextInt(6);
            for (int i = 0; i < n; i++) {
                operands.add(r.random().nextBoolean() ? operandPool.get(r.random().nextInt(operandPool.size())) : r.value(1));
            }
            if (r.random().nextInt(4) == 0) {
                operands.add(j("{$regex: '^a'}"));
            }
            Filter in = Filter.parse(Json.NODES.objectNode().set("x", Json.NODES.objectNode().set("$in", operands)), LIMITS);
            Filter nin = Filter.parse(Json.NODES.objectNode().set("x", Json.NODES.objectNode().set("$nin", operands)), LIMITS);
            List<Filter> one = new ArrayList<>();
            for (JsonNode operand : operands) {
                one.add(Filter.parse(Json.NODES.objectNode().set("x", operand.isObject() && operand.has("$regex")
                        ? operand : Json.NODES.objectNode().set("$eq", operand)), LIMITS));
            }
            for (int d = 0; d < 40; d++) {
                JsonNode value = d < values.size() ? values.get(d) : r.value(2);
                JsonNode doc = Json.NODES.objectNode().set("x", value);
                boolean expected = one.stream().anyMatch(f -> f.matches(doc));
                assertThat(in.matches(doc)).as("%s in %s", value, operands).isEqualTo(expected);
                assertThat(nin.matches(doc)).as("%s nin %s", value, operands).isEqualTo(!expected);
            }
            JsonNode missing = j("{y: 1}");
            assertThat(in.matches(missing)).isEqualTo(one.stream().anyMatch(f -> f.matches(missing)));
        }
    }

    @Test
    void numbersOfDifferentTypesAreOneOperand() {
        Filter in = Filter.parse(j("{x: {$in: [1, 'b', 2.5]}}"), LIMITS);
        assertThat(in.matches(j("{x: 1.0}"))).isTrue();
        assertThat(in.matches(Json.NODES.objectNode().put("x", new BigDecimal("2.50")))).isTrue();
        assertThat(in.matches(j("{x: [7, 1]}"))).as("an array element").isTrue();
        assertThat(in.matches(j("{x: '1'}"))).isFalse();
    }

    /** Counted, not timed: a hashed $in tests each element once, where a scan of the operands was 450M tests. */
    @Test
    void aLargeInOverALargeArrayTestsEachElementOnce() {
        ArrayNode operands = Json.NODES.arrayNode();
        for (int i = 0; i < 450; i++) {
            operands.add(1_000_000 + i);
        }
        ArrayNode big = Json.NODES.arrayNode();
        for (int i = 0; i < 1_000_000; i++) {
            big.add(i);
        }
        Filter in = Filter.parse(Json.NODES.objectNode().set("arr", Json.NODES.objectNode().set("$in", operands)), LIMITS);
        JsonNode doc = Json.NODES.objectNode().set("arr", big);
        assertThat(in.matches(doc, MatchBudget.of(1_000_002))).as("the array and its 1M elements, once each").isFalse();
    }

    @Test
    void aBudgetCapsTheWorkOfAMatch() {
        ArrayNode big = Json.NODES.arrayNode();
        for (int i = 0; i < 1000; i++) {
            big.add(i);
        }
        JsonNode doc = Json.NODES.objectNode().set("arr", big);
        Filter in = Filter.parse(j("{arr: {$in: [-1, -2]}}"), LIMITS);
        assertThat(in.matches(doc, MatchBudget.of(1002))).as("the array, its 1000 elements").isFalse();
        assertThatThrownBy(() -> in.matches(doc, MatchBudget.of(1000))).isInstanceOf(MatchBudget.Exceeded.class);
        Filter linear = Filter.parse(j("{arr: {$in: [{$regex: 'x'}, null]}}"), LIMITS);
        assertThatThrownBy(() -> linear.matches(doc, MatchBudget.of(2500))).as("3 per value").isInstanceOf(MatchBudget.Exceeded.class);
        Filter through = Filter.parse(j("{'arr.x': 1}"), LIMITS);
        assertThatThrownBy(() -> through.matches(doc, MatchBudget.of(900))).as("stepping over elements counts")
                .isInstanceOf(MatchBudget.Exceeded.class);
        Filter elem = Filter.parse(j("{arr: {$elemMatch: {$gt: 5000}}}"), LIMITS);
        assertThatThrownBy(() -> elem.matches(doc, MatchBudget.of(900))).isInstanceOf(MatchBudget.Exceeded.class);
        assertThat(in.matches(doc, MatchBudget.UNLIMITED)).isFalse();
    }
}
