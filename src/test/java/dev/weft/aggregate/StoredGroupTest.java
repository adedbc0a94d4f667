package dev.weft.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The {@code $group} evaluated on stored bytes ({@link StoredGroup}) against the reference
 * evaluator ({@link Pipeline#run} over the parsed documents): the same answers and the same
 * errors, over awkward stored values, with the input split over two parts.
 */
class StoredGroupTest {
    private static final Json JSON = Json.standard();

    /** Stored documents as the server could hold them (compact JSON), each an awkward case. */
    private static final List<String> AWKWARD = List.of(
            "{\"_id\":1,\"g\":\"a\",\"v\":1,\"s\":\"x.y.z\"}",
            "{\"_id\":2,\"g\":\"a\",\"v\":2147483647,\"s\":\"..\"}",
            "{\"_id\":3,\"g\":\"b\",\"v\":2147483648,\"s\":\"\"}",
            "{\"_id\":4,\"g\":1,\"v\":1.5,\"s\":\"a.b\"}",
            "{\"_id\":5,\"g\":1.0,\"v\":-0.0,\"s\":\"a\\\"b.c\"}",
            "{\"_id\":6,\"g\":\"1\",\"v\":\"7\",\"s\":\"\\u00e9.\\n.\"}",
            "{\"_id\":7,\"v\":null,\"s\":\"é.ü.日本.x\"}",
            "{\"_id\":8,\"g\":null,\"v\":[1,2],\"s\":\"a..b\"}",
            "{\"_id\":9,\"g\":{\"x\":1},\"v\":{\"$numberLong\":\"5\"},\"s\":\"...\"}",
            "{\"_id\":10,\"g\":[1,2],\"v\":true,\"s\":\"a.b\"}",
            "{\"_id\":11,\"g\":\"g\\u0031\",\"v\":123456789012345678,\"s\":\"a.b\"}",
            "{\"_id\":12,\"g\":\"g1\",\"v\":1234567890123456789,\"s\":\"a.b\"}",
            "{\"_id\":13,\"g\":\"a\",\"v\":9223372036854775807,\"s\":\"a.b\"}",
            "{\"_id\":14,\"g\":true,\"v\":1e3,\"s\":\"a.b\",\"extra\":{\"s\":\"no.no\"}}",
            "{\"_id\":15 , \"g\" : \"a\" , \"v\" : -5 , \"s\" : \"a.b\" }",
            "{\"_id\":16,\"nested\":{\"g\":\"a\",\"v\":1},\"s\":\"a.b\",\"g\":\"b\",\"v\":-2}",
            "{\"_id\":17,\"\\u0067\":\"a\",\"v\":4,\"s\":\"a.b\"}", // an escaped field name: g
            "{\"g\":\"noid\",\"v\":3,\"s\":\"a\"}");

    private static final String NUMERIC = "[{\"$group\":{\"_id\":\"$g\",\"sum\":{\"$sum\":\"$v\"},\"avg\":{\"$avg\":\"$v\"},"
            + "\"n\":{\"$count\":{}},\"one\":{\"$sum\":1},\"half\":{\"$sum\":0.5},\"missing\":{\"$avg\":\"$none\"}}},"
            + "{\"$sort\":{\"n\":-1}}]";

    @Test
    void numericAccumulatorsByAFieldMatchTheReference() {
        assertSameAsReference(NUMERIC, AWKWARD);
    }

    @Test
    void piecesOfASplitMatchTheReference() {
        List<String> strings = AWKWARD.stream().filter(d -> !d.contains("noid")).toList(); // each has a string s
        assertSameAsReference("[{\"$group\":{\"_id\":null,\"n\":{\"$sum\":{\"$size\":{\"$split\":[\"$s\",\".\"]}}}}}]", strings);
        assertSameAsReference("[{\"$group\":{\"_id\":\"$g\",\"n\":{\"$sum\":{\"$size\":{\"$split\":[\"$s\",\"..\"]}}},"
                + "\"m\":{\"$avg\":{\"$size\":{\"$split\":[\"$s\",\"a\"]}}}}}]", strings);
    }

    @Test
    void aSplitOfWhatIsNotAStringFailsAsTheReferenceDoes() {
        String pipeline = "[{\"$group\":{\"_id\":1,\"n\":{\"$sum\":{\"$size\":{\"$split\":[\"$s\",\".\"]}}}}}]";
        assertSameAsReference(pipeline, List.of("{\"_id\":1,\"s\":\"a.b\"}", "{\"_id\":2,\"s\":5}"));
        assertSameAsReference(pipeline, List.of("{\"_id\":1,\"s\":\"a.b\"}", "{\"_id\":2}"));
        assertSameAsReference(pipeline, List.of("{\"_id\":1,\"s\":null}"));
        assertSameAsReference(pipeline, List.of("{\"_id\":1,\"s\":[\"a.b\"]}"));
    }

    @Test
    void randomDocumentsMatchTheReference() {
        SplittableRandom random = new SplittableRandom(14);
        String[] values = {"1", "2.5", "-3", "null", "\"k\"", "\"k.k\"", "\"\\u006b\"", "true", "[1]", "{\"a\":1}", "1.0",
                "4000000000", "\"é.\""};
        for (int round = 0; round < 50; round++) {
            List<String> docs = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                // the fields in a random order, among others that look like them (found from either end of the bytes)
                List<String> fields = new ArrayList<>(List.of("\"_id\":" + i));
                for (String f : List.of("g", "v", "s")) {
                    if (random.nextInt(5) > 0) {
                        fields.add("\"" + f + "\":" + values[random.nextInt(values.length)]);
                    }
                }
                if (random.nextBoolean()) {
                    fields.add("\"x\":\"\\\",\\\"g\\\":\\\\\"");
                }
                if (random.nextBoolean()) {
                    fields.add("\"o\":{\"g\":\"o\",\"v\":[{\"v\":7}]}");
                }
                java.util.Collections.shuffle(fields, new java.util.Random(random.nextLong()));
                docs.add("{" + String.join(random.nextBoolean() ? "," : " ,\n ", fields) + "}");
            }
            assertSameAsReference(NUMERIC, docs);
            assertSameAsReference("[{\"$group\":{\"_id\":\"$v\",\"c\":{\"$count\":{}},\"s\":{\"$sum\":\"$g\"}}}]", docs);
            assertSameAsReference("[{\"$sortByCount\":\"$g\"}]", docs);
            assertSameAsReference("[{\"$count\":\"n\"},{\"$project\":{\"m\":{\"$add\":[\"$n\",1]}}}]", docs);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "[{\"$group\":{\"_id\":\"$a.b\",\"n\":{\"$sum\":1}}}]", // a nested path: arrays on the way change its value
        "[{\"$group\":{\"_id\":null,\"n\":{\"$sum\":\"$a.b\"}}}]",
        "[{\"$group\":{\"_id\":null,\"f\":{\"$first\":\"$v\"}}}]", // order matters
        "[{\"$group\":{\"_id\":null,\"n\":{\"$sum\":{\"$size\":{\"$split\":[\"$s\",\"é\"]}}}}}]", // not ASCII
        "[{\"$group\":{\"_id\":{\"k\":\"$g\"},\"n\":{\"$sum\":1}}}]",
        "[{\"$addFields\":{\"x\":1}},{\"$group\":{\"_id\":null,\"n\":{\"$sum\":\"$x\"}}}]",
        "[{\"$addFields\":{\"x\":1}},{\"$count\":\"n\"}]"})
    void otherPipelinesAreLeftToTheReference(String pipeline) {
        assertThat(parts(pipeline).readsStoredBytes()).isFalse();
    }

    @Test
    void doublesSumToTheSameWhereverTheScanIsCut() {
        // added in order 0.1 + 0.2 + 0.3 is 0.6000000000000001, and 0.1 + (0.2 + 0.3) is 0.6: the
        // partial sums of the two parts must add up to the one-range answer, which is the exact
        // sum rounded once (MongoDB's double-double sum rounds to the same)
        List<String> docs = List.of("{\"_id\":1,\"g\":\"a\",\"v\":0.1}", "{\"_id\":2,\"g\":\"a\",\"v\":0.2}",
                "{\"_id\":3,\"g\":\"a\",\"v\":0.3}");
        assertSameAsReference(NUMERIC, docs);
        JsonNode one = Pipeline.parseAggregation(JSON.mapper().readTree(NUMERIC), QueryLimits.defaults())
                .run(docs.stream().map(d -> JSON.mapper().readTree(d)).toList(), options()).getFirst();
        assertThat(one.get("sum").doubleValue()).isEqualTo(0.6);
        assertThat(one.get("avg").doubleValue()).isEqualTo(0.6 / 3); // the rounded sum over the count, as MongoDB divides
        SplittableRandom random = new SplittableRandom(5);
        for (int round = 0; round < 40; round++) {
            List<String> many = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                double v = switch (random.nextInt(6)) {
                    case 0 -> random.nextDouble() * 1e-300;
                    case 1 -> random.nextDouble() * 1e300;
                    case 2 -> -random.nextDouble() * 1e16;
                    default -> random.nextDouble();
                };
                String n = random.nextInt(8) == 0 ? Long.toString(random.nextLong()) : Double.toString(v);
                many.add("{\"_id\":" + i + ",\"g\":\"a\",\"v\":" + n + "}");
            }
            assertSameAsReference(NUMERIC, many);
        }
        assertSameAsReference(NUMERIC, List.of("{\"_id\":1,\"v\":1e308}", "{\"_id\":2,\"v\":1e308}", "{\"_id\":3,\"v\":-1e308}"));
    }

    @Test
    void aGroupByTheIdItselfMatchesTheReference() {
        // the _id read as a key and an argument, besides the position each group's key takes
        assertSameAsReference("[{\"$group\":{\"_id\":\"$_id\",\"n\":{\"$sum\":\"$_id\"},\"c\":{\"$count\":{}}}}]", AWKWARD);
        assertSameAsReference("[{\"$group\":{\"_id\":\"$v\",\"n\":{\"$sum\":\"$_id\"}}}]",
                List.of("{\"_id\":3,\"v\":1.0}", "{\"_id\":1,\"v\":1}", "{\"v\":1.00}", "{\"_id\":2,\"v\":1}", "{\"_id\":0,\"v\":1.0}"));
    }

    @Test
    void integersAreReadInPlaceAsThePrunedReadReadsThem() {
        SplittableRandom random = new SplittableRandom(8);
        List<String> numbers = new ArrayList<>(List.of("0", "-0", "7", "-7", "0.5", "-0.0", "1e3", "1E3", "2e-1", "10.0",
                "123456789012345678", "-123456789012345678", "1234567890123456789", "9223372036854775807",
                "-9223372036854775808", "99999999999999999999", "12.", "1.5e10"));
        for (int i = 0; i < 2000; i++) {
            StringBuilder n = new StringBuilder(random.nextBoolean() ? "-" : "");
            n.append(1 + random.nextInt(9));
            for (int d = random.nextInt(21); d > 0; d--) {
                n.append(random.nextInt(10));
            }
            switch (random.nextInt(4)) {
                case 0 -> n.append('.').append(random.nextInt(100));
                case 1 -> n.append(random.nextBoolean() ? 'e' : 'E').append(random.nextInt(30));
                default -> { }
            }
            numbers.add(n.toString());
        }
        for (String number : numbers) {
            for (String after : List.of("}", ",\"x\":1}", " }", "\n}", "]}")) {
                byte[] b = ("{\"v\":" + number + after).getBytes(StandardCharsets.UTF_8);
                assertThat(StoredGroup.integerAt(b, 5)).as(number + after)
                        .isEqualTo(dev.weft.query.PrunedReader.plainInteger(b, 5));
            }
        }
    }

    @Test
    void piecesCountsNonOverlappingSeparators() {
        byte[] b = "xa...b..".getBytes(StandardCharsets.UTF_8);
        assertThat(StoredGroup.pieces(b, 1, b.length, new byte[] {'.', '.'})).isEqualTo(3); // "a...b.." -> a, .b, ""
        assertThat(StoredGroup.pieces(b, 1, b.length, new byte[] {'.'})).isEqualTo(6);
        assertThat(StoredGroup.pieces(b, 1, 1, new byte[] {'.'})).isEqualTo(1);
    }

    @Test
    void piecesOfAPlainStringAreCountedOnItsBytes() {
        SplittableRandom random = new SplittableRandom(3);
        String alphabet = "ab.é日";
        for (int round = 0; round < 2000; round++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(40); i > 0; i--) {
                text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String tail = ",\"x\":1}".substring(0, random.nextInt(7)); // the string ends anywhere near the array's end
            byte[] b = ("{\"s\":\"" + text + "\"" + tail).getBytes(StandardCharsets.UTF_8);
            int expected = text.toString().split("\\.", -1).length;
            assertThat(StoredGroup.piecesOfPlainString(b, 5, new byte[] {'.'})).as(text.toString()).isEqualTo(expected);
            assertThat(StoredGroup.piecesOfPlainString(b, 5, new byte[] {'.', '.'})).as(text.toString())
                    .isEqualTo(text.toString().split("\\.\\.", -1).length);
        }
        byte[] escaped = "\"a.b\\\".c\"".getBytes(StandardCharsets.UTF_8);
        assertThat(StoredGroup.piecesOfPlainString(escaped, 0, new byte[] {'.'})).isEqualTo(-1);
        assertThat(StoredGroup.piecesOfPlainString("12".getBytes(StandardCharsets.UTF_8), 0, new byte[] {'.'})).isEqualTo(-1);
    }

    @Test
    void manyDistinctKeysAreAllFound() {
        List<String> docs = new ArrayList<>();
        for (int i = 0; i < 3 * SpelledKeys.MAX_KEYS; i++) {
            docs.add("{\"_id\":" + i + ",\"g\":\"k" + (i % (SpelledKeys.MAX_KEYS + 100)) + "\",\"v\":" + i + "}");
        }
        docs.add("{\"_id\":-1,\"g\":\"" + "long".repeat(100) + "\",\"v\":1}");
        assertSameAsReference("[{\"$group\":{\"_id\":\"$g\",\"s\":{\"$sum\":\"$v\"}}}]", docs);
    }

    private static Pipeline.Parts parts(String pipeline) {
        return Pipeline.parseAggregation(JSON.mapper().readTree(pipeline), QueryLimits.defaults())
                .inParts(0, options()).orElseThrow();
    }

    private static Pipeline.Options options() {
        return new Pipeline.Options(64 << 20, A.NOW, Pipeline.Collections.NONE, () -> {});
    }

    /** The answer (or the error) over {@code docs} of the reference and of the evaluation on bytes in two parts. */
    private static void assertSameAsReference(String pipeline, List<String> docs) {
        List<JsonNode> parsed = docs.stream().map(d -> JSON.mapper().readTree(d)).toList();
        String reference = outcome(() -> Pipeline.parseAggregation(JSON.mapper().readTree(pipeline), QueryLimits.defaults())
                .run(parsed, options()).toString());
        String onBytes = outcome(() -> {
            Pipeline.Parts parts = parts(pipeline);
            assertThat(parts.readsStoredBytes()).as(pipeline).isTrue();
            Pipeline.StoredPart first = parts.storedPart(options(), JSON);
            Pipeline.StoredPart second = parts.storedPart(options(), JSON);
            for (int i = 0; i < docs.size(); i++) {
                (i < docs.size() / 2 ? first : second).accept(docs.get(i).getBytes(StandardCharsets.UTF_8));
            }
            List<JsonNode> out = new ArrayList<>();
            parts.finish(options(), out::add);
            return out.toString();
        });
        assertThat(onBytes).as(pipeline + " over " + docs).isEqualTo(reference);
    }

    private static String outcome(java.util.function.Supplier<String> run) {
        try {
            return run.get();
        } catch (WeftException e) {
            return e.status() + " " + e.getMessage();
        }
    }
}
