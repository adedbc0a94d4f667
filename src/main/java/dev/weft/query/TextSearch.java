package dev.weft.query;

import dev.weft.core.WeftException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A {@code $text} query with MongoDB's semantics: {@code $search} holds words (any of which a
 * document must hold), {@code -word}s (none of which it may hold), {@code "phrases"} (each of
 * which it must hold, as written) and {@code -"phrases"}; {@code $language} stems and drops stop
 * words of the query (by default the index's language); {@code $caseSensitive} and
 * {@code $diacriticSensitive} make words and phrases match only as cased and accented.
 *
 * <p>It reads the collection's text index ({@link TextIndex}), which the store binds to it before
 * it is evaluated ({@link #bind}); 400 "text index required for $text query" (MongoDB's words)
 * when the collection has none.
 */
public final class TextSearch {
    /** MongoDB's message for a {@code $text} query on a collection without a text index. */
    public static final String NO_INDEX = "text index required for $text query";
    /** MongoDB's message for a textScore asked of a query or pipeline without {@code $text}. */
    public static final String NO_SCORE = "query requires text score metadata, but it is not available";
    /** MongoDB's message for a pipeline's {@code $text} match anywhere but its first stage. */
    public static final String NOT_FIRST_STAGE = "$match with $text is only allowed as the first pipeline stage";

    private final Optional<TextLanguage> language;
    private final boolean caseSensitive;
    private final boolean diacriticSensitive;
    private final List<String> words = new ArrayList<>();
    private final List<String> negatedWords = new ArrayList<>();
    private final List<String> phrases = new ArrayList<>();
    private final List<String> negatedPhrases = new ArrayList<>();
    private volatile TextIndex index;
    /** Whether the reader sees every document of the collection (see {@link #rankedByStore}). */
    private volatile boolean wholeCollectionReader;
    /** The terms of the words and -words as the bound index's language derives them (set by {@link #bind}). */
    private volatile Terms terms;

    private record Terms(Set<String> wanted, Set<String> negated, Set<String> scored) {}

    private TextSearch(Optional<TextLanguage> language, boolean caseSensitive, boolean diacriticSensitive) {
        this.language = language;
        this.caseSensitive = caseSensitive;
        this.diacriticSensitive = diacriticSensitive;
    }

    /** Parses the operand of {@code $text}; 400 for what MongoDB refuses. */
    static TextSearch parse(JsonNode operand) {
        if (operand == null || !operand.isObject()) {
            throw WeftException.badRequest("$text needs an object such as {\"$search\":\"coffee\"}");
        }
        for (String name : operand.propertyNames()) {
            if (!List.of("$search", "$language", "$caseSensitive", "$diacriticSensitive").contains(name)) {
                throw WeftException.badRequest("$text: unknown field " + name);
            }
        }
        JsonNode search = operand.get("$search");
        if (search == null || !search.isString()) {
            throw WeftException.badRequest("$text needs a $search string");
        }
        JsonNode lang = operand.get("$language");
        if (lang != null && !lang.isString()) {
            throw WeftException.badRequest("$language needs a string");
        }
        TextSearch out = new TextSearch(Optional.ofNullable(lang).map(l -> TextLanguage.named(l.stringValue())),
                flag(operand, "$caseSensitive"), flag(operand, "$diacriticSensitive"));
        out.read(search.stringValue());
        return out;
    }

    private static boolean flag(JsonNode operand, String name) {
        JsonNode v = operand.get(name);
        if (v != null && !v.isBoolean()) {
            throw WeftException.badRequest(name + " needs a boolean");
        }
        return v != null && v.booleanValue();
    }

    /** Splits {@code $search} into words, phrases and their negations, as MongoDB reads it. */
    private void read(String search) {
        int i = 0;
        int n = search.length();
        while (i < n) {
            char c = search.charAt(i);
            boolean negated = c == '-' && (i == 0 || Character.isWhitespace(search.charAt(i - 1)));
            int start = negated ? i + 1 : i;
            if (start < n && search.charAt(start) == '"') {
                int end = search.indexOf('"', start + 1);
                end = end < 0 ? n : end;
                String phrase = search.substring(start + 1, end);
                if (!phrase.isBlank()) {
                    (negated ? negatedPhrases : phrases).add(phrase);
                    if (!negated) {
                        words.addAll(TextTokens.words(phrase));
                    }
                }
                i = end + 1;
                continue;
            }
            int end = start;
            while (end < n && !Character.isWhitespace(search.charAt(end)) && search.charAt(end) != '"') {
                end++;
            }
            (negated ? negatedWords : words).addAll(TextTokens.words(search.substring(start, end)));
            i = Math.max(end, i + 1);
        }
    }

    /** Makes this search read {@code index} (the collection's text index). */
    public void bind(TextIndex index) {
        this.index = index;
        this.terms = new Terms(terms(words, caseSensitive, diacriticSensitive), terms(negatedWords, caseSensitive, diacriticSensitive),
                terms(words, false, false));
    }

    /** Says whether the reader of this search sees every document of the collection (false until said). */
    public void readerSeesEverything(boolean everything) {
        this.wholeCollectionReader = everything;
    }

    /**
     * Whether a store may rank this search with its own relevance score, which counts the
     * documents holding each term over the whole collection: only for a reader who sees every
     * document, since for another those counts would tell about documents it may not read.
     * Otherwise the score is MongoDB's per-document formula ({@link #score}).
     */
    public boolean rankedByStore() {
        return wholeCollectionReader;
    }

    /** The terms a document holds at least one of, as the index keeps them (empty: nothing matches). */
    public List<String> lookupTerms() {
        index();
        return List.copyOf(terms.scored());
    }

    public boolean bound() {
        return index != null;
    }

    public TextIndex index() {
        TextIndex i = index;
        if (i == null) {
            throw WeftException.badRequest(NO_INDEX);
        }
        return i;
    }

    private TextLanguage queryLanguage() {
        return language.orElse(index().defaultLanguage());
    }

    /** The index keys a matching document holds at least one of: its words' terms (empty: nothing matches). */
    public List<byte[]> lookupKeys() {
        index();
        List<byte[]> out = new ArrayList<>();
        for (String term : terms.scored()) {
            out.add(term.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private Set<String> terms(List<String> of, boolean keepCase, boolean keepDiacritics) {
        Set<String> out = new LinkedHashSet<>();
        TextLanguage lang = queryLanguage();
        for (String word : of) {
            String term = TextTokens.term(word, lang, keepCase, keepDiacritics);
            if (term != null) {
                out.add(term);
            }
        }
        return out;
    }

    /**
     * MongoDB's match: some word, no negated word, every phrase, no negated phrase. The words of
     * the document's strings are read only until the answer about words is known (a negated one
     * seen, or a wanted one when nothing is negated), and its strings kept for phrases only when
     * there are phrases.
     */
    boolean matches(JsonNode doc) {
        TextIndex idx = index();
        Set<String> wanted = terms.wanted();
        if (wanted.isEmpty()) {
            return false;
        }
        Set<String> negated = terms.negated();
        boolean forPhrases = !phrases.isEmpty() || !negatedPhrases.isEmpty();
        List<String> texts = new ArrayList<>();
        TextLanguage docLanguage = idx.language(doc);
        boolean[] held = new boolean[2]; // [0]: a wanted term, [1]: a negated one
        idx.strings(doc, (text, weight) -> {
            if (forPhrases) {
                texts.add(TextTokens.phraseForm(text, caseSensitive, diacriticSensitive));
            }
            if (held[1] || held[0] && negated.isEmpty()) {
                return;
            }
            for (String word : TextTokens.words(text)) {
                String term = TextTokens.term(word, docLanguage, caseSensitive, diacriticSensitive);
                if (term != null && negated.contains(term)) {
                    held[1] = true;
                    return;
                }
                if (term != null && wanted.contains(term)) {
                    held[0] = true;
                    if (negated.isEmpty()) {
                        return;
                    }
                }
            }
        });
        if (!held[0] || held[1]) {
            return false;
        }
        for (String phrase : phrases) {
            if (!contains(texts, phrase)) {
                return false;
            }
        }
        for (String phrase : negatedPhrases) {
            if (contains(texts, phrase)) {
                return false;
            }
        }
        return true;
    }

    private boolean contains(List<String> texts, String phrase) {
        String p = TextTokens.phraseForm(phrase, caseSensitive, diacriticSensitive);
        return texts.stream().anyMatch(t -> t.contains(p));
    }

    /** The document's {@code textScore} for this search (MongoDB's formula, {@link TextIndex#score}). */
    public double score(JsonNode doc) {
        return index().score(doc, terms.scored());
    }

    /** The paths this search reads once bound (none before). */
    Set<String> paths() {
        TextIndex i = index;
        return i == null ? Set.of() : new LinkedHashSet<>(i.paths());
    }

    @Override
    public String toString() {
        return "$text" + words + "-" + negatedWords + phrases + "-" + negatedPhrases;
    }
}
