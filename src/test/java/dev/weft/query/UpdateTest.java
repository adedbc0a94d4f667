package dev.weft.query;

import static dev.weft.query.J.j;
import static dev.weft.query.J.o;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/** One row per rule of the PATCH update operators: update, document before, document after. */
class UpdateTest {

    static Arguments row(String rule, String update, String before, String after) {
        return Arguments.of(rule, update, before, after);
    }

    static Stream<Arguments> rules() {
        return Stream.of(
                row("plain body is $set of its fields", "{a: 2, c: 3}", "{_id: 1, a: 1, b: 1}", "{_id: 1, a: 2, b: 1, c: 3}"),
                row("plain body with dotted key", "{'x.y': 1}", "{_id: 1}", "{_id: 1, x: {y: 1}}"),
                row("plain body with unchanged _id", "{_id: 1, a: 2}", "{_id: 1, a: 1}", "{_id: 1, a: 2}"),
                row("$set", "{$set: {a: 5}}", "{a: 1}", "{a: 5}"),
                row("$set creates intermediate objects", "{$set: {'a.b.c': 1}}", "{}", "{a: {b: {c: 1}}}"),
                row("$set into existing object", "{$set: {'a.b': 1}}", "{a: {c: 2}}", "{a: {c: 2, b: 1}}"),
                row("$set numeric segment indexes array", "{$set: {'a.1': 'x'}}", "{a: [1, 2, 3]}", "{a: [1, 'x', 3]}"),
                row("$set past the end pads with null", "{$set: {'a.3': 'x'}}", "{a: [1]}", "{a: [1, null, null, 'x']}"),
                row("$set numeric segment on object is a field", "{$set: {'a.0': 'x'}}", "{a: {}}", "{a: {'0': 'x'}}"),
                row("$set into array element object", "{$set: {'a.0.b': 2}}", "{a: [{b: 1}]}", "{a: [{b: 2}]}"),
                row("$unset", "{$unset: {a: ''}}", "{a: 1, b: 2}", "{b: 2}"),
                row("$unset dotted", "{$unset: {'a.b': 1}}", "{a: {b: 1, c: 2}}", "{a: {c: 2}}"),
                row("$unset missing is no-op", "{$unset: {z: 1}}", "{a: 1}", "{a: 1}"),
                row("$unset array element nulls it", "{$unset: {'a.0': 1}}", "{a: [1, 2]}", "{a: [null, 2]}"),
                row("$inc", "{$inc: {a: 2}}", "{a: 1}", "{a: 3}"),
                row("$inc missing sets", "{$inc: {a: 2}}", "{}", "{a: 2}"),
                row("$inc negative", "{$inc: {a: -5}}", "{a: 1}", "{a: -4}"),
                row("$inc int + double", "{$inc: {a: 0.5}}", "{a: 1}", "{a: 1.5}"),
                row("$inc int overflow becomes long", "{$inc: {a: 1}}", "{a: 2147483647}", "{a: 2147483648}"),
                row("$mul", "{$mul: {a: 3}}", "{a: 2}", "{a: 6}"),
                row("$mul missing sets zero", "{$mul: {a: 3}}", "{}", "{a: 0}"),
                row("$mul double", "{$mul: {a: 1.5}}", "{a: 2}", "{a: 3.0}"),
                row("$min lower", "{$min: {a: 1}}", "{a: 5}", "{a: 1}"),
                row("$min higher keeps", "{$min: {a: 9}}", "{a: 5}", "{a: 5}"),
                row("$min missing sets", "{$min: {a: 9}}", "{}", "{a: 9}"),
                row("$min across types: null < number", "{$min: {a: null}}", "{a: 5}", "{a: null}"),
                row("$max higher", "{$max: {a: 9}}", "{a: 5}", "{a: 9}"),
                row("$max across types: string > number", "{$max: {a: 'x'}}", "{a: 5}", "{a: 'x'}"),
                row("$max dates", "{$max: {d: {$date: 2000}}}", "{d: {$date: 1000}}", "{d: {$date: 2000}}"),
                row("$rename", "{$rename: {a: 'b'}}", "{a: 1}", "{b: 1}"),
                row("$rename into nested", "{$rename: {a: 'x.y'}}", "{a: 1}", "{x: {y: 1}}"),
                row("$rename overwrites target", "{$rename: {a: 'b'}}", "{a: 1, b: 2}", "{b: 1}"),
                row("$rename missing is no-op", "{$rename: {a: 'b'}}", "{c: 1}", "{c: 1}"),
                row("$setOnInsert ignored on update", "{$setOnInsert: {a: 1}}", "{}", "{}"),
                row("$push", "{$push: {a: 3}}", "{a: [1, 2]}", "{a: [1, 2, 3]}"),
                row("$push creates array", "{$push: {a: 3}}", "{}", "{a: [3]}"),
                row("$push an array as one element", "{$push: {a: [3, 4]}}", "{a: []}", "{a: [[3, 4]]}"),
                row("$push $each", "{$push: {a: {$each: [3, 4]}}}", "{a: [1]}", "{a: [1, 3, 4]}"),
                row("$push $position", "{$push: {a: {$each: ['x'], $position: 1}}}", "{a: [1, 2]}", "{a: [1, 'x', 2]}"),
                row("$push negative $position", "{$push: {a: {$each: ['x'], $position: -1}}}", "{a: [1, 2]}", "{a: [1, 'x', 2]}"),
                row("$push $slice keeps first", "{$push: {a: {$each: [3], $slice: 2}}}", "{a: [1, 2]}", "{a: [1, 2]}"),
                row("$push negative $slice keeps last", "{$push: {a: {$each: [3], $slice: -2}}}", "{a: [1, 2]}", "{a: [2, 3]}"),
                row("$push $slice 0 empties", "{$push: {a: {$each: [3], $slice: 0}}}", "{a: [1, 2]}", "{a: []}"),
                row("$push $sort values", "{$push: {a: {$each: [2], $sort: -1}}}", "{a: [1, 3]}", "{a: [3, 2, 1]}"),
                row("$push $sort then $slice", "{$push: {a: {$each: [0], $sort: 1, $slice: 2}}}", "{a: [5, 1]}", "{a: [0, 1]}"),
                row("$push $sort by field", "{$push: {a: {$each: [{s: 2}], $sort: {s: 1}}}}", "{a: [{s: 3}, {s: 1}]}", "{a: [{s: 1}, {s: 2}, {s: 3}]}"),
                row("$addToSet adds new", "{$addToSet: {a: 3}}", "{a: [1, 2]}", "{a: [1, 2, 3]}"),
                row("$addToSet skips present", "{$addToSet: {a: 2}}", "{a: [1, 2]}", "{a: [1, 2]}"),
                row("$addToSet equal numbers are present", "{$addToSet: {a: 2.0}}", "{a: [1, 2]}", "{a: [1, 2]}"),
                row("$addToSet $each", "{$addToSet: {a: {$each: [2, 3, 3]}}}", "{a: [1, 2]}", "{a: [1, 2, 3]}"),
                row("$addToSet creates array", "{$addToSet: {a: 1}}", "{}", "{a: [1]}"),
                row("$pull value", "{$pull: {a: 2}}", "{a: [1, 2, 3, 2]}", "{a: [1, 3]}"),
                row("$pull condition", "{$pull: {a: {$gte: 2}}}", "{a: [1, 2, 3]}", "{a: [1]}"),
                row("$pull document condition", "{$pull: {a: {x: 1}}}", "{a: [{x: 1, y: 1}, {x: 2}]}", "{a: [{x: 2}]}"),
                row("$pull missing is no-op", "{$pull: {a: 1}}", "{}", "{}"),
                row("$pullAll", "{$pullAll: {a: [1, 3]}}", "{a: [1, 2, 3, 1]}", "{a: [2]}"),
                row("$pop last", "{$pop: {a: 1}}", "{a: [1, 2, 3]}", "{a: [1, 2]}"),
                row("$pop first", "{$pop: {a: -1}}", "{a: [1, 2, 3]}", "{a: [2, 3]}"),
                row("$pop empty is no-op", "{$pop: {a: 1}}", "{a: []}", "{a: []}"),
                row("several operators", "{$set: {a: 1}, $inc: {b: 1}, $unset: {c: 1}}", "{b: 1, c: 1}", "{b: 2, a: 1}"));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("rules")
    void rule(String rule, String update, String before, String after) {
        ObjectNode doc = o(before);
        Update.parse(j(update), QueryLimits.defaults()).apply(doc, false);
        assertThat(doc).as(rule).isEqualTo(j(after));
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("{$set: {a: 1}, b: 2}", "{}", "mixes"),
                Arguments.of("{$foo: {a: 1}}", "{}", "$foo"),
                Arguments.of("{$set: 1}", "{}", "$set"),
                Arguments.of("{$set: {a: 1}, $inc: {a: 1}}", "{}", "conflict"),
                Arguments.of("{$set: {a: 1}, $unset: {'a.b': 1}}", "{}", "conflict"),
                Arguments.of("{$rename: {a: 'b'}, $set: {b: 1}}", "{}", "conflict"),
                Arguments.of("{$unset: {_id: 1}}", "{_id: 1}", "_id"),
                Arguments.of("{$inc: {_id: 1}}", "{_id: 1}", "_id"),
                Arguments.of("{$set: {_id: 2}}", "{_id: 1}", "_id"),
                Arguments.of("{_id: 2}", "{_id: 1}", "_id"),
                Arguments.of("{$set: {'_id.x': 2}}", "{_id: 1}", "_id"),
                Arguments.of("{$rename: {a: '_id'}}", "{_id: 1}", "_id"),
                Arguments.of("{$inc: {a: 'x'}}", "{}", "$inc"),
                Arguments.of("{$inc: {a: 1}}", "{a: 'x'}", "not a number"),
                Arguments.of("{$mul: {a: 2}}", "{a: null}", "not a number"),
                Arguments.of("{$inc: {a: 1}}", "{a: 9223372036854775807}", "overflow"),
                Arguments.of("{$set: {'a.b': 1}}", "{a: 5}", "cannot create field"),
                Arguments.of("{$set: {'a.b': 1}}", "{a: [1]}", "in an array"),
                Arguments.of("{$push: {a: 1}}", "{a: 5}", "not an array"),
                Arguments.of("{$push: {a: {$slice: 1}}}", "{}", "$each"),
                Arguments.of("{$push: {a: {$each: [1], $foo: 1}}}", "{}", "$foo"),
                Arguments.of("{$push: {a: {$each: [1], $sort: 'up'}}}", "{}", "$sort"),
                Arguments.of("{$addToSet: {a: {$each: 1}}}", "{}", "$each"),
                Arguments.of("{$pull: {a: 1}}", "{a: {}}", "not an array"),
                Arguments.of("{$pullAll: {a: 1}}", "{}", "$pullAll"),
                Arguments.of("{$pop: {a: 2}}", "{}", "$pop"),
                Arguments.of("{$rename: {a: 1}}", "{}", "$rename"),
                Arguments.of("{$rename: {a: 'a.b'}}", "{}", "overlap"),
                Arguments.of("{$currentDate: {a: {$type: 'time'}}}", "{}", "timestamp"),
                Arguments.of("{$set: {'a.$': 1}}", "{}", "no condition on 'a'"),
                Arguments.of("{$set: {'$[]': 1}}", "{}", "not allowed"),
                Arguments.of("{$rename: {'a.$[]': 'b'}}", "{}", "not allowed"),
                Arguments.of("{$set: {'a.$[x]': 1}}", "{a: [1]}", "identifier 'x'"),
                Arguments.of("{$set: {'a.$[]': 1, 'a.0': 2}}", "{a: [1]}", "conflict"),
                Arguments.of("{$set: {'a.$[]': 1}}", "{}", "must exist"),
                Arguments.of("{$set: {'a.$[].b': 1}}", "{a: 5}", "non-array"),
                Arguments.of("{$inc: {'a.$[]': 1}}", "{a: [1, 'x']}", "not a number"),
                Arguments.of("{$pull: {a: {$where: 'x'}}}", "{}", "$where"),
                Arguments.of("[]", "{}", "object"));
    }

