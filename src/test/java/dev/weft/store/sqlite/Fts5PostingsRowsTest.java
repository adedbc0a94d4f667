package dev.weft.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;

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
}
