package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrunedReaderTest {
    private static String read(List<String> paths, String stored) {
        return new PrunedReader(Json.standard(), PathTrie.of(paths)).read(stored.getBytes(StandardCharsets.UTF_8)).toString();
    }

    @Test
    void readsNoFurtherThanTheLastFieldItKeeps() {
        // the bytes after "b" are never looked at: here they are not even JSON
        assertThat(read(List.of("a", "b.x"), "{\"a\":1,\"skip\":[1,{\"b\":2}],\"b\":{\"x\":[1],\"y\":2},\"c\":not json"))
                .isEqualTo("{\"a\":1,\"b\":{\"x\":[1]}}");
    }

    @Test
    void aFieldTheDocumentLacksMeansReadingToItsEnd() {
        assertThat(read(List.of("a", "z"), "{\"a\":\"s\",\"b\":2,\"c\":{\"z\":1}}")).isEqualTo("{\"a\":\"s\"}");
        assertThat(read(List.of(), "{\"a\":1}")).isEqualTo("{}");
        assertThat(read(List.of(""), "{\"a\":1}")).isEqualTo("{\"a\":1}");
    }

    /**
     * Kept objects and arrays are built by the reader itself: for random documents (nested
     * objects and arrays, every type, escapes in names and strings, blanks) the kept values are
     * exactly the mapper's trees, node classes and field order included, also past the depth
     * where the reader hands containers to the mapper.
     */
    @Test
    void keptContainersAreTheMappersTrees() {
        Json json = Json.standard();
        long seed = Long.getLong("weft.seed", System.nanoTime());
        RandomValues r = new RandomValues(seed);
        tools.jackson.databind.ObjectWriter pretty = json.mapper().writerWithDefaultPrettyPrinter();
        int compared = 0;
        for (int n = 0; n < 3000; n++) {
            tools.jackson.databind.node.ObjectNode doc = json.mapper().createObjectNode();
            doc.set("x", r.value(4));
            doc.set("n\"q", r.value(3));
            doc.set("y", r.array(3));
            doc.set("z", r.object(3));
            if (n % 50 == 0) {
                doc.set("deep", nested(PrunedReader.MAX_BUILT_DEPTH + n % 7 - 3, r));
            }
            for (byte[] stored : List.of(json.bytes(doc), pretty.writeValueAsBytes(doc))) {
                tools.jackson.databind.JsonNode whole;
                try {
                    whole = json.parse(stored, "doc");
                } catch (dev.weft.core.WeftException e) {
                    continue; // U+0000, which is never stored
                }
                tools.jackson.databind.JsonNode kept = new PrunedReader(json, PathTrie.of(List.of("x", "n\"q", "y", "z", "deep")))
                        .read(stored);
                String context = "seed=" + seed + " " + new String(stored, StandardCharsets.UTF_8);
                assertThat(kept.toString()).as(context).isEqualTo(whole.toString());
                assertThat(kept).as(context).isEqualTo(whole); // node classes: an int is no long, a double no decimal
                assertSameClasses(kept, whole, context);
                compared++;
            }
        }
        assertThat(compared).isGreaterThan(4000);
    }

    @Test
    void objectIdsAndTheirLookalikesAreTheMappersTrees() {
        Json json = Json.standard();
        for (String id : List.of("{\"$oid\":\"5f0000000000000000000001\"}", "{\"$oid\":\"5F00000000000000000000AB\"}",
                "{\"$oid\":\"not hex, but 24 bytes...\"}", "{\"$oid\":\"caf\u00e9 is 24 bytes long..\"}",
                "{\"$oid\":\"5f000000000000000000001\"}", "{\"$oid\":\"5f00000000000000000000012\"}",
                "{\"$oid\":\"5f0000000000000000000001\",\"x\":1}", "{\"$oid\":1}", "{ \"$oid\":\"5f0000000000000000000001\"}",
                "{\"$oid\":\"5f000000000000000000000\\u0031\"}", "{\"$oi\\u0064\":\"5f0000000000000000000001\"}")) {
            for (String doc : List.of("{\"_id\":" + id + ",\"a\":1}", "{\"a\":1,\"_id\":" + id + "}", "{\"_id\":[" + id + "," + id + "]}")) {
                byte[] stored = doc.getBytes(StandardCharsets.UTF_8);
                assertThat(new PrunedReader(json, PathTrie.of(List.of("_id", "a"))).read(stored).toString()).as(doc)
                        .isEqualTo(json.parse(stored, "doc").toString());
            }
        }
    }

    private static tools.jackson.databind.JsonNode nested(int depth, RandomValues r) {
        tools.jackson.databind.JsonNode v = r.value(1);
        for (int i = 0; i < depth; i++) {
            v = i % 2 == 0 ? Json.NODES.arrayNode().add(v).add(i) : Json.NODES.objectNode().put("k" + i, i).set("v", v);
        }
        return v;
    }

    private static void assertSameClasses(tools.jackson.databind.JsonNode a, tools.jackson.databind.JsonNode b, String context) {
        assertThat(a.getClass()).as(context).isEqualTo(b.getClass());
        assertThat(a.size()).as(context).isEqualTo(b.size());
        if (a.isObject()) {
            for (var e : a.properties()) {
                assertSameClasses(e.getValue(), b.get(e.getKey()), context);
            }
        } else if (a.isArray()) {
            for (int i = 0; i < a.size(); i++) {
                assertSameClasses(a.get(i), b.get(i), context);
            }
        }
    }

    @Test
    void skippedStringsEndAtTheirClosingQuoteWhateverTheirBackslashesAndQuotes() {
        Json json = Json.standard();
        java.util.Random random = new java.util.Random(14);
        String alphabet = "ab\\\"\\\\é{}[],:";
        for (int n = 0; n < 2000; n++) {
            var doc = json.mapper().createObjectNode();
            for (int f = 0; f < 3; f++) {
                StringBuilder text = new StringBuilder();
                for (int i = random.nextInt(40); i > 0; i--) {
                    text.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                doc.put("s" + f, text.toString());
                doc.putArray("a" + f).add(text.toString()).addObject().put("x\"", text.toString());
            }
            doc.put("kept", n);
            assertThat(read(List.of("kept"), doc.toString())).as(doc.toString()).isEqualTo("{\"kept\":" + n + "}");
        }
    }
}
