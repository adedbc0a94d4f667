package dev.weft.http;

import static dev.weft.http.TestServer.q;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Filters whose literals the store pushes into SQL as a prefilter on the stored JSON text answer
 * exactly what the filter means: escaped characters, case folds that leave ASCII, literals found
 * in another field, every list shape (ordered, sorted, counted, by an index).
 */
class TextPrefilterHttpTest {
    private static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
        weft.createCollection("db", "t");
        String docs = """
                [{"_id": 1, "s": "say \\"hi\\" now", "o": "x"},
                 {"_id": 2, "s": "tab\\there", "o": "say"},
                 {"_id": 3, "s": "\u212Aelvin \u017Fign", "o": "apache"},
                 {"_id": 4, "s": "KELVIN SIGN", "o": "y"},
                 {"_id": 5, "s": "back\\\\slash", "l": ["pach", "z"]},
                 {"_id": 6, "s": "x", "o": "projects.apache.org", "l": [{"u": "https://pach.example"}]},
                 {"_id": 7, "s": "caf\u00e9 \uD83D\uDE00", "n": 5}]
                """;
        HttpResponse<String> r = weft.post("/db/t", docs);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(weft.put("/db/t/_indexes/by_o", "{\"keys\":{\"o\":1}}").statusCode()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    @Test
    void regexLiteralsWithEscapedCharactersStillFindTheirDocuments() throws Exception {
        assertThat(find("{\"s\":{\"$regex\":\"say \\\"hi\"}}")).containsExactly(1);
        assertThat(find("{\"s\":{\"$regex\":\"b\\th\"}}")).containsExactly(2);
        assertThat(find("{\"s\":{\"$regex\":\"k\\\\\\\\s\"}}")).containsExactly(5);
        assertThat(find("{\"s\":\"say \\\"hi\\\" now\"}")).containsExactly(1);
        assertThat(find("{\"s\":{\"$in\":[\"tab\\there\",\"x\"]}}")).containsExactly(2, 6);
        assertThat(find("{\"s\":{\"$regex\":\"\u00e9 \uD83D\uDE00\"}}")).containsExactly(7);
    }

    @Test
    void caseInsensitiveRegexesFindFoldsBeyondAscii() throws Exception {
        assertThat(find("{\"s\":{\"$regex\":\"kelvin\",\"$options\":\"i\"}}")).containsExactly(3, 4);
        assertThat(find("{\"s\":{\"$regex\":\"(?i)sign\"}}")).containsExactly(3, 4);
        assertThat(find("{\"s\":{\"$regex\":\"ELVIN\",\"$options\":\"i\"}}")).containsExactly(3, 4);
    }

    @Test
    void aLiteralInAnotherFieldIsNoMatch() throws Exception {
        assertThat(find("{\"s\":{\"$regex\":\"apache\"}}")).isEmpty();
        assertThat(find("{\"o\":\"say\"}")).containsExactly(2);
        assertThat(find("{\"l.u\":{\"$regex\":\".*pach.*\"}}")).containsExactly(6);
        assertThat(find("{\"l\":\"pach\"}")).containsExactly(5);
    }

    @Test
    void sortedCountedAndIndexedReadsAgree() throws Exception {
        String f = q("{\"$or\":[{\"o\":{\"$regex\":\"apache\"}},{\"s\":{\"$regex\":\"^KEL\"}}]}");
        assertThat(ids(weft.get("/db/t?filter=" + f + "&sort=" + q("{\"o\":-1}")))).containsExactly(4, 6, 3);
        assertThat(ids(weft.get("/db/t?filter=" + f + "&sort=" + q("{\"n\":1}")))).containsExactly(3, 4, 6);
        HttpResponse<String> size = weft.get("/db/t/_size?filter=" + f);
        assertThat(size.body()).isEqualTo("{\"_size\":3}");
        assertThat(ids(weft.get("/db/t?filter=" + q("{\"o\":{\"$in\":[\"apache\",\"say\"]},\"s\":{\"$regex\":\"e\"}}")
                + "&hint=by_o"))).containsExactly(3, 2);
    }

    private static List<Integer> find(String filter) throws Exception {
        return ids(weft.get("/db/t?filter=" + q(filter) + "&sort=" + q("{\"_id\":1}")));
    }

    private static List<Integer> ids(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<Integer> out = new ArrayList<>();
        for (JsonNode d : Json.standard().parse(r.body(), "answer")) {
            out.add(d.get("_id").asInt());
        }
        return out;
    }
}
