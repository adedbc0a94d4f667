package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.TermsByWeight;
import dev.weft.query.TextIndex;
import dev.weft.query.TextLanguage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The pending rows' JSON as {@link Fts5Postings#rows} writes it reads back as the rows, whatever the strings hold. */
class Fts5PostingsRowsTest {
    @Test
    void readsBackAsTheRowsJacksonWouldWrite() {
        Random random = new Random(5);
        String alphabet = "ab z'\"\\\u0001\n\té漢😀\u0301/";
        for (int i = 0; i < 2000; i++) {
            List<List<String>> rows = new ArrayList<>();
            ArrayNode expected = Json.NODES.arrayNode();
            for (int d = random.nextInt(4); d > 0; d--) {
                List<String> row = new ArrayList<>();
                ArrayNode node = expected.addArray();
                for (int c = random.nextInt(3); c > 0; c--) {
                    StringBuilder s = new StringBuilder();
                    for (int k = random.nextInt(6); k > 0; k--) {
                        s.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
                    }
                    row.add(s.toString());
                    node.add(s.toString());
                }
                rows.add(row);
            }
            assertThat(new ObjectMapper().readTree(Fts5Postings.rows(rows))).as(rows.toString()).isEqualTo(expected);
        }
    }

    /** Rows of the analyzer's terms (known JSON-plain, so not checked again) read back as they are, texts of quotes and controls too. */
    @Test
    void theAnalyzersTermsReadBackAsTheyAre() {
        TextIndex index = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.ENGLISH, TextIndex.DEFAULT_OVERRIDE);
        Random random = new Random(8);
        String alphabet = "ab z'\"\\\u0001\n\té漢\u0301/Runs";
        List<List<String>> rows = new ArrayList<>();
        ArrayNode expected = Json.NODES.arrayNode();
        for (int d = 0; d < 500; d++) {
            ObjectNode doc = Json.NODES.objectNode();
            for (String field : List.of("title", "body")) {
                StringBuilder s = new StringBuilder();
                for (int k = random.nextInt(40); k > 0; k--) {
                    s.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
                doc.put(field, s.toString());
            }
            TermsByWeight terms = index.termsByWeight(doc);
            assertThat(terms.jsonPlain()).isTrue();
            rows.add(terms);
            ArrayNode row = expected.addArray();
            terms.forEach(row::add);
        }
        assertThat(new ObjectMapper().readTree(Fts5Postings.rows(rows))).isEqualTo(expected);
    }
}
