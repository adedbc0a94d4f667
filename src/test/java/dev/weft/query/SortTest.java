package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

class SortTest {

    static Stream<Arguments> specs() {
        return Stream.of(
                Arguments.of("{\"a\": 1, \"b\": -1}", List.of(new IndexField("a", 1), new IndexField("b", -1))),
                Arguments.of("a", List.of(new IndexField("a", 1))),
                Arguments.of("+a", List.of(new IndexField("a", 1))),
                Arguments.of(" a", List.of(new IndexField("a", 1))),
                Arguments.of("-a", List.of(new IndexField("a", -1))),
                Arguments.of("a,-b.c", List.of(new IndexField("a", 1), new IndexField("b.c", -1))),
                Arguments.of("{}", List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("specs")
    void parses(String spec, List<IndexField> fields) {
        assertThat(Sort.parse(spec, QueryLimits.defaults()).fields()).isEqualTo(fields);
    }

    @ParameterizedTest(name = "{0} is 400")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"{\"a\": 2}", "{\"a\": \"up\"}", "a,,b", "-", "a,a", "$a", "{bad", "a..b"})
    void rejects(String spec) {
        J.assertBadRequest(() -> Sort.parse(spec, QueryLimits.defaults()), "");
    }

    static Stream<Arguments> orders() {
        return Stream.of(
                Arguments.of("mixed types ascending", "a",
                        "[{a: true}, {a: 'x'}, {a: 2}, {}, {a: {$date: 1}}, {a: {k: 1}}, {a: {$oid: '5f0000000000000000000001'}}, {a: null}]",
                        "[{}, {a: null}, {a: 2}, {a: 'x'}, {a: {k: 1}}, {a: {$oid: '5f0000000000000000000001'}}, {a: true}, {a: {$date: 1}}]"),
                Arguments.of("numbers across representations", "a",
                        "[{a: 2.5}, {a: 1}, {a: 10000000000}, {a: -1.5}]",
                        "[{a: -1.5}, {a: 1}, {a: 2.5}, {a: 10000000000}]"),
                Arguments.of("array sorts by smallest element ascending", "a",
                        "[{a: [5, 0]}, {a: 1}, {a: [3, 9]}]",
                        "[{a: [5, 0]}, {a: 1}, {a: [3, 9]}]"),
                Arguments.of("array sorts by largest element descending", "-a",
                        "[{a: [5, 0]}, {a: 7}, {a: [3, 9]}]",
                        "[{a: [3, 9]}, {a: 7}, {a: [5, 0]}]"),
                Arguments.of("second key breaks ties", "a,-b",
                        "[{a: 1, b: 1}, {a: 0, b: 0}, {a: 1, b: 2}]",
                        "[{a: 0, b: 0}, {a: 1, b: 2}, {a: 1, b: 1}]"),
                Arguments.of("dotted path through array", "a.b",
                        "[{a: [{b: 3}, {b: 1}]}, {a: {b: 2}}]",
                        "[{a: [{b: 3}, {b: 1}]}, {a: {b: 2}}]"),
                Arguments.of("empty array below null and missing ascending", "a",
                        "[{a: [1]}, {a: null}, {a: []}, {x: 1}, {a: 0}]",
                        "[{a: []}, {a: null}, {x: 1}, {a: 0}, {a: [1]}]"),
                Arguments.of("empty array last descending", "-a",
                        "[{a: []}, {a: null}, {a: [[]]}, {a: 0}]",
                        "[{a: [[]]}, {a: 0}, {a: null}, {a: []}]"),
                Arguments.of("an empty array among a path's values is its least", "a.b",
                        "[{a: [{b: 1}]}, {a: [{b: 5}, {b: []}]}, {a: null}]",
                        "[{a: [{b: 5}, {b: []}]}, {a: null}, {a: [{b: 1}]}]"),
                Arguments.of("missing equals null", "a",
                        "[{a: 1}, {x: 1}, {a: null}]",
                        "[{x: 1}, {a: null}, {a: 1}]"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("orders")
    void sortsWithMongoOrder(String rule, String spec, String input, String expected) {
        List<JsonNode> docs = new ArrayList<>(j(input).valueStream().toList());
        docs.sort(Sort.parse(spec, QueryLimits.defaults()).comparator());
        assertThat(docs).as(rule).isEqualTo(j(expected).valueStream().toList());
    }

    @Test
    void idDescendingIsTheDefault() {
        List<JsonNode> docs = new ArrayList<>(List.of(j("{_id: 1}"), j("{_id: 3}"), j("{_id: 2}")));
        docs.sort(Sort.ID_DESCENDING.comparator());
        assertThat(docs).containsExactly(j("{_id: 3}"), j("{_id: 2}"), j("{_id: 1}"));
    }

    @Test
    void comparatorAgreesWithIndexKeyOrderForSingleValues() {
        RandomValues r = new RandomValues(99);
        for (String spec : List.of("a", "-a", "a,-b")) {
            Sort sort = Sort.parse(spec, QueryLimits.defaults());
            for (int i = 0; i < 3000; i++) {
                JsonNode x = r.document(1);
                JsonNode y = r.document(1);
                if (KeyEncoding.isMultikey(x, sort.fields()) || KeyEncoding.isMultikey(y, sort.fields())) {
                    continue;
                }
                byte[] kx = KeyEncoding.indexKeys(x, sort.fields()).get(0);
                byte[] ky = KeyEncoding.indexKeys(y, sort.fields()).get(0);
                assertThat(Integer.signum(sort.comparator().compare(x, y))).as("%s: %s vs %s", spec, x, y)
                        .isEqualTo(Integer.signum(java.util.Arrays.compareUnsigned(kx, ky)));
            }
        }
    }
}
