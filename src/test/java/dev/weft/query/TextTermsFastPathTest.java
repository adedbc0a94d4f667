package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

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
                "Caf\u00e9 caf\u00e9 CAFE\u0301", "don\u2019t stop", "a\u00a0b", "tab\tnew\nline",
                // a byte past ASCII late in the text, after terms were added, or inside and after a word's apostrophe
                "running tables generously and then caf\u00e9", "ponies'\u00e9", "skies'x\u00e9 dying", "x\u0301",
                // words as long as the packed table keeps and longer, ASCII and not
                "connections".repeat(3) + "x".repeat(7), "connections".repeat(4), "Z".repeat(200) + "ing " + "q".repeat(39),
                "\u00e9".repeat(40) + " " + "a".repeat(39) + "\u00e9", "\u0000\u007f\u0080\uffff runs")) {
            for (TextLanguage language : TextLanguage.values()) {
                assertThat(fast(text, language)).as("%s in %s", text, language).isEqualTo(general(text, language));
                assertThat(fast(text, language)).as("%s in %s", text, language).isEqualTo(general(text, language));
            }
        }
    }

    /** Text of several strings into one TermsText, as the strings of one weight class go: a string past ASCII takes back only its own terms. */
    @Test
    void stringsPastAsciiAfterAsciiOnesKeepTheTermsBeforeThem() {
        Random random = new Random(5);
        for (int i = 0; i < 5_000; i++) {
            List<String> texts = List.of(randomText(random), randomText(random), randomText(random));
            TermsText out = new TermsText();
            List<String> expected = new ArrayList<>();
            for (String text : texts) {
                TextTokens.addTerms(text, TextLanguage.ENGLISH, out);
                String general = general(text, TextLanguage.ENGLISH);
                if (!general.isEmpty()) {
                    expected.add(general);
                }
            }
            assertThat(out.toString()).as("%s", texts).isEqualTo(String.join(" ", expected));
        }
    }

    /** A document's terms by weight class against the classes worked out as before: sorted distinct weights, heaviest first. */
    @Test
    void aDocumentsTermsGoToTheClassOfTheirFieldsWeight() {
        Random random = new Random(9);
        Map<String, Integer> weights = Map.of("a", 10, "b", 1, "c", 10, "d", 5, "e", 1);
        TextIndex index = new TextIndex(weights, TextLanguage.ENGLISH, TextIndex.DEFAULT_OVERRIDE);
        List<Integer> classes = index.weightClasses();
        assertThat(classes).containsExactly(10, 5, 1);
        for (int i = 0; i < 2_000; i++) {
            ObjectNode doc = dev.weft.core.Json.NODES.objectNode();
            for (String field : weights.keySet()) {
                if (random.nextInt(4) > 0) {
                    doc.put(field, randomText(random));
                }
            }
            List<List<String>> expected = new ArrayList<>();
            classes.forEach(c -> expected.add(new ArrayList<>()));
            index.strings(doc, (text, weight) -> {
                String general = general(text, TextLanguage.ENGLISH);
                if (!general.isEmpty()) {
                    expected.get(classes.indexOf(weight)).add(general);
                }
            });
            TermsByWeight terms = index.termsByWeight(doc);
            assertThat(terms).as("%s", doc).isEqualTo(expected.stream().map(t -> String.join(" ", t)).toList());
            // the texts hold quotes, backslashes and control characters between words; no term does
            assertThat(terms.jsonPlain()).as("%s", doc).isTrue();
            assertThat(terms).allMatch(TermsText::jsonPlain);
        }
    }

    /** A term that JSON would escape makes the text not JSON-plain; the packed table never learns one, so its terms stay plain. */
    @Test
    void aTermThatJsonEscapesIsToldAndNeverLearnt() {
        TermsText text = new TermsText();
        text.add("plain");
        assertThat(text.jsonPlain()).isTrue();
        for (String bad : List.of("a\"b", "a\\b", "a\u0001b", "\n")) {
            TermsText t = new TermsText();
            t.add("plain");
            t.add(bad);
            assertThat(t.jsonPlain()).as(bad).isFalse();
            assertThat(TermsText.jsonPlain(bad)).as(bad).isFalse();
        }
        AsciiTerms terms = new AsciiTerms();
        terms.learn("quoted", "quo\"ted");
        for (int i = 0; i < 64; i++) { // enough misses for the table to be copied with the words learnt
            terms.learn("w" + i, "t" + i);
        }
        byte[] quoted = "quoted".getBytes(StandardCharsets.US_ASCII);
        assertThat(terms.add(quoted, 0, quoted.length, "quoted".hashCode(), new TermsText())).isFalse();
        byte[] w1 = "w1".getBytes(StandardCharsets.US_ASCII);
        TermsText out = new TermsText();
        assertThat(terms.add(w1, 0, w1.length, "w1".hashCode(), out)).isTrue();
        assertThat(out.toString()).isEqualTo("t1");
    }

    @Test
    void aPackedTableHasTwiceAsManySlotsAsWordsAPowerOfTwoWithinItsBounds() {
        assertThat(AsciiTerms.slotsFor(0)).isEqualTo(1024);
        assertThat(AsciiTerms.slotsFor(512)).isEqualTo(1024);
        assertThat(AsciiTerms.slotsFor(513)).isEqualTo(2048);
        assertThat(AsciiTerms.slotsFor(5_000)).isEqualTo(16_384);
        assertThat(AsciiTerms.slotsFor(AsciiTerms.MAX_WORDS)).isEqualTo(2 * AsciiTerms.MAX_WORDS);
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