    @ParameterizedTest(name = "{0} on {1} is 400")
    @MethodSource("rejected")
    void rejectsWith400AndLeavesTheDocumentUnchanged(String update, String before, String named) {
        ObjectNode doc = o(before);
        J.assertBadRequest(() -> Update.parse(j(update), QueryLimits.defaults()).apply(doc, false), named);
        assertThat(doc).isEqualTo(j(before));
    }

    @Test
    void failingOperatorLeavesEarlierOperatorsUnapplied() {
        ObjectNode doc = o("{a: 1, b: 'x'}");
        Update update = Update.parse(j("{$set: {a: 2}, $inc: {b: 1}}"), QueryLimits.defaults());
        assertThatThrownBy(() -> update.apply(doc, false)).isInstanceOf(WeftException.class);
        assertThat(doc).isEqualTo(j("{a: 1, b: 'x'}"));
    }

    @Test
    void describesChangesAsAChangeEvent() {
        ObjectNode doc = o("{_id: 1, a: 1, b: {c: 1}, d: 1, e: [1]}");
        UpdateDescription d = Update.parse(j("{$set: {a: 1, 'b.c': 2}, $unset: {d: 1, z: 1}, $push: {e: 2}}"),
                QueryLimits.defaults()).apply(doc, false);
        assertThat(d.updatedFields()).isEqualTo(j("{'b.c': 2, e: [1, 2]}"));
        assertThat(d.removedFields()).containsExactly("d");
    }

