package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/** MongoDB's order over values, one rule per row: a compared with b has this sign. */
class ValuesTest {

    static Stream<Arguments> order() {
        return Stream.of(
                Arguments.of("null before numbers", "null", "-1e300", -1),
                Arguments.of("numbers before strings", "1e300", "''", -1),
                Arguments.of("strings before objects", "'zzz'", "{}", -1),
                Arguments.of("objects before arrays", "{z: 1}", "[]", -1),
                Arguments.of("arrays before ObjectId", "[9]", "{$oid: '000000000000000000000000'}", -1),
                Arguments.of("ObjectId before booleans", "{$oid: 'ffffffffffffffffffffffff'}", "false", -1),
                Arguments.of("booleans before dates", "true", "{$date: -100}", -1),
                Arguments.of("int vs double by value", "1", "1.5", -1),
                Arguments.of("int equals double", "2", "2.0", 0),
                Arguments.of("long vs double", "9007199254740993", "9007199254740992.0", 1),
                Arguments.of("negative numbers", "-2", "-1", -1),
                Arguments.of("negative zero equals zero", "-0.0", "0", 0),
                Arguments.of("strings by code point", "'a'", "'b'", -1),
                Arguments.of("prefix string first", "'ab'", "'abc'", -1),
                Arguments.of("supplementary above BMP", "'\uFFFF'", "'\uD83D\uDE00'", -1),
                Arguments.of("objects: value bracket before name", "{b: 1}", "{a: 'x'}", -1),
                Arguments.of("objects: name before value", "{a: 2}", "{b: 1}", -1),
                Arguments.of("objects: value", "{a: 1}", "{a: 2}", -1),
                Arguments.of("objects: shorter first", "{a: 1}", "{a: 1, b: 0}", -1),
                Arguments.of("arrays element-wise", "[1, 2]", "[1, 3]", -1),
                Arguments.of("arrays: shorter first", "[1]", "[1, 0]", -1),
                Arguments.of("arrays: element bracket", "[null]", "[0]", -1),
                Arguments.of("ObjectId by bytes, case-insensitive", "{$oid: '0a0000000000000000000000'}", "{$oid: '0B0000000000000000000000'}", -1),
                Arguments.of("dates by instant", "{$date: '1970-01-01T00:00:01Z'}", "{$date: 1000}", 0),
                Arguments.of("dates before/after epoch", "{$date: -1}", "{$date: 1}", -1),
                Arguments.of("malformed $oid is an object", "{$oid: 'nothex'}", "[]", -1),
                Arguments.of("false before true", "false", "true", -1));
    }

    @ParameterizedTest(name = "{0}: {1} vs {2}")
    @MethodSource("order")
    void comparesWithMongoOrder(String rule, String a, String b, int sign) {
        assertThat(Integer.signum(Values.compare(j(a), j(b)))).as(rule).isEqualTo(sign);
        assertThat(Integer.signum(Values.compare(j(b), j(a)))).as(rule + " (reversed)").isEqualTo(-sign);
    }

    @Test
    void missingSortsWithNull() {
        assertThat(Values.compare(null, j("null"))).isZero();
        assertThat(Values.bracket(null)).isEqualTo(Values.Bracket.MISSING);
        assertThat(Values.bracket(j("{$oid: '5f0000000000000000000001'}"))).isEqualTo(Values.Bracket.OBJECT_ID);
        assertThat(Values.bracket(j("{$date: '2020-01-01T00:00:00Z'}"))).isEqualTo(Values.Bracket.DATE);
        assertThat(Values.bracket(j("{$date: 'yesterday'}"))).isEqualTo(Values.Bracket.OBJECT);
    }

    @Test
    void compareIsATotalOrderOnRandomValues() {
        RandomValues r = new RandomValues(7);
        for (int i = 0; i < 3000; i++) {
            JsonNode a = r.value(2);
            JsonNode b = r.value(2);
            JsonNode c = r.value(2);
            int ab = Integer.signum(Values.compare(a, b));
            assertThat(Integer.signum(Values.compare(b, a))).as("antisymmetry %s %s", a, b).isEqualTo(-ab);
            if (ab <= 0 && Values.compare(b, c) <= 0) {
                assertThat(Values.compare(a, c)).as("transitivity %s %s %s", a, b, c).isLessThanOrEqualTo(0);
            }
        }
    }
}
