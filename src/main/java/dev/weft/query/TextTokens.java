package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How text search cuts and normalizes words. A word is a run of letters, digits and combining
 * marks, with apostrophes inside it ({@code don't} is one word, a stop word); everything else
 * (spaces, punctuation, hyphens) separates words, as MongoDB's tokenizer does. A term is a word
 * lower-cased, stripped of diacritics (unless asked to keep them), dropped if a stop word of its
 * language, stemmed. A case-sensitive term also carries the case of the letters its stem keeps.
 */
final class TextTokens {
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");

    private TextTokens() {}

    /** The words of {@code text}, each a substring of it unless a typographic apostrophe is rewritten in it. */
    static List<String> words(String text) {
        List<String> out = new ArrayList<>();
        int n = text.length();
        int start = -1;
        StringBuilder rewritten = null;
        for (int i = 0; i < n; ) {
            int c = text.codePointAt(i);
            int width = Character.charCount(c);
            if (wordChar(c)) {
                start = start < 0 ? i : start;
                if (rewritten != null) {
                    rewritten.appendCodePoint(c);
                }
            } else if ((c == '\'' || c == '\u2019') && start >= 0 && i + width < n && wordChar(text.codePointAt(i + width))) {
                if (c != '\'' && rewritten == null) {
                    rewritten = new StringBuilder().append(text, start, i);
                }
                if (rewritten != null) {
                    rewritten.append('\'');
                }
            } else if (start >= 0) {
                out.add(rewritten != null ? rewritten.toString() : text.substring(start, i));
                start = -1;
                rewritten = null;
            }
            i += width;
        }
        if (start >= 0) {
            out.add(rewritten != null ? rewritten.toString() : text.substring(start));
        }
        return out;
    }

    private static boolean wordChar(int c) {
        if (Character.isLetterOrDigit(c)) {
            return true;
        }
        int type = Character.getType(c);
        return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK;
    }

    /** {@code text} without diacritics (canonical decomposition, marks dropped). */
    static String stripDiacritics(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) >= 0x80) {
                return MARKS.matcher(Normalizer.normalize(text, Normalizer.Form.NFD)).replaceAll("");
            }
        }
        return text;
    }

    static String lower(String text) {
        return text.toLowerCase(Locale.ROOT);
    }

    /** Terms of words seen lately (most text repeats a small vocabulary): stemming is most of a search's time. */
    private static final int CACHED_TERMS = 100_000;
    /** Longer words are stemmed each time, so the cache's memory stays bounded (about 8 maps of 100,000 short words). */
    private static final int CACHED_WORD_CHARS = 40;
    /** One cache per language and case and diacritic sensitivity, keyed by the word. */
    private static final List<java.util.concurrent.ConcurrentHashMap<String, String>> TERMS = java.util.stream.IntStream
            .range(0, TextLanguage.values().length * 4).mapToObj(i -> new java.util.concurrent.ConcurrentHashMap<String, String>())
            .toList();
    private static final String STOP = "";

    /** The term of {@code word} in {@code language}, or null for a stop word. */
    static String term(String word, TextLanguage language, boolean keepCase, boolean keepDiacritics) {
        if (word.length() > CACHED_WORD_CHARS) {
            return derive(word, language, keepCase, keepDiacritics);
        }
        var terms = TERMS.get(language.ordinal() * 4 + (keepCase ? 2 : 0) + (keepDiacritics ? 1 : 0));
        String cached = terms.get(word);
        if (cached == null) {
            if (terms.size() >= CACHED_TERMS) {
                terms.clear();
            }
            String term = derive(word, language, keepCase, keepDiacritics);
            cached = term == null ? STOP : term;
            terms.put(word, cached);
        }
        return cached.isEmpty() ? null : cached;
    }

    /**
     * Adds the index terms of {@code text} (case and diacritics folded) to {@code into}:
     * {@code term(word, language, false, false)} of
     * each of its {@link #words}, stop words left out. Text of ASCII characters alone (most text)
     * is cut here from its bytes, without a String per word: its words are runs of ASCII letters
     * and digits with apostrophes inside, their terms found in {@link AsciiTerms} by their bytes.
     * The bytes are tested for ASCII as they are cut: at the first that is not, the terms added
     * so far are taken back and the whole text goes the general way.
     */
    static void addTerms(String text, TextLanguage language, TermsText into) {
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        int mark = into.reserve(utf8.length);
        if (!addAsciiTerms(utf8, language, into)) {
            into.truncate(mark);
            for (String word : words(text)) {
                add(into, term(word, language, false, false));
            }
        }
    }

    /** {@link #addTerms} of ASCII text from its UTF-8 bytes; false, part way, at a byte that is not ASCII. */
    private static boolean addAsciiTerms(byte[] utf8, TextLanguage language, TermsText into) {
        AsciiTerms terms = ASCII_TERMS.get(language.ordinal());
        int n = utf8.length;
        int i = 0;
        while (i < n) {
            byte kind = KIND[utf8[i] & 0xFF];
            if (kind != WORD) {
                if (kind == PAST_ASCII) {
                    return false;
                }
                i++;
                continue;
            }
            int start = i;
            int hash = 0;
            do {
                hash = 31 * hash + utf8[i];
                i++;
            } while (i < n && (KIND[utf8[i] & 0xFF] == WORD || utf8[i] == '\'' && i + 1 < n && KIND[utf8[i + 1] & 0xFF] == WORD));
            if (!terms.add(utf8, start, i, hash, into)) {
                String word = new String(utf8, start, i - start, StandardCharsets.ISO_8859_1);
                String term = term(word, language, false, false);
                add(into, term);
                terms.learn(word, term);
            }
        }
        return true;
    }

    /** The index terms of ASCII words by language ({@link TextLanguage#ordinal}). */
    private static final List<AsciiTerms> ASCII_TERMS = Arrays.stream(TextLanguage.values()).map(l -> new AsciiTerms()).toList();

    private static void add(TermsText into, String term) {
        if (term != null) {
            into.add(term);
        }
    }

    /** What a byte of UTF-8 text is to {@link #addAsciiTerms}: a separator, a character of a word ({@link #wordChar} below U+0080: an ASCII letter or digit), or a byte past ASCII. */
    private static final byte SEPARATOR = 0;
    private static final byte WORD = 1;
    private static final byte PAST_ASCII = 2;
    /** {@link #SEPARATOR}, {@link #WORD} or {@link #PAST_ASCII} by unsigned byte value. */
    private static final byte[] KIND = new byte[256];

    static {
        for (int c = 0; c < 256; c++) {
            KIND[c] = c >= 0x80 ? PAST_ASCII : Character.isLetterOrDigit(c) ? WORD : SEPARATOR;
        }
    }

    private static String derive(String word, TextLanguage language, boolean keepCase, boolean keepDiacritics) {
        String folded = stripDiacritics(lower(word));
        if (language.stopWord(folded)) {
            return null;
        }
        String stem = language.stem(keepDiacritics ? lower(word) : folded);
        if (!keepCase) {
            return stem;
        }
        String cased = keepDiacritics ? word : stripDiacritics(word);
        StringBuilder mask = new StringBuilder(stem).append('\u0001');
        for (int i = 0; i < Math.min(stem.length(), cased.length()); i++) {
            mask.append(Character.isUpperCase(cased.charAt(i)) ? 'U' : 'l');
        }
        return mask.toString();
    }

    /** {@code text} as a phrase is compared: lower-cased and without diacritics unless kept. */
    static String phraseForm(String text, boolean keepCase, boolean keepDiacritics) {
        String s = keepCase ? text : lower(text);
        return keepDiacritics ? s : stripDiacritics(s);
    }
}
