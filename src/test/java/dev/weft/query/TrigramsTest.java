package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.re2j.Pattern;
import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class TrigramsTest {
    private static final QueryLimits LIMITS = new QueryLimits(1000, 100_000, 64);

    private static Filter regex(String path, String pattern, String options) {
        ObjectNode spec = Json.NODES.objectNode();
        spec.putObject(path).put("$regex", pattern).put("$options", options);
        return Filter.parse(spec, LIMITS);
    }

    private static JsonNode doc(String json) {
        return Json.standard().parse(json, "test");
    }

    private static List<String> grams(TreeSet<byte[]> keys) {
        return keys.stream().map(k -> new String(k, StandardCharsets.UTF_8)).toList();
    }

    @Test
    void keysAreTheLowerCasedTrigramsOfEveryStringOnThePathArraysIncluded() {
        JsonNode d = doc("{\"links\":[{\"url\":\"Apache\"},{\"url\":[\"pach\", 5]}],\"other\":\"zzzz\"}");
        assertThat(grams(Trigrams.keys(d, "links.url"))).containsExactly("ach", "apa", "che", "pac");
        assertThat(Trigrams.keys(doc("{\"a\":\"ab\"}"), "a")).isEmpty();
        assertThat(Trigrams.keys(doc("{\"a\":1}"), "a")).isEmpty();
    }

    /** Three times as many distinct trigrams as a document may have indexed. */
    private static String manyTrigrams() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; s.codePointCount(0, s.length()) < 3 * Trigrams.MAX_KEYS_PER_DOCUMENT; i++) {
            s.appendCodePoint(0x4e00 + (i % 20000));
        }
        return s.toString();
    }

    @Test
    void aDocumentWithTooManyTrigramsHasTheOverflowKeyOnly() {
        ObjectNode d = Json.NODES.objectNode().put("t", manyTrigrams());
        assertThat(Trigrams.keys(d, "t")).hasSize(1).first().satisfies(k -> assertThat(k).isEqualTo(Trigrams.OVERFLOW));
    }

    @Test
    void theIndexedTextIsEveryStringOnThePathLowerCasedAndJoinedByALineFeed() {
        JsonNode d = doc("{\"links\":[{\"url\":\"Apache\"},{\"url\":[\"pach\", 5, \"ab\", \"\u212aXs\"]}],\"other\":\"zzzz\"}");
        assertThat(Trigrams.indexed(d, "links.url").text()).isEqualTo("apache\npach\nkxs");
        assertThat(Trigrams.indexed(d, "links.url").overflow()).isFalse();
        assertThat(Trigrams.indexed(doc("{\"a\":\"ab\"}"), "a")).isNull();
        assertThat(Trigrams.indexed(doc("{\"a\":[1, \"\uD83D\uDE00x\"]}"), "a")).isNull();
        assertThat(Trigrams.indexed(doc("{\"b\":\"abc\"}"), "a")).isNull();
        // many trigrams, but few distinct ones: indexed
        ObjectNode repeated = Json.NODES.objectNode().put("t", "ab".repeat(3 * Trigrams.MAX_KEYS_PER_DOCUMENT));
        assertThat(Trigrams.indexed(repeated, "t").overflow()).isFalse();
    }

    /** The ASCII path (copied, or folded char by char) gives each code point's own lower case, as the general path. */
    @Test
    void theIndexedTextFoldsEachCodePointWhateverItsString() {
        Random random = new Random(22);
        String alphabet = "aZbY09-./:_ \"\\\n\u00c9\u0130\u03a3K\u212a\uD83D\uDE00";
        for (int round = 0; round < 2000; round++) {
            ArrayNode strings = Json.NODES.arrayNode();
            StringBuilder expected = new StringBuilder();
            for (int k = 0; k < 1 + random.nextInt(3); k++) {
                StringBuilder s = new StringBuilder();
                for (int i = random.nextInt(12); i > 0; i--) {
                    int at = random.nextInt(alphabet.length());
                    s.append(Character.isHighSurrogate(alphabet.charAt(at)) ? alphabet.substring(at, at + 2)
                            : Character.isLowSurrogate(alphabet.charAt(at)) ? "a" : alphabet.substring(at, at + 1));
                }
                strings.add(s.toString());
                if (s.codePoints().count() >= 3) {
                    expected.append(expected.isEmpty() ? "" : "\n");
                    s.codePoints().forEach(cp -> expected.appendCodePoint(Character.toLowerCase(cp)));
                }
            }
            ObjectNode d = Json.NODES.objectNode();
            d.set("u", strings);
            Trigrams.Indexed got = Trigrams.indexed(d, "u");
            assertThat(got == null ? "" : got.text()).as(strings.toString()).isEqualTo(expected.toString());
        }
    }

    @Test
    void aTextWithTooManyDistinctTrigramsIsOverflow() {
        ObjectNode d = Json.NODES.objectNode().put("t", manyTrigrams());
        assertThat(Trigrams.indexed(d, "t").overflow()).isTrue();
        assertThat(Trigrams.indexed(d, "t").text()).isNull();
    }

    @Test
    void queriesAndTheLiteralsTrigramsAndOrTheAlternatives() {
        assertThat(Trigrams.query(regex("u", ".*pach.*", ""), "u")).hasToString("All[parts=[pac, ach]]");
        assertThat(Trigrams.query(regex("u", "PACH", "i"), "u")).hasToString("All[parts=[pac, ach]]");
        assertThat(Trigrams.query(regex("u", "apple|pear", ""), "u").toString())
                .isEqualTo("Any[parts=[All[parts=[app, ppl, ple]], All[parts=[pea, ear]]]]");
        assertThat(Trigrams.query(regex("u", "ab.*", ""), "u")).isNull();
        assertThat(Trigrams.query(regex("u", "apple|x", ""), "u")).isNull();
        assertThat(Trigrams.query(regex("v", "apple", ""), "u")).isNull();
    }

    /**
     * Soundness on random patterns and documents (strings, arrays of them, case folds that leave
     * ASCII): whenever the filter matches, the document's keys satisfy the lookup.
     */
    @Test
    void everyMatchHoldsTheTrigramsOfTheLookup() {
        Random random = new Random(22);
        String[] atoms = {"a", "b", "ab", "abc", "bca", "K", "k", "s", "S", "\u212a", "\u017f", "\u00e9", "\u00c9", ".", "[ab]",
                "[a-c]", "[^a]", "\\d", "\\w", "x", "^", "$", "\\b", "\uD83D\uDE00", "ks"};
        String alphabet = "abcKks\u212a\u017fx\u00e9\u00c9AB1 \uD83D\uDE00";
        int alphabetSize = alphabet.codePointCount(0, alphabet.length());
        int checked = 0;
        int looked = 0;
        for (int i = 0; i < 3000; i++) {
            String pattern = RegexLiteralsTest.pattern(random, atoms, 3);
            String options = random.nextInt(3) == 0 ? "i" : "";
            Filter filter;
            try {
                Pattern.compile(pattern);
                filter = regex("s", pattern, options);
            } catch (RuntimeException e) {
                continue;
            }
            Trigrams.Query q = Trigrams.query(filter, "s");
            looked += q == null ? 0 : 1;
            for (int j = 0; j < 40; j++) {
                ObjectNode d = Json.NODES.objectNode();
                ArrayNode values = d.putArray("s");
                int strings = 1 + random.nextInt(2);
                for (int v = 0; v < strings; v++) {
                    StringBuilder s = new StringBuilder();
                    int n = random.nextInt(10);
                    for (int k = 0; k < n; k++) {
                        s.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0, random.nextInt(alphabetSize))));
                    }
                    values.add(s.toString());
                }
                if (filter.matches(d)) {
                    checked++;
                    assertThat(holds(q, Trigrams.keys(d, "s"))).as("/%s/%s on %s: %s", pattern, options, d, q).isTrue();
                }
            }
        }
        assertThat(checked).isGreaterThan(5000);
        assertThat(looked).isGreaterThan(300);
    }

    /** The lookup evaluated as the SQL does, on one document's keys. */
    static boolean holds(Trigrams.Query q, TreeSet<byte[]> keys) {
        if (q == null || keys.contains(Trigrams.OVERFLOW)) {
            return true;
        }
        return switch (q) {
            case Trigrams.Gram g -> keys.stream().anyMatch(k -> Arrays.equals(k, g.key()));
            case Trigrams.All a -> a.parts().stream().allMatch(p -> holds(p, keys));
            case Trigrams.Any o -> o.parts().stream().anyMatch(p -> holds(p, keys));
        };
    }
}
