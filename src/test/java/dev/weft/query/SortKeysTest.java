package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Sort keys against the reference comparator: for random documents (nested objects, arrays,
 * empty arrays, mixed types, missing fields, equal numbers of different types) and sorts, a
 * difference of keys is the comparator's order, equal documents have equal keys, and a key read
 * from stored bytes is the key of the parsed document.
 */
class SortKeysTest {
    private static final Json JSON = Json.standard();

    @Test
    void keysOrderLikeTheComparatorAndStoredBytesGiveTheTreesKey() {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomValues r = new RandomValues(seed);
        int fromBytes = 0;
        for (String spec : List.of("a", "-a", "a,-b", "-c,b", "a.b", "-a.b,c", "b.0")) {
            Sort sort = Sort.parse(spec, QueryLimits.defaults());
            SortKeys keys = SortKeys.of(sort);
            SortKeys.Scratch scratch = keys.scratch();
            for (int i = 0; i < 3000; i++) {
                JsonNode x;
                JsonNode y;
                try {
                    x = JSON.parse(JSON.bytes(r.document(2)), "x");
                    y = JSON.parse(JSON.bytes(r.document(2)), "y");
                } catch (dev.weft.core.WeftException e) {
                    continue; // U+0000, which is never stored
                }
                byte[] kx = keys.of(x);
                byte[] ky = keys.of(y);
                int byKeys = Integer.signum(Arrays.compareUnsigned(kx, ky));
                int bySort = Integer.signum(sort.comparator().compare(x, y));
                String context = "seed=" + seed + " sort=" + spec + " " + x + " vs " + y;
                assertThat(byKeys == 0 || byKeys == bySort).as(context).isTrue();
                assertThat(bySort != 0 || byKeys == 0).as(context).isTrue();
                fromBytes += readFromBytes(keys, scratch, JSON.bytes(x), kx, context);
            }
        }
        assertThat(fromBytes).isGreaterThan(3000);
    }

    /**
     * 1 when the key is read from {@code stored} (it must then be {@code expected}), 0 when the
     * tree is needed; the same through {@code scratch}, a buffer reused over many documents (its
     * reader, starting from the last document's layout, may meet an escaped name the fresh one did
     * not, and leave the document to the tree: never a different key).
     */
    private static int readFromBytes(SortKeys keys, SortKeys.Scratch scratch, byte[] stored, byte[] expected, String context) {
        byte[] read = keys.ofStored(stored);
        String from = context + " from " + new String(stored, StandardCharsets.UTF_8);
        int n = 0;
        if (keys.readStored(stored, scratch)) {
            assertThat(scratch.copy()).as(from).isEqualTo(expected);
            assertThat(SortKeys.compare(scratch.bytes(), scratch.length(), expected)).isZero();
            n = 1;
        }
        if (read != null) {
            assertThat(read).as(from).isEqualTo(expected);
            n = 1;
        }
        return n;
    }

