package dev.weft.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * The {@code $sum} and {@code $avg} accumulators on integers that overflow, as MongoDB documents
 * them (https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/, "Result Data
 * Type": the result has the widest input type unless it cannot hold it: an int total becomes a
 * long, a long one a double; MongoDB sums exactly, in double-double precision, so the type is
 * the total's, not the order's). Each row is checked in every order of its inputs, added as
 * nodes and as whole numbers ({@link StoredGroup}'s way), and cut at every point into two
 * partial sums merged (a scan read in parts): always the same value and type.
 */
class ExactSumTest {
    private static final String MAX = "9223372036854775807";
    private static final String MIN = "-9223372036854775808";

    static Arguments row(String operator, String inputs, String expected, String type) {
        return Arguments.of(operator, inputs, expected, type);
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                row("$sum", "[1, 2]", "3", "int"),
                row("$sum", "[]", "0", "int"),
                row("$sum", "[2147483647, 1]", "2147483648", "long"), // an int total past int: a long
                row("$sum", "[2147483647, 1, -1]", "2147483647", "int"),
                row("$sum", "[" + MAX + ", 1, -1]", MAX, "long"), // the brief's case: a long in any order
                row("$sum", "[" + MIN + ", -1, 1]", MIN, "long"),
                row("$sum", "[" + MAX + ", " + MAX + ", -" + MAX + ", -" + MAX + "]", "0", "long"),
                row("$sum", "[" + MAX + ", 1]", "9.223372036854776E18", "double"), // a long total past long: a double
                row("$sum", "[" + MAX + ", " + MAX + "]", "1.8446744073709552E19", "double"),
                row("$sum", "[" + MIN + ", -1]", "-9.223372036854776E18", "double"),
                row("$sum", "[" + MAX + ", 0.5, -" + MAX + "]", "0.5", "double"), // exact: a double input, a double total
                row("$sum", "[" + MAX + ", 1, -1, 0.0]", "9.223372036854776E18", "double"),
                row("$sum", "[1, 'a', null, true]", "1", "int"), // non-numbers pass
                row("$avg", "[" + MAX + ", 1, -1]", "3.0744573456182584E18", "double"), // the exact total over the count
                row("$avg", "[" + MAX + ", " + MAX + "]", "9.223372036854776E18", "double"),
                row("$avg", "[2147483647, 1]", "1.073741824E9", "double"),
                row("$avg", "[]", "null", "null"),
                row("$avg", "['a', null]", "null", "null"));
    }

    @ParameterizedTest(name = "{0} of {1} is the {3} {2}")
    @MethodSource("rows")
    void theTotalsTypeAndValueDependOnlyOnTheInputs(String operator, String inputs, String expected, String type) {
        List<JsonNode> values = new ArrayList<>();
        A.j(inputs).forEach(values::add);
        for (List<JsonNode> order : orders(values)) {
            for (int cut = 0; cut <= order.size(); cut++) {
                Accumulators.Accumulator first = accumulate(operator, order.subList(0, cut), false);
                first.merge(accumulate(operator, order.subList(cut, order.size()), true));
                assertResult(first.result(), expected, type, order + " cut at " + cut);
            }
            assertResult(accumulate(operator, order, false).result(), expected, type, order + " as nodes");
            assertResult(accumulate(operator, order, true).result(), expected, type, order + " as whole numbers");
        }
    }

    private static void assertResult(JsonNode result, String expected, String type, String how) {
        assertThat(result.toString()).as(how).isEqualTo(expected);
        assertThat(typeOf(result)).as(how).isEqualTo(type);
    }

    private static String typeOf(JsonNode n) {
        return n.isInt() ? "int" : n.isLong() ? "long" : n.isDouble() ? "double" : n.isNull() ? "null" : n.getNodeType().toString();
    }

    /** With {@code wholes}, ints and longs go in as {@link StoredGroup} hands them over, without a node. */
    private static Accumulators.Accumulator accumulate(String operator, List<JsonNode> values, boolean wholes) {
        Accumulators.Accumulator acc = new Accumulators.Spec("v", operator, null).start();
        for (JsonNode v : values) {
            if (wholes && (v.isInt() || v.isLong())) {
                ((Accumulators.Integral) acc).addIntegral(v.longValue(), v.isInt() ? 0 : 1);
            } else {
                acc.add(v, null);
            }
        }
        return acc;
    }

    /** Every order of {@code values}. */
    private static List<List<JsonNode>> orders(List<JsonNode> values) {
        if (values.size() <= 1) {
            return List.of(values);
        }
        List<List<JsonNode>> out = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            List<JsonNode> rest = new ArrayList<>(values);
            JsonNode head = rest.remove(i);
            for (List<JsonNode> tail : orders(rest)) {
                List<JsonNode> order = new ArrayList<>(List.of(head));
                order.addAll(tail);
                out.add(order);
            }
        }
        return out;
    }
}
