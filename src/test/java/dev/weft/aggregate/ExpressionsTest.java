package dev.weft.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One row per rule of MongoDB's expression semantics: expression, document, expected value (JSON text, or "missing"). */
class ExpressionsTest {
    static Arguments row(String expr, String doc, String expected) {
        return Arguments.of(expr, doc, expected);
    }

    static Stream<Arguments> values() {
        return Stream.of(
                // field paths, variables
                row("'$a'", "{a: 1}", "1"),
                row("'$a.b'", "{a: {b: 2}}", "2"),
                row("'$a.b'", "{a: [{b: 1}, {c: 2}, {b: 3}, 4]}", "[1,3]"),
                row("'$a.0'", "{a: [5, 6]}", "[]"),
                row("'$missing'", "{a: 1}", "missing"),
                row("'$a.b'", "{a: 5}", "missing"),
                row("'$$ROOT.a'", "{a: 7}", "7"),
                row("'$$CURRENT.a'", "{a: 7}", "7"),
                row("'$$NOW'", "{}", "{\"$date\":1700000000000}"),
                row("{$literal: '$a'}", "{a: 1}", "\"$a\""),
                row("['$a', '$missing']", "{a: 1}", "[1,null]"),
                row("{x: '$a', y: '$missing'}", "{a: 1}", "{\"x\":1}"),
                row("{$let: {vars: {t: {$add: ['$a', 1]}}, in: {$multiply: ['$$t', 2]}}}", "{a: 2}", "6"),
                // arithmetic
                row("{$add: [1, 2]}", "{}", "3"),
                row("{$add: [1, 2.5]}", "{}", "3.5"),
                row("{$add: [2147483647, 1]}", "{}", "2147483648"),
                row("{$add: [9223372036854775807, 1]}", "{}", "9.223372036854776E18"),
                row("{$add: [1, null]}", "{}", "null"),
                row("{$add: [1, '$missing']}", "{}", "null"),
                row("{$add: [{$literal: {$date: 1000}}, 500]}", "{}", "{\"$date\":1500}"),
                row("{$subtract: [{$literal: {$date: 1000}}, {$literal: {$date: 400}}]}", "{}", "600"),
                row("{$subtract: [5, 7]}", "{}", "-2"),
                row("{$multiply: [3, 4, 0.5]}", "{}", "6.0"),
                // overflow, as MongoDB's ExpressionAdd/ExpressionMultiply and the $subtract page
                // (https://www.mongodb.com/docs/manual/reference/operator/aggregation/subtract/,
                // "Behavior"): a long past its range is a double; $add then adds in order, and
                // $multiply's double is the product of every factor as a double, in order
                row("{$add: [9223372036854775807, 1, -1]}", "{}", "9.223372036854776E18"),
                row("{$add: [-1, 9223372036854775807, 1]}", "{}", "9223372036854775807"),
                row("{$subtract: [-9223372036854775808, 1]}", "{}", "-9.223372036854776E18"),
                row("{$subtract: [9223372036854775807, -1]}", "{}", "9.223372036854776E18"),
                row("{$subtract: [-2147483648, 1]}", "{}", "-2147483649"),
                row("{$multiply: [2147483647, 2]}", "{}", "4294967294"),
                row("{$multiply: [9223372036854775807, 2]}", "{}", "1.8446744073709552E19"),
                row("{$multiply: [4611686018427387904, 2, 0]}", "{}", "0.0"),
                row("{$multiply: [9007199254740993, 3, 1.0]}", "{}", "2.7021597764222976E16"),
                row("{$multiply: [9007199254740993, 3]}", "{}", "27021597764222979"),
                // $sum $avg $min $max as expressions (https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/,
                // "Use in $project"; avg/, min/, max/ alike): one array argument is summed by element,
                // several arguments each as one value; non-numbers, null and missing are passed over
                row("{$sum: '$a'}", "{a: [1, 2.5, 'x', null, [4]]}", "3.5"),
                row("{$sum: '$a'}", "{a: [9223372036854775807, 1, -1]}", "9223372036854775807"),
                row("{$sum: '$a'}", "{a: [9223372036854775807, 1]}", "9.223372036854776E18"),
                row("{$sum: ['$a', '$b', 2]}", "{a: 1, b: [5]}", "3"),
                row("{$sum: '$a'}", "{a: 7}", "7"),
                row("{$sum: '$missing'}", "{}", "0"),
                row("{$sum: []}", "{}", "0"),
                row("{$avg: '$a'}", "{a: [1, 2, 'x']}", "1.5"),
                row("{$avg: '$a'}", "{a: ['x', null]}", "null"),
                row("{$avg: '$missing'}", "{}", "null"),
                row("{$avg: ['$a', '$b']}", "{a: 1, b: 4}", "2.5"),
                row("{$min: '$a'}", "{a: [3, 1.5, null, 2]}", "1.5"),
                row("{$max: '$a'}", "{a: [3, 'x', {}, null]}", "{}"), // BSON order: numbers < strings < objects
                row("{$min: '$a'}", "{a: [3, 'x', {}, null]}", "3"),
                row("{$max: ['$a', '$b']}", "{a: [1, 2], b: 9}", "[1,2]"), // several arguments: an array is one value
                row("{$min: '$missing'}", "{}", "null"),
                row("{$max: '$a'}", "{a: []}", "null"),
                row("{$divide: [9, 2]}", "{}", "4.5"),
                row("{$mod: [9, 4]}", "{}", "1"),
                row("{$mod: [-9, 4]}", "{}", "-1"),
                row("{$abs: -3}", "{}", "3"),
                row("{$ceil: 1.2}", "{}", "2.0"),
                row("{$floor: -1.2}", "{}", "-2.0"),
                row("{$round: [2.5, 0]}", "{}", "2.0"),
                row("{$round: [3.14159, 2]}", "{}", "3.14"),
                row("{$trunc: [7.89, 1]}", "{}", "7.8"),
                row("{$pow: [2, 10]}", "{}", "1024"),
                row("{$sqrt: 16}", "{}", "4.0"),
                row("{$abs: null}", "{}", "null"),
                // comparison: missing below null, cross-type order
                row("{$eq: ['$missing', null]}", "{}", "false"),
                row("{$lt: ['$missing', null]}", "{}", "true"),
                row("{$eq: [1, 1.0]}", "{}", "true"),
                row("{$gt: ['a', 5]}", "{}", "true"),
                row("{$lt: [[1], {}]}", "{}", "false"),
                row("{$cmp: [2, 1]}", "{}", "1"),
                row("{$ne: ['$a', 1]}", "{a: 2}", "true"),
                row("{$gte: ['$a', 2]}", "{a: 2}", "true"),
                row("{$lte: ['$a', 1]}", "{a: 2}", "false"),
                // boolean and conditional
                row("{$and: [1, 'x', []]}", "{}", "true"),
                row("{$and: [1, 0]}", "{}", "false"),
                row("{$or: [null, '$missing', 0]}", "{}", "false"),
                row("{$not: [0]}", "{}", "true"),
                row("{$and: []}", "{}", "true"),
                row("{$cond: [{$gt: ['$a', 1]}, 'big', 'small']}", "{a: 2}", "\"big\""),
                row("{$cond: {if: '$missing', then: 1, else: 2}}", "{}", "2"),
                row("{$ifNull: ['$missing', null, 'fallback']}", "{}", "\"fallback\""),
                row("{$ifNull: ['$a', 'fallback']}", "{a: 0}", "0"),
                row("{$switch: {branches: [{case: {$eq: ['$a', 1]}, then: 'one'}, {case: true, then: 'other'}]}}", "{a: 1}", "\"one\""),
                row("{$switch: {branches: [{case: false, then: 1}], default: 'd'}}", "{}", "\"d\""),
                // strings
                row("{$concat: ['a', '-', '$b']}", "{b: 'c'}", "\"a-c\""),
                row("{$concat: ['a', '$missing']}", "{}", "null"),
                row("{$split: ['a.b.c', '.']}", "{}", "[\"a\",\"b\",\"c\"]"),
                row("{$split: ['.a.', '.']}", "{}", "[\"\",\"a\",\"\"]"),
                row("{$split: [null, '.']}", "{}", "null"),
                row("{$size: {$split: ['$f', '.']}}", "{f: 'x.y.z.w'}", "4"),
                // $size of $split counts the pieces without making them: the same answers as the array's size
                row("{$size: {$split: ['$f', '.']}}", "{f: '.a..b.'}", "5"),
                row("{$size: {$split: ['$f', '.']}}", "{f: ''}", "1"),
                row("{$size: {$split: ['$f', 'ab']}}", "{f: 'aabab'}", "3"),
                row("{$size: {$split: ['$f', 'aa']}}", "{f: 'aaa'}", "2"),
                row("{$size: {$split: ['$f', '\u2192']}}", "{f: '\u00e9\u2192\u00e9\u2192'}", "3"),
                row("{$size: {$split: ['$f', '\ud83d\ude00']}}", "{f: 'x\ud83d\ude00y\ud83d\ude00z'}", "3"),
                row("{$size: {$split: ['$f', '\\\\']}}", "{f: 'a\\\\b\\\\'}", "3"),
                row("{$toLower: 'ÀBc'}", "{}", "\"àbc\""),
                row("{$toUpper: '$missing'}", "{}", "\"\""),
                row("{$toUpper: 12}", "{}", "\"12\""),
                row("{$substrCP: ['héllo', 1, 3]}", "{}", "\"éll\""),
                row("{$substrCP: ['ab', 5, 3]}", "{}", "\"\""),
                row("{$strLenCP: 'h😀'}", "{}", "2"),
                row("{$trim: {input: '  x  '}}", "{}", "\"x\""),
                row("{$trim: {input: 'xxaxx', chars: 'x'}}", "{}", "\"a\""),
                row("{$ltrim: {input: '  x '}}", "{}", "\"x \""),
                row("{$trim: {input: null}}", "{}", "null"),
                row("{$regexMatch: {input: 'Hello', regex: '^h', options: 'i'}}", "{}", "true"),
                row("{$regexMatch: {input: '$missing', regex: 'x'}}", "{}", "false"),
                row("{$indexOfCP: ['cafécafé', 'é']}", "{}", "3"),
                row("{$indexOfCP: ['abc', 'z']}", "{}", "-1"),
                row("{$indexOfCP: ['abcabc', 'b', 2]}", "{}", "4"),
                row("{$indexOfCP: [null, 'b']}", "{}", "null"),
                // arrays
                row("{$size: '$a'}", "{a: [1, 2, 3]}", "3"),
                row("{$arrayElemAt: ['$a', -1]}", "{a: [1, 2, 3]}", "3"),
                row("{$arrayElemAt: ['$a', 5]}", "{a: [1, 2, 3]}", "missing"),
                row("{$arrayElemAt: [null, 0]}", "{}", "null"),
                row("{$first: '$a'}", "{a: [4, 5]}", "4"),
                row("{$last: '$a'}", "{a: [4, 5]}", "5"),
                row("{$first: '$a'}", "{a: []}", "missing"),
                row("{$first: '$missing'}", "{}", "null"),
                row("{$in: [2, '$a']}", "{a: [1, 2.0]}", "true"),
                row("{$in: [null, [1]]}", "{}", "false"),
                row("{$slice: ['$a', 2]}", "{a: [1, 2, 3]}", "[1,2]"),
                row("{$slice: ['$a', -2]}", "{a: [1, 2, 3]}", "[2,3]"),
                row("{$slice: ['$a', 1, 5]}", "{a: [1, 2, 3]}", "[2,3]"),
                row("{$slice: ['$a', -2, 1]}", "{a: [1, 2, 3]}", "[2]"),
                row("{$concatArrays: ['$a', [3]]}", "{a: [1, 2]}", "[1,2,3]"),
                row("{$concatArrays: ['$a', '$missing']}", "{a: [1]}", "null"),
                row("{$filter: {input: '$a', cond: {$gt: ['$$this', 1]}}}", "{a: [1, 2, 3]}", "[2,3]"),
                row("{$filter: {input: '$a', as: 'n', cond: {$gt: ['$$n', 0]}, limit: 1}}", "{a: [1, 2, 3]}", "[1]"),
                row("{$filter: {input: '$missing', cond: true}}", "{}", "null"),
                row("{$map: {input: '$a', as: 'x', in: {$multiply: ['$$x', 10]}}}", "{a: [1, 2]}", "[10,20]"),
                row("{$map: {input: '$a', in: '$$this.b'}}", "{a: [{b: 1}, {}]}", "[1,null]"),
                row("{$reduce: {input: '$a', initialValue: 0, in: {$add: ['$$value', '$$this']}}}", "{a: [1, 2, 3]}", "6"),
                row("{$reduce: {input: ['a', 'b'], initialValue: '', in: {$concat: ['$$value', '$$this']}}}", "{}", "\"ab\""),
                row("{$isArray: '$a'}", "{a: 1}", "false"),
                // types and conversions
                row("{$type: '$a'}", "{a: 1}", "\"int\""),
                row("{$type: '$a'}", "{a: 10000000000}", "\"long\""),
                row("{$type: '$a'}", "{a: 1.5}", "\"double\""),
                row("{$type: '$missing'}", "{}", "\"missing\""),
                row("{$type: '$a'}", "{a: null}", "\"null\""),
                row("{$type: '$a'}", "{a: {$date: 5}}", "\"date\""),
                row("{$type: '$a'}", "{a: {$oid: '0123456789abcdef01234567'}}", "\"objectId\""),
                row("{$type: '$a'}", "{a: [1]}", "\"array\""),
                row("{$type: '$a'}", "{a: {x: 1}}", "\"object\""),
                row("{$toInt: '12'}", "{}", "12"),
                row("{$toInt: 12.9}", "{}", "12"),
                row("{$toInt: true}", "{}", "1"),
                row("{$toLong: {$literal: {$date: 42}}}", "{}", "42"),
                row("{$toDouble: '2.5'}", "{}", "2.5"),
                row("{$toString: 2.0}", "{}", "\"2\""),
                row("{$toString: 2.5}", "{}", "\"2.5\""),
                row("{$toString: {$literal: {$date: 0}}}", "{}", "\"1970-01-01T00:00:00.000Z\""),
                row("{$toString: null}", "{}", "null"),
                row("{$toBool: 0}", "{}", "false"),
                row("{$toBool: ''}", "{}", "true"),
                row("{$convert: {input: 'abc', to: 'int', onError: -1}}", "{}", "-1"),
                row("{$convert: {input: null, to: 'int', onNull: 0}}", "{}", "0"),
                row("{$convert: {input: '7', to: 16}}", "{}", "7"),
                row("{$toDate: '2024-03-01T10:00:00Z'}", "{}", "{\"$date\":1709287200000}"),
                // dates: 2024-03-01T10:20:30.456Z is 1709288430456
                row("{$year: '$d'}", "{d: {$date: 1709288430456}}", "2024"),
                row("{$month: '$d'}", "{d: {$date: 1709288430456}}", "3"),
                row("{$dayOfMonth: '$d'}", "{d: {$date: 1709288430456}}", "1"),
                row("{$hour: '$d'}", "{d: {$date: 1709288430456}}", "10"),
                row("{$hour: {date: '$d', timezone: '+02:00'}}", "{d: {$date: 1709288430456}}", "12"),
                row("{$dayOfMonth: {date: '$d', timezone: 'America/New_York'}}", "{d: {$date: 1709256000000}}", "29"),
                row("{$year: '$d'}", "{d: {$date: '2020-05-05T00:00:00Z'}}", "2020"),
                row("{$year: '$missing'}", "{}", "null"),
                row("{$dateToString: {date: '$d'}}", "{d: {$date: 1709288430456}}", "\"2024-03-01T10:20:30.456Z\""),
                row("{$dateToString: {date: '$d', format: '%Y/%m/%d %H:%M'}}", "{d: {$date: 1709288430456}}", "\"2024/03/01 10:20\""),
                row("{$dateToString: {date: '$missing', onNull: 'none'}}", "{}", "\"none\""),
                row("{$dateTrunc: {date: '$d', unit: 'day'}}", "{d: {$date: 1709288430456}}", "{\"$date\":1709251200000}"),
                row("{$dateTrunc: {date: '$d', unit: 'month'}}", "{d: {$date: 1709288430456}}", "{\"$date\":1709251200000}"),
                row("{$dateTrunc: {date: '$d', unit: 'hour', binSize: 6}}", "{d: {$date: 1709288430456}}", "{\"$date\":1709272800000}"),
                row("{$dateTrunc: {date: '$d', unit: 'year'}}", "{d: {$date: 1709288430456}}", "{\"$date\":1704067200000}"),
                row("{$dateTrunc: {date: '$d', unit: 'week'}}", "{d: {$date: 1709288430456}}", "{\"$date\":1708819200000}"));
    }