    @Test
    void plainTopLevelValuesAreReadFromBytesAndStopAtTheLastSortField() {
        SortKeys keys = SortKeys.of(Sort.parse("{\"stars\":-1,\"name\":1}", QueryLimits.defaults()));
        String doc = "{\"name\":\"caf\u00e9 1\",\"links\":[{\"url\":\"https://x/\\\"q\\\"\"}],\"stars\":-12.5e1,\"rest\":{\"x\":[1,2]}}";
        byte[] body = doc.getBytes(StandardCharsets.UTF_8);
        assertThat(keys.ofStored(body)).isEqualTo(keys.of(JSON.parse(body, "doc")));
        // read from the end: strings with brackets, quotes and backslashes skipped backwards, blanks
        String fromEnd = "{\"_id\":1,\"links\":[{\"u\":\"a\\\\\"}],\"s\":\"}\\\"\",\"stars\":  -12.5e1 , \"t\":[\"]\",{\"stars\":1}],\"name\":\"z\"}\n";
        byte[] end = fromEnd.getBytes(StandardCharsets.UTF_8);
        assertThat(keys.ofStored(end)).isNotNull().isEqualTo(keys.of(JSON.parse(end, "doc")));
        // an escaped name (here met from the end) may spell a field: the tree decides
        assertThat(keys.ofStored("{\"a\":1,\"b\":2,\"st\\u0061rs\":3}".getBytes(StandardCharsets.UTF_8))).isNull();
        // a field that is not plain (an array, an escaped string) is read from the tree instead
        assertThat(keys.ofStored("{\"stars\":[1,2],\"name\":\"a\"}".getBytes(StandardCharsets.UTF_8))).isNull();
        assertThat(keys.ofStored("{\"stars\":1,\"name\":\"a\\nb\"}".getBytes(StandardCharsets.UTF_8))).isNull();
        // missing fields sort as null
        assertThat(keys.ofStored("{}".getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(keys.of(JSON.parse("{\"stars\":null}".getBytes(StandardCharsets.UTF_8), "doc")));
    }

    /** Values whose bytes look like structure when read backwards: quotes, backslashes and brackets in strings. */
    private static final String[] TRICKY = {"\\", "a\\", "\"", "\\\"", "x\":1,\"a\":", "}", "]", "{\"a\":[", ",\"a\":9"};

    @Test
    void keysReadFromBothEndsOfManyFieldedDocumentsAreTheTreesKeys() {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomValues r = new RandomValues(seed);
        java.util.Random random = r.random();
        tools.jackson.databind.ObjectWriter pretty = JSON.mapper().writerWithDefaultPrettyPrinter();
        int fromBytes = 0;
        for (String spec : List.of("a", "-a", "a,-b", "-c,b,a", "x\"y")) {
            SortKeys keys = SortKeys.of(Sort.parse(spec.contains("\"") ? "{\"x\\\"y\":1}" : spec, QueryLimits.defaults()));
            SortKeys.Scratch scratch = keys.scratch();
            for (int i = 0; i < 3000; i++) {
                tools.jackson.databind.node.ObjectNode doc = Json.NODES.objectNode();
                List<String> names = new java.util.ArrayList<>(List.of("a", "b", "c", "x\"y", "f\\", "g", "h", "i"));
                java.util.Collections.shuffle(names, random);
                for (String name : names.subList(0, random.nextInt(names.size() + 1))) {
                    doc.set(name, random.nextInt(3) == 0
                            ? Json.NODES.stringNode(TRICKY[random.nextInt(TRICKY.length)])
                            : random.nextInt(4) == 0 ? Json.NODES.arrayNode().add(TRICKY[random.nextInt(TRICKY.length)]).add(r.value(2))
                            : r.value(2));
                }
                byte[] expected;
                try {
                    expected = keys.of(JSON.parse(JSON.bytes(doc), "doc"));
                } catch (dev.weft.core.WeftException e) {
                    continue; // U+0000, which is never stored
                }
                for (byte[] stored : List.of(JSON.bytes(doc), pretty.writeValueAsBytes(doc))) {
                    fromBytes += readFromBytes(keys, scratch, stored, expected, "seed=" + seed + " sort=" + spec);
                }
            }
        }
        assertThat(fromBytes).isGreaterThan(5_000);
    }

    @Test
    void numbersOfEveryShapeAndStringsWithEscapesOrNonAsciiReadAsTheTreeReadsThem() {
        SortKeys keys = SortKeys.of(Sort.parse("{\"n\":1}", QueryLimits.defaults()));
        SortKeys down = SortKeys.of(Sort.parse("{\"n\":-1}", QueryLimits.defaults()));
        for (String n : List.of("-0", "0", "-0.0", "1e3", "1E3", "1000", "1.0", "1", "-12.5e-1", "0.1", "9007199254740993",
                "123456789012345678901", "1e300", "-1e-300", "\"caf\u00e9\"", "\"\u2603\"", "\"a\\\"b\"", "\"\"", "true", "null",
                // the integers read in one pass end at 15 digits; 16 and more, or a '+' or '-' after digits, go to parseDouble
                "999999999999999", "-999999999999999", "1000000000000000", "-1000000000000001", "12345678901234567890",
                "0.5", "-7", "7e+2", "7E-2", "00", "-0e0")) {
            String doc = "{\"_id\":{\"$oid\":\"5f0000000000000000000001\"},\"s\":\"\\\"n\\\":1\",\"n\":" + n
                    + ",\"o\":{\"n\":2},\"_etag\":{\"$oid\":\"5f0000000000000000000002\"}}";
            String last = "{\"_id\":1,\"n\":" + n + "}"; // the value's bytes run to the closing brace
            for (String d : List.of(doc, last)) {
                readAsTheTree(keys, down, n, d);
            }
        }
    }

    @Test
    void objectIdsAsWeftWritesThemAreReadOnTheBytesAndLookalikesFromTheTree() {
        SortKeys keys = SortKeys.of(Sort.parse("{\"_id\":1}", QueryLimits.defaults()));
        SortKeys down = SortKeys.of(Sort.parse("{\"_id\":-1}", QueryLimits.defaults()));
        List<String> onBytes = List.of("{\"$oid\":\"5f0000000000000000000001\"}", "{\"$oid\":\"0123456789abcdefABCDEF09\"}",
                "{\"$oid\":\"ffffffffffffffffffffffff\"}", "{\"$oid\":\"000000000000000000000000\"}");
        // not an ObjectId (another digit, another length, another field), or not as Weft writes one (a blank, an escape)
        List<String> lookalikes = List.of("{\"$oid\":\"5f000000000000000000000g\"}", "{\"$oid\":\"5f000000000000000000001\"}",
                "{\"$oid\":\"5f00000000000000000000012\"}", "{\"$oid\":\"5f0000000000000000000001\",\"x\":1}",
                "{\"$oid\":1}", "{ \"$oid\":\"5f0000000000000000000001\"}", "{\"$oid\" : \"5f0000000000000000000001\"}",
                "{\"$oid\":\"5f000000000000000000000\\u0031\"}", "{\"$oi\\u0064\":\"5f0000000000000000000001\"}",
                "{\"$oid\":\"5f00000000000000000000\u0661\"}", "{\"$date\":0}", "{\"$oid\":\"5f0000000000000000\"}");
        for (String id : onBytes) {
            for (SortKeys k : List.of(keys, down)) {
                for (String doc : List.of("{\"_id\":" + id + ",\"a\":1}", "{\"a\":1,\"_id\":" + id + "}")) {
                    byte[] body = doc.getBytes(StandardCharsets.UTF_8);
                    assertThat(k.ofStored(body)).as(doc).isNotNull().isEqualTo(k.of(JSON.parse(body, "doc")));
                }
            }
        }
        for (String id : lookalikes) {
            for (SortKeys k : List.of(keys, down)) {
                for (String doc : List.of("{\"_id\":" + id + ",\"a\":1}", "{\"a\":1,\"_id\":" + id + "}", "{\"_id\":" + id + "}")) {
                    byte[] body = doc.getBytes(StandardCharsets.UTF_8);
                    byte[] read = k.ofStored(body);
                    if (read != null) {
                        assertThat(read).as(doc).isEqualTo(k.of(JSON.parse(body, "doc")));
                    }
                }
            }
        }
        // ObjectIds order by their digits, case aside, as the comparator orders them
        byte[] lower = keys.ofStored("{\"_id\":{\"$oid\":\"5f00000000000000000000ab\"}}".getBytes(StandardCharsets.UTF_8));
        byte[] upper = keys.ofStored("{\"_id\":{\"$oid\":\"5F00000000000000000000AB\"}}".getBytes(StandardCharsets.UTF_8));
        byte[] next = keys.ofStored("{\"_id\":{\"$oid\":\"5f00000000000000000000ac\"}}".getBytes(StandardCharsets.UTF_8));
        assertThat(lower).isEqualTo(upper);
        assertThat(Arrays.compareUnsigned(lower, next)).isNegative();
    }

    /** A number (or other value) {@code n} in {@code doc}: read on the bytes unless escaped, and then the tree's key. */
    private static void readAsTheTree(SortKeys keys, SortKeys down, String n, String doc) {
        byte[] body = doc.getBytes(StandardCharsets.UTF_8);
        try {
            JSON.parse(body, "doc");
        } catch (dev.weft.core.WeftException e) {
            return; // not JSON the server stores (a leading zero)
        }
        for (SortKeys k : List.of(keys, down)) {
            byte[] read = k.ofStored(body);
            if (!n.contains("\\")) {
                assertThat(read).as(doc).isNotNull(); // plain: read on the bytes
            }
            if (read != null) {
                assertThat(read).as(doc).isEqualTo(k.of(JSON.parse(body, "doc")));
            }
        }
    }

    @Test
    void keysCompareAsUnsignedBytes() {
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 20_000; i++) {
            byte[] a = new byte[random.nextInt(20)];
            byte[] b = new byte[random.nextInt(20)];
            random.nextBytes(a);
            random.nextBytes(b);
            if (random.nextBoolean() && a.length <= b.length) {
                System.arraycopy(b, 0, a, 0, a.length); // a prefix of b
            }
            byte[] padded = java.util.Arrays.copyOf(a, a.length + random.nextInt(4)); // a buffer longer than its key
            assertThat(Integer.signum(SortKeys.compare(padded, a.length, b))).isEqualTo(Integer.signum(Arrays.compareUnsigned(a, b)));
        }
    }

    @Test
    void aSortByTextScoreHasNoKeys() {
        assertThat(SortKeys.of(Sort.parse("{\"s\":{\"$meta\":\"textScore\"}}", QueryLimits.defaults()))).isNull();
    }
}
