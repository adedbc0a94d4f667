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
                Arguments.of("exclusion dotted through arrays keeps scalars", "{'e.c': 0}", "{_id: 1, a: 1, b: {c: 2, d: 3}, e: [{d: 5}, 6, [{}]], f: 'x'}"),
                Arguments.of("nested inclusion form", "{b: {c: 1}}", "{_id: 1, b: {c: 2}}"),
                Arguments.of("nested exclusion form", "{b: {c: 0}, e: 0}", "{_id: 1, a: 1, b: {d: 3}, f: 'x'}"),
                Arguments.of("$slice alone keeps every other field", "{e: {$slice: 1}, _id: 0}", "{a: 1, b: {c: 2, d: 3}, e: [{c: 4, d: 5}], f: 'x'}"),
                Arguments.of("$slice -n takes the last n", "{e: {$slice: -2}, a: 1}", "{_id: 1, a: 1, e: [6, [{c: 7}]]}"),
                Arguments.of("$slice [skip, limit]", "{e: {$slice: [1, 5]}, a: 0}", "{_id: 1, b: {c: 2, d: 3}, e: [6, [{c: 7}]], f: 'x'}"),
                Arguments.of("$slice [negative skip, limit]", "{e: {$slice: [-2, 1]}, f: 1}", "{_id: 1, e: [6], f: 'x'}"),
                Arguments.of("$slice of a scalar keeps it", "{a: {$slice: 1}, f: 1}", "{_id: 1, a: 1, f: 'x'}"),
                Arguments.of("$elemMatch keeps the first match", "{e: {$elemMatch: {d: {$gt: 1}}}}", "{_id: 1, e: [{c: 4, d: 5}]}"),
                Arguments.of("$elemMatch without a match drops the field", "{e: {$elemMatch: {d: 9}}, f: 1}", "{_id: 1, f: 'x'}"));
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
                Arguments.of("{a: {$max: 1}}", "not supported"),
                Arguments.of("{a: {$slice: [1, 0]}}", "positive limit"),
                Arguments.of("{a: {$slice: 'x'}}", "integer"),
                Arguments.of("{'a.b': {$elemMatch: {c: 1}}}", "nested"),
                Arguments.of("{a: {$elemMatch: {c: 1}}, b: 0}", "mix"),
                Arguments.of("{'a.$': 1}", "no condition on 'a'"),
                Arguments.of("{'a.$.b': 1}", "positional"),
                Arguments.of("{a: {}}", "empty"),
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

    static Stream<Arguments> positional() {
        return Stream.of(
                Arguments.of("{semester: 1, grades: {$gte: 85}}", "{_id: 1, semester: 1, grades: [70, 87, 90]}", "{_id: 1, grades: [87]}"),
                Arguments.of("{$and: [{'grades.grade': {$gt: 80}}, {'grades.mean': {$gt: 70}}]}",
                        "{_id: 7, grades: [{grade: 80, mean: 75}, {grade: 85, mean: 90}, {grade: 85, mean: 85}]}",
                        "{_id: 7, grades: [{grade: 85, mean: 90}]}"),
                Arguments.of("{grades: {$elemMatch: {mean: {$gt: 70}, grade: {$gt: 90}}}}",
                        "{_id: 7, grades: [{grade: 80, mean: 75}, {grade: 95, mean: 71}]}",
                        "{_id: 7, grades: [{grade: 95, mean: 71}]}"),
                Arguments.of("{grades: 100}", "{_id: 2, grades: [1, 2]}", "{_id: 2}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("positional")
    void positionalProjectsTheFirstElementTheQueryMatched(String query, String doc, String expected) {
        Projection p = Projection.parse(j("{'grades.$': 1}"), java.util.List.of(j(query)));
        assertThat(p.apply(j(doc))).isEqualTo(j(expected));
    }

    @org.junit.jupiter.api.Test
    void elemMatchProbesItsArrayAndArrayOperatorsHideWhatTheyDrop() {
        assertThat(Projection.parse(j("{e: {$elemMatch: {d: 1}}}")).probedPaths()).containsExactly("e");
        assertThat(Projection.parse(j("{e: {$slice: 1}}")).shows("e")).isFalse();
        assertThat(Projection.parse(j("{e: {$slice: 1}}")).shows("a")).isTrue();
        J.assertBadRequest(() -> Projection.parse(j("{'a.$': 1, 'b.$': 1}"), java.util.List.of(j("{a: 1, b: 1}"))), "only one");
    }
}
