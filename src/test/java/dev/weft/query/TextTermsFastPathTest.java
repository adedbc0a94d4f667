package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link TextTokens#addTerms} (ASCII text cut from its bytes, terms from {@link AsciiTerms})
 * against the general path it stands for: the terms of {@link TextTokens#words}, each
 * {@link TextTokens#term}, space-joined; on random strings of ASCII and of letters past it.
 */
class TextTermsFastPathTest {
    private static final String[] WORDS = {"running", "Running", "RUNNING", "don't", "Don't", "it's", "I'm", "the", "The",
        "caresses", "ponies", "generously", "consignment", "café", "Café", "naïve", "rock'n'roll", "o'clock", "abc123",
        "123", "x", "a", "I", "ab'", "'ab", "hopping", "skies", "dying", "news", "yesterday", "Ünïcödé", "straße",
        "İstanbul", "ﬁne", "don’t", "e\u0301te\u0301", "漢字", "٣٤", "😀", "tables", "relational", "connection"};
    private static final String ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '-.,;!?\"()\t\n_";
    private static final String[] PAST_ASCII = {"é", "É", "ü", "\u0301", "\u0308", "ß", "İ", "ﬁ", "’", "٣", "😀", "漢", "\u00a0",
        "ª", "\u2019", "Ω"};

    /** The reference: the general path, word by word. */
    private static String general(String text, TextLanguage language) {
        List<String> terms = new ArrayList<>();
        for (String word : TextTokens.words(text)) {
            String term = TextTokens.term(word, language, false, false);
            if (term != null) {
                terms.add(term);
            }
        }
        return String.join(" ", terms);
    }

    private static String fast(String text, TextLanguage language) {
        TermsText out = new TermsText();
        TextTokens.addTerms(text, language, out);
        return out.toString();
    }

    private static String randomText(Random random) {
        StringBuilder s = new StringBuilder();
        boolean asciiOnly = random.nextInt(3) > 0;
        int parts = random.nextInt(12);
        for (int p = 0; p < parts; p++) {
            switch (random.nextInt(asciiOnly ? 3 : 4)) {
                case 0 -> {
                    String w = WORDS[random.nextInt(WORDS.length)];
                    s.append(asciiOnly ? w.replaceAll("[^\\x00-\\x7f]", "") : w);
                }
                case 1 -> {
                    int n = 1 + random.nextInt(8);
                    for (int i = 0; i < n; i++) {
                        s.append(ASCII.charAt(random.nextInt(ASCII.length())));
                    }
                }
                case 2 -> s.append(random.nextBoolean() ? " " : random.nextBoolean() ? "'" : "-");
                default -> s.append(PAST_ASCII[random.nextInt(PAST_ASCII.length)]);
            }
        }
        return s.toString();
    }

    @Test
    void givesTheTermsOfTheGeneralPathOnRandomText() {
        Random random = new Random(22);
        for (int i = 0; i < 20_000; i++) {
            String text = randomText(random);
            for (TextLanguage language : TextLanguage.values()) {
                // twice: the second time the words are looked up where the first learnt them
                assertThat(fast(text, language)).as("%s in %s", text, language).isEqualTo(general(text, language));
                assertThat(fast(text, language)).as("%s in %s", text, language).isEqualTo(general(text, language));
            }
        }
    }

    @Test
    void givesTheTermsOfTheGeneralPathOnEdgeCases() {
        for (String text : List.of("", " ", "'", "''", "a'", "'a", "a''b", "a'b'c", "don't'", "it's-", "A'B", "x'\u00e9",
                "\u00e9'x", "Running runs RAN", "1'2", "the The THE", "ab\u0301c", "a".repeat(41), "b".repeat(40) + "s",
                "Caf\u00e9 caf\u00e9 CAFE\u0301", "don\u2019t stop", "a\u00a0b", "tab\tnew\nline")) {
            for (TextLanguage language : TextLanguage.values()) {
                assertThat(fast(text, language)).as("%s in %s", text, language).isEqualTo(general(text, language));
                assertThat(fast(text, language)).as("%s in %s", text, language).isEqualTo(general(text, language));
            }
        }
    }

    @Test
    void aPackedTableAnswersEachLearntWordsTermAndNothingForOthers() {
        AsciiTerms terms = new AsciiTerms();
        Random random = new Random(7);
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 3 * AsciiTerms.MAX_WORDS; i++) { // more than it holds: it starts over
            words.add(Integer.toString(random.nextInt(), 36).replace('-', 'q') + "w");
        }
        for (int round = 0; round < 2; round++) {
            for (String word : words) {
                byte[] bytes = ("<" + word + ">").getBytes(StandardCharsets.US_ASCII);
                TermsText out = new TermsText();
                if (terms.add(bytes, 1, bytes.length - 1, word.hashCode(), out)) {
                    assertThat(out.toString()).as(word).isEqualTo(word.length() % 3 == 0 ? "" : word.toUpperCase());
                } else {
                    assertThat(out.toString()).isEmpty();
                    terms.learn(word, word.length() % 3 == 0 ? null : word.toUpperCase()); // some stop words
                }
            }
        }
    }

    @Test
    void aPackedTableFindsTheWordsItWasTaught() {
        AsciiTerms terms = new AsciiTerms();
        List<String> words = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            words.add("w" + i);
        }
        for (int round = 0; round < 3; round++) {
            words.forEach(w -> {
                byte[] bytes = w.getBytes(StandardCharsets.US_ASCII);
                if (!terms.add(bytes, 0, bytes.length, w.hashCode(), new TermsText())) {
                    terms.learn(w, "t" + w);
                }
            });
        }
        int found = 0;
        for (String w : words) {
            byte[] bytes = w.getBytes(StandardCharsets.US_ASCII);
            TermsText out = new TermsText();
            if (terms.add(bytes, 0, bytes.length, w.hashCode(), out)) {
                found++;
                assertThat(out.toString()).isEqualTo("t" + w);
            }
        }
        // words learnt since the last copy of the table (fewer than a 32nd of it) are not in it yet
        assertThat(found).isGreaterThan(words.size() - words.size() / 32);
    }
}
