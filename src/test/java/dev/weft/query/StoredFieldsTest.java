package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.node.ObjectNode;

/**
 * Top-level fields found on stored bytes from both ends, against the parsed document: each
 * located start holds the field's value (as the pruned reader reads it), a field the document
 * lacks is -1, and one reader reused over documents of changing layouts (so that the order it
 * remembers from the last one is wrong) still finds exactly the same.
 */
class StoredFieldsTest {
    private static final Json JSON = Json.standard();
    private static final PrunedReader VALUES = new PrunedReader(JSON, PathTrie.of(Set.of("_id")));

    /** Strings whose bytes look like structure or like a field: quotes, backslashes, brackets, names. */
    private static final String[] TRICKY = {"\\", "a\\", "\"", "\\\"", "x\":1,\"a\":", "}", "]", "{\"a\":[", ",\"a\":9",
        "\"a\":1", "a", "caf\u00e9 \u2603"};

    /** Asserts what {@code reader} finds in {@code stored} is the tree's; true when it read the bytes. */
    private static boolean sameAsTree(StoredFields.Reader reader, List<String> names, String stored) {
        byte[] b = stored.getBytes(StandardCharsets.UTF_8);
        if (!reader.locate(b)) {
            return false;
        }
        JsonNode tree = JSON.parse(b, "doc");
        for (int i = 0; i < names.size(); i++) {
            JsonNode expected = tree.get(names.get(i));
            if (expected == null) {
                assertThat(reader.start(i)).as(names.get(i) + " in " + stored).isEqualTo(-1);
            } else {
                assertThat(reader.start(i)).as(names.get(i) + " in " + stored).isNotNegative();
                assertThat(VALUES.valueAt(b, reader.start(i))).as(names.get(i) + " in " + stored).isEqualTo(expected);
            }
        }
        return true;
    }

    @Test
    void fieldsAreFoundPastStringsAndObjectsThatLookLikeThem() {
        List<String> names = List.of("a", "stars");
        StoredFields.Reader reader = new StoredFields(names).reader();
        // the name inside a string value, escaped quotes in strings, the same name in nested objects
        assertThat(sameAsTree(reader, names, "{\"s\":\"\\\"a\\\":1\",\"n\":{\"a\":2,\"stars\":[{\"a\":3}]},\"a\":4,\"t\":\"a\"}")).isTrue();
        assertThat(sameAsTree(reader, names, "{\"a\":\"x\\\\\",\"q\":\"\\\\\\\"stars\\\":\",\"stars\":5,\"z\":{\"stars\":6}}")).isTrue();
        // a value ending in backslashes before its closing quote, read backwards
        assertThat(sameAsTree(reader, names, "{\"stars\":\"\\\\\\\\\",\"b\":\"\\\"\",\"a\":\"\\\\\"}")).isTrue();
        // numbers of every shape, literals, blanks and new lines anywhere
        for (String n : List.of("-0", "1e3", "1.0", "-12.5e-1", "0.1", "123456789012345678901", "true", "false", "null")) {
            assertThat(sameAsTree(reader, names, "{ \"a\" : " + n + " ,\n \"b\":[1, {\"a\":2}],\t\"stars\":" + n + "}\n")).isTrue();
        }
        // missing, empty
        assertThat(sameAsTree(reader, names, "{\"b\":1}")).isTrue();
        assertThat(sameAsTree(reader, names, "{}")).isTrue();
        assertThat(sameAsTree(reader, names, " { } ")).isTrue();
    }

    /**
     * A number or literal read from its end finds its start eight bytes a round and then byte by
     * byte: every length (one word, several, a part word) at every distance from the document's
     * start, after a colon or after each kind of blank.
     */
    @Test
    void scalarsOfEveryLengthAreFoundWhereverTheyStart() {
        List<String> names = List.of("s");
        StoredFields.Reader reader = new StoredFields(names).reader();
        int read = 0;
        for (int digits = 1; digits <= 24; digits++) {
            String number = "-" + "123456789".repeat(3).substring(0, digits);
            for (String value : List.of(number, number.substring(1), "true", "false", "null", number + ".5e-3")) {
                for (String before : List.of("", " ", "\n", "\t", "\r", " \n\t ")) {
                    for (int pad = 0; pad <= 9; pad++) {
                        String first = "{\"p\":\"" + "x".repeat(pad) + "\",\"s\":" + before + value + "}";
                        String only = "{" + " ".repeat(pad % 3) + "\"s\":" + before + value + "}";
                        String last = "{\"s\":" + before + value + ",\"q\":" + value + "}";
                        for (String doc : List.of(first, only, last)) {
                            assertThat(sameAsTree(reader, names, doc)).as(doc).isTrue();
                            read++;
                        }
                    }
                }
            }
        }
        assertThat(read).isEqualTo(24 * 6 * 6 * 10 * 3);
    }

