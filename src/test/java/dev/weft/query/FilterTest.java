package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One row per rule of MongoDB's query semantics: filter, document, whether it matches. */
class FilterTest {

    static Arguments row(String rule, String filter, String doc, boolean expected) {
        return Arguments.of(rule, filter, doc, expected);
    }

    static Stream<Arguments> rules() {
        return Stream.of(
                row("empty filter matches all", "{}", "{a: 1}", true),
                row("implicit equality", "{a: 1}", "{a: 1}", true),
                row("implicit equality, other value", "{a: 1}", "{a: 2}", false),
                row("numbers equal across int/double", "{a: 1}", "{a: 1.0}", true),
                row("numbers equal across long/decimal", "{a: 10000000000}", "{a: 10000000000.0}", true),
                row("string is not number", "{a: 1}", "{a: '1'}", false),
                row("equality on array element", "{a: 1}", "{a: [1, 2]}", true),
                row("equality on whole array", "{a: [1, 2]}", "{a: [1, 2]}", true),
                row("whole array order matters", "{a: [1, 2]}", "{a: [2, 1]}", false),
                row("array operand matches nested array element", "{a: [1, 2]}", "{a: [[1, 2], 3]}", true),
                row("array operand does not match element", "{a: [1]}", "{a: 1}", false),
                row("object equality is exact and ordered", "{a: {x: 1, y: 2}}", "{a: {x: 1, y: 2}}", true),
                row("object equality field order", "{a: {x: 1, y: 2}}", "{a: {y: 2, x: 1}}", false),
                row("object equality extra field", "{a: {x: 1}}", "{a: {x: 1, y: 2}}", false),
                row("null matches missing", "{a: null}", "{b: 1}", true),
                row("null matches null", "{a: null}", "{a: null}", true),
                row("null matches array with null", "{a: null}", "{a: [1, null]}", true),
                row("null does not match value", "{a: null}", "{a: 0}", false),
                row("null does not match empty array", "{a: null}", "{a: []}", false),
                row("dotted path into object", "{'a.b': 1}", "{a: {b: 1}}", true),
                row("dotted path through array", "{'a.b': 1}", "{a: [{b: 2}, {b: 1}]}", true),
                row("dotted path through array, no match", "{'a.b': 3}", "{a: [{b: 2}, {b: 1}]}", false),
                row("dotted path leaf array", "{'a.b': 5}", "{a: [{b: [4, 5]}]}", true),
                row("dotted path does not traverse nested arrays", "{'a.b': 1}", "{a: [[{b: 1}]]}", false),
                row("dotted null matches element missing field", "{'a.b': null}", "{a: [{b: 1}, {c: 1}]}", true),
                row("dotted null, all elements have field", "{'a.b': null}", "{a: [{b: 1}, {b: 2}]}", false),
                row("dotted null through scalar", "{'a.b': null}", "{a: 5}", true),
                row("numeric segment indexes array", "{'a.1': 'y'}", "{a: ['x', 'y']}", true),
                row("numeric segment index out of range", "{'a.5': 'y'}", "{a: ['x', 'y']}", false),
                row("numeric segment then field", "{'a.0.b': 1}", "{a: [{b: 1}, {b: 2}]}", true),
                row("numeric segment then field, other index", "{'a.1.b': 1}", "{a: [{b: 1}, {b: 2}]}", false),
                row("numeric segment as field name of object", "{'a.0': 1}", "{a: {'0': 1}}", true),
                row("numeric segment as field name in array elements", "{'a.0': 1}", "{a: [{'0': 1}]}", true),
                row("$eq", "{a: {$eq: 2}}", "{a: [1, 2]}", true),
                row("$ne on scalar", "{a: {$ne: 1}}", "{a: 2}", true),
                row("$ne is negated equality over array", "{a: {$ne: 1}}", "{a: [1, 2]}", false),
                row("$ne matches missing", "{a: {$ne: 1}}", "{b: 1}", true),
                row("$ne null excludes missing", "{a: {$ne: null}}", "{b: 1}", false),
                row("$gt numbers", "{a: {$gt: 1}}", "{a: 1.5}", true),
                row("$gt equal is false", "{a: {$gt: 1}}", "{a: 1}", false),
                row("$gte equal", "{a: {$gte: 1}}", "{a: 1}", true),
                row("$lt", "{a: {$lt: 1}}", "{a: -3}", true),
                row("$lte", "{a: {$lte: 1}}", "{a: 2}", false),
                row("$gt type bracket: string not > number", "{a: {$gt: 1}}", "{a: 'z'}", false),
                row("$lt type bracket: null not < number", "{a: {$lt: 1}}", "{a: null}", false),
                row("$lt type bracket: missing not < number", "{a: {$lt: 1}}", "{}", false),
                row("$gt strings", "{a: {$gt: 'abc'}}", "{a: 'abd'}", true),
                row("$gt on array element", "{a: {$gt: 5}}", "{a: [1, 9]}", true),
                row("$gt and $lt by different elements", "{a: {$gt: 5, $lt: 3}}", "{a: [1, 9]}", true),
                row("$gte null matches missing", "{a: {$gte: null}}", "{}", true),
                row("$gt null matches nothing", "{a: {$gt: null}}", "{a: 1}", false),
                row("$gt dates", "{a: {$gt: {$date: 1000}}}", "{a: {$date: '1970-01-01T00:00:02Z'}}", true),
                row("$lt dates", "{a: {$lt: {$date: 1000}}}", "{a: {$date: 2000}}", false),
                row("date is not number", "{a: {$gt: 5}}", "{a: {$date: 2000}}", false),
                row("date equality across forms", "{a: {$date: 1000}}", "{a: {$date: {$numberLong: '1000'}}}", true),
                row("objectId equality", "{_id: {$oid: '5f0000000000000000000001'}}", "{_id: {$oid: '5F0000000000000000000001'}}", true),
                row("objectId is not string", "{_id: '5f0000000000000000000001'}", "{_id: {$oid: '5f0000000000000000000001'}}", false),
                row("objectId $gt", "{_id: {$gt: {$oid: '5f0000000000000000000001'}}}", "{_id: {$oid: '5f0000000000000000000002'}}", true),
                row("$gt objects field by field", "{a: {$gt: {x: 1}}}", "{a: {x: 2}}", true),
                row("booleans: true > false", "{a: {$gt: false}}", "{a: true}", true),
                row("$in", "{a: {$in: [1, 'x']}}", "{a: 'x'}", true),
                row("$in none", "{a: {$in: [1, 'x']}}", "{a: 'y'}", false),
                row("$in with null matches missing", "{a: {$in: [null, 1]}}", "{}", true),
                row("$in on array field", "{a: {$in: [3, 4]}}", "{a: [1, 4]}", true),
                row("$in with regex", "{a: {$in: [{$regex: '^ab'}]}}", "{a: 'abc'}", true),
                row("$in empty", "{a: {$in: []}}", "{a: 1}", false),
                row("$nin", "{a: {$nin: [1, 2]}}", "{a: 3}", true),
                row("$nin over array", "{a: {$nin: [1, 2]}}", "{a: [3, 2]}", false),
                row("$nin matches missing", "{a: {$nin: [1]}}", "{}", true),
                row("$and", "{$and: [{a: 1}, {b: 2}]}", "{a: 1, b: 2}", true),
                row("$and fails", "{$and: [{a: 1}, {b: 2}]}", "{a: 1, b: 3}", false),
                row("$or", "{$or: [{a: 1}, {b: 2}]}", "{a: 0, b: 2}", true),
                row("$or fails", "{$or: [{a: 1}, {b: 2}]}", "{a: 0, b: 0}", false),
                row("$nor", "{$nor: [{a: 1}, {b: 2}]}", "{a: 0, b: 0}", true),
                row("$nor fails", "{$nor: [{a: 1}, {b: 2}]}", "{a: 1}", false),
                row("several fields are ANDed", "{a: 1, b: 2}", "{a: 1, b: 3}", false),
                row("$not with operator", "{a: {$not: {$gt: 5}}}", "{a: 3}", true),
                row("$not with operator, fails", "{a: {$not: {$gt: 5}}}", "{a: 7}", false),
                row("$not matches missing", "{a: {$not: {$gt: 5}}}", "{}", true),
                row("$not matches other bracket", "{a: {$not: {$gt: 5}}}", "{a: 'x'}", true),
                row("$not with regex", "{a: {$not: {$regex: '^x'}}}", "{a: 'yx'}", true),
                row("$not with regex, fails", "{a: {$not: {$regex: '^x'}}}", "{a: 'xy'}", false),
                row("$exists true", "{a: {$exists: true}}", "{a: null}", true),
                row("$exists true, missing", "{a: {$exists: true}}", "{b: 1}", false),
                row("$exists false", "{a: {$exists: false}}", "{b: 1}", true),
                row("$exists false, present", "{a: {$exists: false}}", "{a: 1}", false),
                row("$exists on dotted path through array", "{'a.b': {$exists: true}}", "{a: [{c: 1}, {b: 1}]}", true),
                row("$exists false on dotted path through array", "{'a.b': {$exists: false}}", "{a: [{c: 1}]}", true),
                row("$type string", "{a: {$type: 'string'}}", "{a: 'x'}", true),
                row("$type number code 2", "{a: {$type: 2}}", "{a: 'x'}", true),
                row("$type int", "{a: {$type: 'int'}}", "{a: 3}", true),
                row("$type int is not double", "{a: {$type: 'double'}}", "{a: 3}", false),
                row("$type double", "{a: {$type: 'double'}}", "{a: 3.5}", true),
                row("$type long", "{a: {$type: 'long'}}", "{a: 30000000000}", true),
                row("$type number", "{a: {$type: 'number'}}", "{a: 3.5}", true),
                row("$type array", "{a: {$type: 'array'}}", "{a: []}", true),
                row("$type on array elements", "{a: {$type: 'string'}}", "{a: [1, 'x']}", true),
                row("$type objectId", "{a: {$type: 'objectId'}}", "{a: {$oid: '5f0000000000000000000001'}}", true),
                row("$type object is not objectId", "{a: {$type: 'object'}}", "{a: {$oid: '5f0000000000000000000001'}}", false),
                row("$type date", "{a: {$type: 'date'}}", "{a: {$date: 5}}", true),
                row("$type null", "{a: {$type: 'null'}}", "{a: null}", true),
                row("$type null does not match missing", "{a: {$type: 'null'}}", "{}", false),
                row("$type bool", "{a: {$type: 'bool'}}", "{a: false}", true),
                row("$type list", "{a: {$type: ['bool', 'string']}}", "{a: 'x'}", true),
                row("$regex", "{a: {$regex: 'pach'}}", "{a: 'apache'}", true),
                row("$regex no match", "{a: {$regex: 'pach'}}", "{a: 'pa ch'}", false),
                row("$regex only strings", "{a: {$regex: '1'}}", "{a: 1}", false),
                row("$regex on array element", "{'links.url': {$regex: '.*pach.*'}}", "{links: [{url: 'x'}, {url: 'apache.org'}]}", true),
                row("$regex option i", "{a: {$regex: '^AB', $options: 'i'}}", "{a: 'abc'}", true),
                row("$regex case sensitive", "{a: {$regex: '^AB'}}", "{a: 'abc'}", false),
                row("$regex option m", "{a: {$regex: '^b', $options: 'm'}}", "{a: 'a\\nb'}", true),
                row("$regex without m", "{a: {$regex: '^b'}}", "{a: 'a\\nb'}", false),
                row("$regex option s", "{a: {$regex: 'a.b', $options: 's'}}", "{a: 'a\\nb'}", true),
                row("$regex without s", "{a: {$regex: 'a.b'}}", "{a: 'a\\nb'}", false),
                row("$regex option x", "{a: {$regex: 'a b # comment', $options: 'x'}}", "{a: 'ab'}", true),
                row("$regex .*literal.* is a substring search", "{a: {$regex: '.*pach.*'}}", "{a: 'apache'}", true),
                row("$regex .*literal.* no match", "{a: {$regex: '.*pach.*'}}", "{a: 'pac'}", false),
                row("$regex .* matches any string", "{a: {$regex: '.*'}}", "{a: ''}", true),
                row("$regex escaped dot-star is not dropped", "{a: {$regex: 'x\\\\.*'}}", "{a: 'y'}", false),
                row("$regex escaped dot-star matches", "{a: {$regex: 'x\\\\.*'}}", "{a: 'x..'}", true),
                row("$regex anchored literal", "{a: {$regex: '^ab.*'}}", "{a: 'abc'}", true),
                row("$regex anchored literal not at start", "{a: {$regex: '^ab.*'}}", "{a: 'cab'}", false),
                row("$regex literal with option i", "{a: {$regex: 'PACH', $options: 'i'}}", "{a: 'apache'}", true),
                row("$size", "{a: {$size: 2}}", "{a: [1, [2, 3]]}", true),
                row("$size mismatch", "{a: {$size: 3}}", "{a: [1, 2]}", false),
                row("$size not array", "{a: {$size: 1}}", "{a: 1}", false),
                row("$size zero", "{a: {$size: 0}}", "{a: []}", true),
                row("$all", "{a: {$all: [1, 2]}}", "{a: [2, 3, 1]}", true),
                row("$all missing one", "{a: {$all: [1, 2]}}", "{a: [2, 3]}", false),
                row("$all on scalar", "{a: {$all: [1]}}", "{a: 1}", true),
                row("$all empty matches nothing", "{a: {$all: []}}", "{a: [1]}", false),
                row("$all with nested array", "{a: {$all: [[1, 2]]}}", "{a: [1, 2]}", true),
                row("$all with $elemMatch", "{a: {$all: [{$elemMatch: {b: 1}}, {$elemMatch: {b: 2}}]}}", "{a: [{b: 1}, {b: 2}]}", true),
                row("$elemMatch documents", "{a: {$elemMatch: {b: 1, c: 2}}}", "{a: [{b: 1, c: 1}, {b: 1, c: 2}]}", true),
                row("$elemMatch needs one element for all", "{a: {$elemMatch: {b: 1, c: 2}}}", "{a: [{b: 1, c: 1}, {b: 2, c: 2}]}", false),
                row("$elemMatch values", "{a: {$elemMatch: {$gt: 2, $lt: 5}}}", "{a: [1, 4, 9]}", true),
                row("$elemMatch values need one element", "{a: {$elemMatch: {$gt: 2, $lt: 5}}}", "{a: [1, 9]}", false),
                row("$elemMatch needs an array", "{a: {$elemMatch: {$gt: 2}}}", "{a: 3}", false),
                row("$elemMatch with $or", "{a: {$elemMatch: {$or: [{b: 1}, {b: 2}]}}}", "{a: [{b: 2}]}", true),
                row("$elemMatch document form skips scalars", "{a: {$elemMatch: {b: null}}}", "{a: [1]}", false),
                row("$mod", "{a: {$mod: [4, 1]}}", "{a: 9}", true),
                row("$mod no", "{a: {$mod: [4, 1]}}", "{a: 8}", false),
                row("$mod truncates doubles", "{a: {$mod: [4, 1]}}", "{a: 9.7}", true),
                row("$mod negative dividend", "{a: {$mod: [4, -1]}}", "{a: -5}", true),
                row("$comment is ignored", "{$comment: 'hi', a: 1}", "{a: 1}", true),
                row("string code point order", "{a: {$gt: '\uFFFF'}}", "{a: '\uD83D\uDE00'}", true),
                row("-0.0 equals 0", "{a: 0}", "{a: -0.0}", true));
    }