    @Test
    void setOnInsertAppliesWhenInserting() {
        ObjectNode doc = o("{_id: 1}");
        Update.parse(j("{$setOnInsert: {a: 1}, $set: {b: 2}}"), QueryLimits.defaults()).apply(doc, true);
        assertThat(doc).isEqualTo(j("{_id: 1, a: 1, b: 2}"));
    }

    @Test
    void currentDateSetsNow() {
        long before = System.currentTimeMillis();
        ObjectNode doc = o("{}");
        Update.parse(j("{$currentDate: {t: true, u: {$type: 'date'}}}"), QueryLimits.defaults()).apply(doc, false);
        long after = System.currentTimeMillis();
        assertThat(Values.isDate(doc.get("t"))).isTrue();
        assertThat(doc.get("t").get("$date").longValue()).isBetween(before, after);
        assertThat(Values.isDate(doc.get("u"))).isTrue();
    }

    @Test
    void currentDateAsTimestampIsSecondsAndAnIncreasingIncrement() {
        long before = System.currentTimeMillis() / 1000;
        ObjectNode doc = o("{}");
        Update.parse(j("{$currentDate: {t: {$type: 'timestamp'}, u: {$type: 'timestamp'}}}"), QueryLimits.defaults()).apply(doc, false);
        long after = System.currentTimeMillis() / 1000;
        assertThat(doc.get("t").get("$timestamp").get("t").longValue()).isBetween(before, after);
        assertThat(doc.get("t").get("$timestamp").get("i").longValue()).isPositive();
        assertThat(Values.compare(doc.get("t"), doc.get("u"))).as("%s < %s", doc.get("t"), doc.get("u")).isNegative();
    }

