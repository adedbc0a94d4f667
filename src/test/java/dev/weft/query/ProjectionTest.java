package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One row per projection rule: keys, document, projected document. */
class ProjectionTest {
    private static final String DOC = "{_id: 1, a: 1, b: {c: 2, d: 3}, e: [{c: 4, d: 5}, 6, [{c: 7}]], f: 'x'}";

    static Stream<Arguments> rules() {
        return Stream.of(
                Arguments.of("empty keeps all", "{}", DOC),
                Arguments.of("inclusion keeps _id", "{a: 1}", "{_id: 1, a: 1}"),
                Arguments.of("inclusion with true", "{a: true, f: true}", "{_id: 1, a: 1, f: 'x'}"),
                Arguments.of("inclusion without _id", "{a: 1, _id: 0}", "{a: 1}"),
                Arguments.of("only _id", "{_id: 1}", "{_id: 1}"),
                Arguments.of("inclusion keeps document order", "{f: 1, a: 1}", "{_id: 1, a: 1, f: 'x'}"),
                Arguments.of("inclusion of missing field", "{z: 1}", "{_id: 1}"),
                Arguments.of("inclusion dotted", "{'b.c': 1}", "{_id: 1, b: {c: 2}}"),
                Arguments.of("inclusion dotted through arrays of documents", "{'e.c': 1}", "{_id: 1, e: [{c: 4}, [{c: 7}]]}"),
                Arguments.of("inclusion dotted into scalar drops it", "{'a.z': 1}", "{_id: 1}"),
                Arguments.of("exclusion", "{a: 0, f: 0}", "{_id: 1, b: {c: 2, d: 3}, e: [{c: 4, d: 5}, 6, [{c: 7}]]}"),
                Arguments.of("exclusion of _id only", "{_id: 0}", "{a: 1, b: {c: 2, d: 3}, e: [{c: 4, d: 5}, 6, [{c: 7}]], f: 'x'}"),
                Arguments.of("exclusion with _id 1", "{_id: 1, a: 0, b: 0, e: 0}", "{_id: 1, f: 'x'}"),
                Arguments.of("exclusion dotted", "{'b.c': 0, e: 0}", "{_id: 1, a: 1, b: {d: 3}, f: 'x'}"),
                Arguments.of("exclusion dotted through arrays keeps scalars", "{'e.c': 0}", "{_id: 1, a: 1, b: {c: 2, d: 3}, e: [{d: 5}, 6, [{}]], f: 'x'}"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("rules")
    void rule(String rule, String keys, String expected) {
        assertThat(Projection.parse(j(keys)).apply(j(DOC))).as(rule).isEqualTo(j(expected));
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("{a: 1, b: 0}", "mix"),
                Arguments.of("{a: 1, 'a.b': 1}", "collision"),
                Arguments.of("{'a.b': 0, a: 0}", "collision"),
                Arguments.of("{a: {$slice: 1}}", "not supported"),
                Arguments.of("{a: 'yes'}", "'a'"),
                Arguments.of("{'a..b': 1}", "a..b"),
                Arguments.of("1", "object"));
    }

    @ParameterizedTest(name = "{0} is 400")
    @MethodSource("rejected")
    void rejectsWith400(String keys, String named) {
        J.assertBadRequest(() -> Projection.parse(j(keys)), named);
    }

    static Stream<Arguments> shown() {
        return Stream.of(
                Arguments.of("{}", "secret", true),
                Arguments.of("{secret: 0}", "secret", false),
                Arguments.of("{secret: 0}", "secret.inner", false),
                Arguments.of("{secret: 0}", "name", true),
                Arguments.of("{secret: 0}", "_id", true),
                Arguments.of("{'profile.salary': 0}", "profile", false),
                Arguments.of("{'profile.salary': 0}", "profile.salary", false),
                Arguments.of("{'profile.salary': 0}", "profile.name", true),
                Arguments.of("{'items.secret': 0}", "items.0.secret", false),
                Arguments.of("{'items.secret': 0}", "items.0.name", true),
                Arguments.of("{_id: 0}", "_id", false),
                Arguments.of("{name: 1}", "name", true),
                Arguments.of("{name: 1}", "name.first", true),
                Arguments.of("{name: 1}", "_id", true),
                Arguments.of("{name: 1}", "secret", false),
                Arguments.of("{name: 1, _id: 0}", "_id", false),
                Arguments.of("{'profile.name': 1}", "profile", false),
                Arguments.of("{'profile.name': 1}", "profile.name", true),
                Arguments.of("{'profile.name': 1}", "profile.salary", false),
                Arguments.of("{secret: 0}", "", false),
                Arguments.of("{name: 1}", "", false),
                Arguments.of("{}", "", true));
    }

    @ParameterizedTest(name = "{0} shows {1}: {2}")
    @MethodSource("shown")
    void showsOnlyPathsWhoseValuesSurvive(String keys, String path, boolean shown) {
        assertThat(Projection.parse(j(keys)).shows(path)).isEqualTo(shown);
    }
}