    @ParameterizedTest(name = "{0}: {1} on {2} -> {3}")
    @MethodSource("rules")
    void rule(String rule, String filter, String doc, boolean expected) {
        assertThat(Filter.parse(j(filter), QueryLimits.defaults()).matches(j(doc))).as(rule).isEqualTo(expected);
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("{$where: 'true'}", "$where"),
                Arguments.of("{$expr: {$eq: ['$a', 1]}}", "$expr"),
                Arguments.of("{$text: {$search: 1}}", "$text"),
                Arguments.of("{a: {$foo: 1}}", "$foo"),
                Arguments.of("{$foo: 1}", "$foo"),
                Arguments.of("{a: {$in: 1}}", "$in"),
                Arguments.of("{a: {$nin: {}}}", "$nin"),
                Arguments.of("{$and: []}", "$and"),
                Arguments.of("{$or: {a: 1}}", "$or"),
                Arguments.of("{$nor: [1]}", "$nor"),
                Arguments.of("{a: {$size: -1}}", "$size"),
                Arguments.of("{a: {$size: 1.5}}", "$size"),
                Arguments.of("{a: {$mod: [0, 1]}}", "$mod"),
                Arguments.of("{a: {$mod: [2]}}", "$mod"),
                Arguments.of("{a: {$type: 'nope'}}", "type"),
                Arguments.of("{a: {$regex: 1}}", "$regex"),
                Arguments.of("{a: {$options: 'i'}}", "$options"),
                Arguments.of("{a: {$regex: 'x', $options: 'q'}}", "option"),
                Arguments.of("{a: {$regex: '(a)\\\\1'}}", "backreference"),
                Arguments.of("{a: {$regex: 'a(?=b)'}}", "lookaround"),
                Arguments.of("{a: {$not: 1}}", "$not"),
                Arguments.of("{a: {$not: {}}}", "$not"),
                Arguments.of("{a: {$elemMatch: 1}}", "$elemMatch"),
                Arguments.of("{a: {$all: 1}}", "$all"),
                Arguments.of("{a: {$gt: 1, b: 2}}", "mixed"),
                Arguments.of("{a: {$gt: {$lt: 1}}}", "$gt"),
                Arguments.of("{a: {$exists: 'yes'}}", "$exists"),
                Arguments.of("{_id: {$oid: 'xyz'}}", "$oid"),
                Arguments.of("{'a..b': 1}", "a..b"),
                Arguments.of("[1]", "object"));
    }

    @ParameterizedTest(name = "{0} is 400")
    @MethodSource("rejected")
    void rejectsWith400NamingTheProblem(String filter, String named) {
        J.assertBadRequest(() -> Filter.parse(j(filter), QueryLimits.defaults()), named);
    }

    @Test
    void regexLongerThanTheLimitIs400() {
        QueryLimits limits = new QueryLimits(5, 10_000, 64);
        assertThat(Filter.parse(j("{a: {$regex: 'abcde'}}"), limits).matches(j("{a: 'abcde'}"))).isTrue();
        assertThatThrownBy(() -> Filter.parse(j("{a: {$regex: 'abcdef'}}"), limits))
                .isInstanceOf(WeftException.class).hasMessageContaining("max-regex-length");
    }

    @Test
    void nestingDeeperThanTheLimitIs400() {
        QueryLimits limits = new QueryLimits(1024, 10_000, 3);
        assertThat(Filter.parse(j("{$and: [{$or: [{a: 1}]}]}"), limits).matches(j("{a: 1}"))).isTrue();
        assertThatThrownBy(() -> Filter.parse(j("{$and: [{$or: [{$and: [{a: 1}]}]}]}"), limits))
                .isInstanceOf(WeftException.class).hasMessageContaining("max-nesting-depth");
        assertThatThrownBy(() -> Filter.parse(j("{a: {$elemMatch: {b: {$elemMatch: {c: {$not: {$gt: 1}}}}}}}"), limits))
                .isInstanceOf(WeftException.class).hasMessageContaining("max-nesting-depth");
    }

    @Test
    void andOfFiltersRequiresEach() {
        Filter both = Filter.and(List.of(Filter.parse(j("{a: 1}"), QueryLimits.defaults()),
                Filter.parse(j("{b: 2}"), QueryLimits.defaults())));
        assertThat(both.matches(j("{a: 1, b: 2}"))).isTrue();
        assertThat(both.matches(j("{a: 1, b: 3}"))).isFalse();
        assertThat(Filter.and(List.of()).matches(j("{x: 1}"))).isTrue();
        assertThat(Filter.all().matches(j("{}"))).isTrue();
    }

    @Test
    void pathsAreEveryFieldTheFilterReadsThroughLogicalOperators() {
        Filter f = Filter.parse(j("{a: 1, 'b.c': {$gt: 2}, $or: [{d: 1}, {$nor: [{e: 1}]}], f: {$not: {$gt: 1}},"
                + " g: {$elemMatch: {h: 1}}, 'i.0': 3}"), QueryLimits.defaults());
        assertThat(f.paths()).containsExactlyInAnyOrder("a", "b.c", "d", "e", "f", "g", "i.0");
        assertThat(Filter.all().paths()).isEmpty();
        assertThat(Filter.and(List.of(f, Filter.parse(j("{z: 1}"), QueryLimits.defaults()))).paths()).contains("a", "z");
    }
}