    @Test
    void oneParsedUpdateAppliedToManyDocumentsSharesNoNodes() {
        Update update = Update.parse(j("{$set: {a: {x: 1}}}"), QueryLimits.defaults());
        ObjectNode d1 = o("{}");
        ObjectNode d2 = o("{}");
        update.apply(d1, false);
        update.apply(d2, false);
        ((ObjectNode) d1.get("a")).put("x", 2);
        assertThat(d2).isEqualTo(j("{a: {x: 1}}"));
    }

    static Stream<Arguments> positional() {
        return Stream.of(
                Arguments.of("$ from the query", "{grades: 80}", null, "{$set: {'grades.$': 82}}",
                        "{grades: [85, 80, 80]}", "{grades: [85, 82, 80]}"),
                Arguments.of("$ in documents", "{'grades.grade': 85}", null, "{$set: {'grades.$.std': 6}}",
                        "{grades: [{grade: 80, std: 8}, {grade: 85, std: 5}, {grade: 85, std: 8}]}",
                        "{grades: [{grade: 80, std: 8}, {grade: 85, std: 6}, {grade: 85, std: 8}]}"),
                Arguments.of("$ with $unset nulls the element", "{a: 2}", null, "{$unset: {'a.$': 1}}", "{a: [1, 2]}", "{a: [1, null]}"),
                Arguments.of("$ with $pull", "{'a.k': 1}", null, "{$pull: {'a.$.v': 3}}",
                        "{a: [{k: 0, v: [3]}, {k: 1, v: [3, 4]}]}", "{a: [{k: 0, v: [3]}, {k: 1, v: [4]}]}"),
                Arguments.of("$[] with $inc", "{}", null, "{$inc: {'grades.$[]': 10}}", "{grades: [85, 82, 80]}", "{grades: [95, 92, 90]}"),
                Arguments.of("$[] with $mul, $min, $max", "{}", null, "{$mul: {'a.$[].m': 2}, $min: {'a.$[].lo': 0}, $max: {'a.$[].hi': 5}}",
                        "{a: [{m: 2, lo: 1, hi: 9}, {m: 3}]}", "{a: [{m: 4, lo: 0, hi: 9}, {m: 6, lo: 0, hi: 5}]}"),
                Arguments.of("$[] with $push, $addToSet, $pop, $pullAll", "{}", null,
                        "{$push: {'a.$[].p': 1}, $addToSet: {'a.$[].s': 1}, $pop: {'a.$[].q': 1}, $pullAll: {'a.$[].r': [1]}}",
                        "{a: [{p: [], s: [1], q: [1, 2], r: [1, 2]}]}", "{a: [{p: [1], s: [1], q: [1], r: [2]}]}"),
                Arguments.of("$[] on an empty array changes nothing", "{}", null, "{$set: {'a.$[]': 1}}", "{a: []}", "{a: []}"),
                Arguments.of("$[id] with arrayFilters", "{}", "[{element: {$gte: 100}}]", "{$set: {'grades.$[element]': 100}}",
                        "{grades: [95, 110, 100, 102]}", "{grades: [95, 100, 100, 100]}"),
                Arguments.of("nested $[t] and $[score]", "{}", "[{'t.type': 'quiz'}, {score: {$gte: 8}}]",
                        "{$inc: {'grades.$[t].questions.$[score]': 2}}",
                        "{grades: [{type: 'quiz', questions: [10, 8, 5]}, {type: 'hw', questions: [9]}, {type: 'quiz', questions: [8, 9, 6]}]}",
                        "{grades: [{type: 'quiz', questions: [12, 10, 5]}, {type: 'hw', questions: [9]}, {type: 'quiz', questions: [10, 11, 6]}]}"),
                Arguments.of("$[id] with $unset", "{}", "[{x: {$lt: 0}}]", "{$unset: {'a.$[x]': 1}}", "{a: [1, -1]}", "{a: [1, null]}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("positional")
    void positionalPaths(String rule, String query, String arrayFilters, String update, String before, String after) {
        ObjectNode doc = o(before);
        Update.parse(j(update), QueryLimits.defaults(), java.util.List.of(j(query)), arrayFilters == null ? null : j(arrayFilters))
                .apply(doc, false);
        assertThat(doc).as(rule).isEqualTo(j(after));
    }

    @Test
    void positionalErrorsAreMongoDbs() {
        var none = java.util.List.<tools.jackson.databind.JsonNode>of();
        J.assertBadRequest(() -> Update.parse(j("{$set: {'a.$': 1}}"), QueryLimits.defaults(), java.util.List.of(j("{a: 9}")), null)
                .apply(o("{a: [1]}"), false), "did not find the match");
        J.assertBadRequest(() -> Update.parse(j("{$set: {'a.$[]': 1}}"), QueryLimits.defaults(), none, j("[{x: 1}]")), "not used");
        J.assertBadRequest(() -> Update.parse(j("{$set: {'a.$[x]': 1}}"), QueryLimits.defaults(), none, j("[{x: 1}, {x: 2}]")), "two filters");
        J.assertBadRequest(() -> Update.parse(j("{$set: {'a.$[x]': 1}}"), QueryLimits.defaults(), none, j("[{x: 1, y: 2}]")), "two identifiers");
        J.assertBadRequest(() -> Update.parse(j("{$set: {'a.$[X]': 1}}"), QueryLimits.defaults(), none, j("[{X: 1}]")), "not an identifier");
        J.assertBadRequest(() -> Update.parse(j("{$set: {'a.$[]': 1}}"), QueryLimits.defaults(), none, j("{}")), "JSON array");
        J.assertBadRequest(() -> Update.parse(j("{$set: {'a.$.b.$': 1}}"), QueryLimits.defaults(), java.util.List.of(j("{a: 1}")), null),
                "positional");
        assertThat(Update.parse(j("{$set: {'a.$[].b.$[i].c': 1}}"), QueryLimits.defaults(), none, j("[{'i.secret': 1}]"))
                .probedPaths()).containsExactly("a.b.secret");
    }
}