    /**
     * An ObjectId's extended JSON ({@code {"$oid":"<24 bytes>"}}) is skipped in one look when its
     * 24 bytes hold no quote or backslash: values of that shape and look-alikes (escaped quotes and
     * backslashes that make 24 bytes, braces, other lengths, other names than {@code $oid}), last,
     * in the middle and nested, are found as the tree holds them.
     */
    @Test
    void objectIdsAndLookAlikesAreSkippedAsTheTreeHoldsThem() {
        java.util.Random random = new java.util.Random(Long.getLong("weft.seed", System.nanoTime()));
        String alphabet = "0123456789abcdef\"\\{}[]:,$ ";
        List<String> names = List.of("s", "a", "_etag");
        StoredFields.Reader reader = new StoredFields(names).reader();
        // the last 35 bytes read {"$oid":" ... "} but span two fields: the 24 bytes between hold quotes
        for (String lookAlike : List.of("{\"a\":1,\"s\":{\"$oid\":\"a\"},\"_etag\":{\"b\":\"cdefgh\"}}",
                "{\"s\":{\"$oid\":\"a\"},\"a\":{\"_etag\":\"cccccc\"}}",
                "{\"_etag\":{\"$oid\":\"a\",\"s\":\"" + "e".repeat(16) + "\"}}")) {
            assertThat(sameAsTree(reader, names, lookAlike)).as(lookAlike).isTrue();
        }
        int skipped = 0;
        for (int i = 0; i < 20_000; i++) {
            StringBuilder chars = new StringBuilder();
            int length = random.nextInt(5) == 0 ? 20 + random.nextInt(8) : 24;
            for (int c = 0; c < length; c++) {
                chars.append(random.nextInt(3) == 0 ? alphabet.charAt(random.nextInt(alphabet.length()))
                        : alphabet.charAt(random.nextInt(16)));
            }
            ObjectNode oid = Json.NODES.objectNode().put(random.nextInt(10) == 0 ? "$oie" : "$oid", chars.toString());
            ObjectNode doc = Json.NODES.objectNode();
            doc.put("a", i);
            doc.set("s", random.nextBoolean() ? oid : Json.NODES.arrayNode().add(oid));
            doc.set("n", Json.NODES.objectNode().set("_etag", oid));
            doc.set("_etag", oid);
            String stored = new String(JSON.bytes(doc), StandardCharsets.UTF_8);
            assertThat(sameAsTree(reader, names, stored)).as(stored).isTrue();
            if (stored.endsWith("\"_etag\":{\"$oid\":\"" + chars + "\"}}") && chars.toString().matches("[0-9a-f{}\\[\\]:,$ ]{24}")) {
                skipped++;
            }
        }
        assertThat(skipped).isGreaterThan(1_000);
    }

    @Test
    void escapedNamesAndBytesThatAreNotAnObjectAreLeftToTheCaller() {
        StoredFields.Reader reader = new StoredFields(List.of("stars")).reader();
        // an escaped name may spell one of the names, met from either end
        assertThat(reader.locate(bytes("{\"a\":1,\"b\":2,\"st\\u0061rs\":3}"))).isFalse();
        assertThat(reader.locate(bytes("{\"st\\u0061rs\":3,\"b\":2,\"c\":1,\"d\":0}"))).isFalse();
        assertThat(reader.locate(bytes("[1,2]"))).isFalse();
        assertThat(reader.locate(bytes("\"stars\""))).isFalse();
        assertThat(reader.locate(bytes(""))).isFalse();
    }

    @Test
    void aReaderReusedOverChangingLayoutsFindsWhatTheTreeHolds() {
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomValues r = new RandomValues(seed);
        java.util.Random random = r.random();
        ObjectWriter pretty = JSON.mapper().writerWithDefaultPrettyPrinter();
        int read = 0;
        for (List<String> names : List.of(List.of("a"), List.of("_id", "g", "v"), List.of("c", "a", "b"), List.of("f\\", "h"))) {
            StoredFields.Reader reader = new StoredFields(names).reader();
            for (int i = 0; i < 3000; i++) {
                ObjectNode doc = Json.NODES.objectNode();
                List<String> fields = new ArrayList<>(List.of("a", "b", "c", "_id", "g", "v", "x\"y", "f\\", "h", "i", "j"));
                Collections.shuffle(fields, random);
                for (String name : fields.subList(0, random.nextInt(fields.size() + 1))) {
                    doc.set(name, random.nextInt(3) == 0
                            ? Json.NODES.stringNode(TRICKY[random.nextInt(TRICKY.length)])
                            : random.nextInt(4) == 0 ? Json.NODES.objectNode().put(names.get(0), TRICKY[random.nextInt(TRICKY.length)])
                            : r.value(2));
                }
                String compact;
                String indented;
                try {
                    compact = new String(JSON.bytes(JSON.parse(JSON.bytes(doc), "doc")), StandardCharsets.UTF_8);
                    indented = pretty.writeValueAsString(doc);
                } catch (dev.weft.core.WeftException e) {
                    continue; // U+0000, which is never stored
                }
                for (String stored : List.of(compact, indented)) {
                    if (sameAsTree(reader, names, stored)) {
                        read++;
                    }
                }
            }
        }
        assertThat(read).as("seed=" + seed).isGreaterThan(5_000);
    }

    @Test
    void namesMustBeDistinct() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StoredFields(List.of("a", "a")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
