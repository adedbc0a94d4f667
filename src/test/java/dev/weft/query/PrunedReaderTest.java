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
