package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The stemmer, the tokenizer and MongoDB's $text semantics and score, on documents in memory. */
class TextSearchTest {
    private static final Json JSON = Json.standard();
    private static final TextIndex SUBJECT = new TextIndex(Map.of("subject", 1), TextLanguage.ENGLISH, "language");

    @Test
    void stemsAsSnowballEnglish() {
        Map<String, String> expected = Map.ofEntries(Map.entry("consigned", "consign"), Map.entry("consignment", "consign"),
                Map.entry("caresses", "caress"), Map.entry("ponies", "poni"), Map.entry("ties", "tie"), Map.entry("cats", "cat"),
                Map.entry("agreed", "agre"), Map.entry("hopping", "hop"), Map.entry("hoping", "hope"), Map.entry("running", "run"),
                Map.entry("blueberries", "blueberri"), Map.entry("coffee", "coffe"), Map.entry("shops", "shop"),
                Map.entry("baking", "bake"), Map.entry("relational", "relat"), Map.entry("connection", "connect"),
                Map.entry("abilities", "abil"), Map.entry("absolutely", "absolut"), Map.entry("according", "accord"),
                Map.entry("enjoying", "enjoy"), Map.entry("dying", "die"), Map.entry("news", "news"),
                Map.entry("generously", "generous"), Map.entry("knightly", "knight"), Map.entry("controlling", "control"),
                Map.entry("yesterday", "yesterday"), Map.entry("happily", "happili"), Map.entry("operator", "oper"));
        expected.forEach((word, stem) -> assertThat(EnglishStemmer.stem(word)).as(word).isEqualTo(stem));
    }

    @Test
    void cutsWordsAtPunctuationAndKeepsInnerApostrophes() {
        assertThat(TextTokens.words("Don't stop-the café, now!")).containsExactly("Don't", "stop", "the", "café", "now");
        assertThat(TextTokens.term("Don't", TextLanguage.ENGLISH, false, false)).isNull();
        assertThat(TextTokens.term("Café", TextLanguage.ENGLISH, false, false)).isEqualTo("cafe");
        assertThat(TextTokens.term("the", TextLanguage.NONE, false, false)).isEqualTo("the");
    }

    private static Filter text(String operand) {
        Filter f = Filter.parse(JSON.parse("{\"$text\":" + operand + "}", "t"), QueryLimits.defaults());
        f.textSearch().orElseThrow().bind(SUBJECT);
        return f;
    }

    private static List<Integer> matching(String operand, String... subjects) {
        Filter f = text(operand);
        List<Integer> out = new java.util.ArrayList<>();
        for (int i = 0; i < subjects.length; i++) {
            if (f.matches(Json.NODES.objectNode().put("subject", subjects[i]))) {
                out.add(i);
            }
        }
        return out;
    }

    /** The articles of MongoDB's $text manual page. */
    private static final String[] ARTICLES = {"coffee", "Coffee Shopping", "Baking a cake", "baking", "Café Con Leche",
            "Сырники", "coffee and cream", "Cafe con Leche"};

    @Test
    void mongoManualCases() {
        assertThat(matching("{\"$search\":\"coffee\"}", ARTICLES)).containsExactly(0, 1, 6);
        assertThat(matching("{\"$search\":\"bake coffee cake\"}", ARTICLES)).containsExactly(0, 1, 2, 3, 6);
        assertThat(matching("{\"$search\":\"\\\"coffee shop\\\"\"}", ARTICLES)).containsExactly(1);
        assertThat(matching("{\"$search\":\"coffee -shop\"}", ARTICLES)).containsExactly(0, 6);
        assertThat(matching("{\"$search\":\"leche\"}", ARTICLES)).containsExactly(4, 7);
        // the query unstemmed ("none") against documents stemmed in English: "shopping" is no term of theirs
        assertThat(matching("{\"$search\":\"shopping\",\"$language\":\"none\"}", ARTICLES)).isEmpty();
        assertThat(matching("{\"$search\":\"shopping\"}", ARTICLES)).containsExactly(1);
        assertThat(matching("{\"$search\":\"Coffee\",\"$caseSensitive\":true}", ARTICLES)).containsExactly(1);
        assertThat(matching("{\"$search\":\"\\\"Café Con Leche\\\"\",\"$caseSensitive\":true}", ARTICLES)).containsExactly(4);
        assertThat(matching("{\"$search\":\"CAFÉ\",\"$diacriticSensitive\":true}", ARTICLES)).containsExactly(4);
        assertThat(matching("{\"$search\":\"сы́рники CAFÉS\"}", ARTICLES)).containsExactly(4, 5, 7);
        assertThat(matching("{\"$search\":\"-coffee\"}", ARTICLES)).isEmpty();
        assertThat(matching("{\"$search\":\"the a\"}", ARTICLES)).isEmpty();
    }

    @Test
    void scoresRepeatedAndWeightedTermsHigher() {
        Filter f = text("{\"$search\":\"coffee\"}");
        TextSearch search = f.textSearch().orElseThrow();
        JsonNode once = JSON.parse("{\"subject\":\"coffee and cream\"}", "d");
        JsonNode alone = JSON.parse("{\"subject\":\"coffee\"}", "d");
        assertThat(search.score(alone)).isEqualTo(1.0); // the whole string is "coffee", not the term "coffe": no bonus
        assertThat(search.score(once)).isEqualTo(0.75);
        TextIndex weighted = new TextIndex(Map.of("title", 10, "body", 1), TextLanguage.ENGLISH, "language");
        search.bind(weighted);
        assertThat(search.score(JSON.parse("{\"title\":\"coffee now\",\"body\":\"coffee\"}", "d"))).isEqualTo(10 * 0.75 + 1.0);
    }

    @Test
    void refusesWhatMongoRefuses() {
        for (String bad : List.of("{\"$or\":[{\"$text\":{\"$search\":\"a\"}},{\"x\":1}]}", "{\"$text\":{\"$search\":1}}",
                "{\"$text\":{\"$search\":\"a\",\"$language\":\"klingon\"}}", "{\"$text\":{\"search\":\"a\"}}",
                "{\"$and\":[{\"$text\":{\"$search\":\"a\"}},{\"$text\":{\"$search\":\"b\"}}]}",
                "{\"a\":{\"$elemMatch\":{\"$text\":{\"$search\":\"a\"}}}}")) {
            assertThatThrownBy(() -> Filter.parse(JSON.parse(bad, "t"), QueryLimits.defaults())).as(bad)
                    .isInstanceOf(WeftException.class);
        }
        Filter unbound = Filter.parse(JSON.parse("{\"$text\":{\"$search\":\"a\"}}", "t"), QueryLimits.defaults());
        assertThatThrownBy(() -> unbound.matches(JSON.parse("{}", "d"))).hasMessage(TextSearch.NO_INDEX);
    }
}