    @ParameterizedTest(name = "{0} over {1} is {2}")
    @MethodSource("values")
    void evaluates(String expr, String doc, String expected) {
        assertThat(A.eval(expr, doc)).isEqualTo(expected);
    }

    static Stream<Arguments> errors() {
        return Stream.of(
                Arguments.of("{$frobnicate: 1}", "{}", "$frobnicate"),
                Arguments.of("{$add: ['a', 1]}", "{}", "$add"),
                Arguments.of("{$divide: [1, 0]}", "{}", "divide by zero"),
                Arguments.of("{$size: '$missing'}", "{}", "$size"),
                Arguments.of("{$size: 5}", "{}", "$size"),
                Arguments.of("{$concat: ['a', 1]}", "{}", "$concat"),
                Arguments.of("{$split: ['a', '']}", "{}", "$split"),
                Arguments.of("{$size: {$split: ['$missing', '.']}}", "{}", "$size"),
                Arguments.of("{$size: {$split: [1, '.']}}", "{}", "$split"),
                Arguments.of("{$size: {$split: ['a', '']}}", "{}", "$split"),
                Arguments.of("{$size: {$split: ['a', 1]}}", "{}", "$split"),
                Arguments.of("{$strLenCP: null}", "{}", "$strLenCP"),
                Arguments.of("{$in: [1, '$missing']}", "{}", "$in"),
                Arguments.of("{$toInt: 'x'}", "{}", "$toInt"),
                Arguments.of("{$toInt: 10000000000}", "{}", "$toInt"),
                Arguments.of("{$year: 'nope'}", "{}", "$year"),
                Arguments.of("{$switch: {branches: [{case: false, then: 1}]}}", "{}", "$switch"),
                Arguments.of("'$$undefinedVar'", "{}", "undefinedVar"),
                Arguments.of("{$eq: [1]}", "{}", "$eq"),
                Arguments.of("{$regexMatch: {input: 'a', regex: '(a)\\\\1'}}", "{}", "$regexMatch"),
                Arguments.of("{$dateToString: {date: {$literal: {$date: 0}}, format: '%Q'}}", "{}", "%Q"),
                Arguments.of("{$hour: {date: {$literal: {$date: 0}}, timezone: 'Mars/Base'}}", "{}", "Mars/Base"));
    }

    @ParameterizedTest(name = "{0} is a 400 naming {2}")
    @MethodSource("errors")
    void refuses(String expr, String doc, String named) {
        assertThatThrownBy(() -> A.eval(expr, doc))
                .isInstanceOf(WeftException.class)
                .hasMessageContaining(named)
                .satisfies(e -> assertThat(((WeftException) e).status()).isEqualTo(400));
    }
}
