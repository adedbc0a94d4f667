package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import tools.jackson.databind.JsonNode;

/**
 * What a MongoDB text index covers: its fields with their weights (the wildcard {@code $**}
 * covers every string of a document, a field of its own keeping its weight), the language of
 * documents that name none, and the field naming a document's own language
 * ({@code language_override}, {@code "language"} by default). Its keys are the terms of those
 * strings ({@link TextTokens}): lower-cased, without diacritics, stemmed in the document's
 * language, stop words left out. A document with more than {@code maxKeys} terms is indexed
 * under the one key {@link Trigrams#OVERFLOW} and so is a candidate of every search.
 */
public record TextIndex(Map<String, Integer> weights, TextLanguage defaultLanguage, String languageOverride) {
    public static final String WILDCARD = "$**";
    public static final String DEFAULT_OVERRIDE = "language";

    public TextIndex {
        weights = Map.copyOf(weights);
    }

    public boolean wildcard() {
        return weights.containsKey(WILDCARD);
    }

    /** The paths the index reads ("" for the whole document when it has the wildcard), for access checks and pruning. */
    public List<String> paths() {
        if (wildcard()) {
            return List.of("");
        }
        List<String> out = new java.util.ArrayList<>(weights.keySet());
        out.add(languageOverride);
        return out;
    }

    /** The language a document is indexed in: its override field when a string (400 when Weft does not know it). */
    public TextLanguage language(JsonNode doc) {
        JsonNode own = doc.get(languageOverride);
        return own != null && own.isString() ? TextLanguage.named(own.stringValue()) : defaultLanguage;
    }

    /** Visits every string the index covers with its field's weight, array elements one by one. */
    void strings(JsonNode doc, BiConsumer<String, Integer> visit) {
        if (wildcard()) {
            everyString(doc, "", visit);
            return;
        }
        weights.forEach((field, weight) -> Path.of(field).walk(doc, leaf -> {
            if (leaf != null && leaf.isArray()) {
                leaf.forEach(e -> {
                    if (e.isString()) {
                        visit.accept(e.stringValue(), weight);
                    }
                });
            } else if (leaf != null && leaf.isString()) {
                visit.accept(leaf.stringValue(), weight);
            }
            return false;
        }));
    }

    private void everyString(JsonNode node, String path, BiConsumer<String, Integer> visit) {
        if (node.isString()) {
            visit.accept(node.stringValue(), weights.getOrDefault(path, weights.get(WILDCARD)));
        } else if (node.isArray()) {
            node.forEach(e -> everyString(e, path, visit));
        } else if (node.isObject()) {
            node.properties().forEach(e -> everyString(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey(), visit));
        }
    }

    /** The document's keys in this index: its distinct terms, or {@link Trigrams#OVERFLOW} past {@code maxKeys}. */
    public TreeSet<byte[]> keys(JsonNode doc, int maxKeys) {
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        TextLanguage language = language(doc);
        strings(doc, (text, weight) -> {
            for (String word : TextTokens.words(text)) {
                String term = TextTokens.term(word, language, false, false);
                if (term != null) {
                    keys.add(term.getBytes(StandardCharsets.UTF_8));
                }
            }
        });
        if (keys.size() > maxKeys) {
            keys.clear();
            keys.add(Trigrams.OVERFLOW);
        }
        return keys;
    }

    /**
     * The index's distinct weights, heaviest first: a store keeps a document's terms apart by
     * weight (a column each on SQLite, a weight label each on PostgreSQL) so its ranking weighs
     * them as the index does.
     */
    public List<Integer> weightClasses() {
        return weights.values().stream().distinct().sorted(java.util.Comparator.reverseOrder()).toList();
    }

    /**
     * The document's terms in this index by weight class ({@link #weightClasses}, same order),
     * each class's terms in the order of its strings and words, space-joined (a term holds no
     * space): what a store's own full-text table holds of it, with whether JSON holds them as
     * they are ({@link TermsByWeight#jsonPlain}).
     */
    public TermsByWeight termsByWeight(JsonNode doc) {
        int[] distinct = distinctWeights();
        TermsText[] out = new TermsText[distinct.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = new TermsText();
        }
        TextLanguage language = language(doc);
        strings(doc, (text, weight) -> TextTokens.addTerms(text, language, out[heavier(distinct, weight)]));
        String[] terms = new String[out.length];
        boolean jsonPlain = true;
        for (int i = 0; i < out.length; i++) {
            terms[i] = out[i].toString();
            jsonPlain &= out[i].jsonPlain();
        }
        return new TermsByWeight(Arrays.asList(terms), jsonPlain);
    }

    /** The index's distinct weights, in no order: {@link #weightClasses} without sorting or boxing, as each inserted document asks. */
    private int[] distinctWeights() {
        int[] distinct = new int[weights.size()];
        int seen = 0;
        for (int w : weights.values()) {
            boolean again = false;
            for (int k = 0; k < seen && !again; k++) {
                again = distinct[k] == w;
            }
            if (!again) {
                distinct[seen++] = w;
            }
        }
        return Arrays.copyOf(distinct, seen);
    }

    /** How many of the {@code distinct} weights are heavier than {@code weight}: a weight's place in {@link #weightClasses}. */
    private static int heavier(int[] distinct, int weight) {
        int count = 0;
        for (int w : distinct) {
            count += w > weight ? 1 : 0;
        }
        return count;
    }

    /**
     * MongoDB's relevance of a document to {@code terms} (index terms): for each string, each term
     * scores weight × frequency (1 + 1/2 + 1/4 ... for its repetitions) × (1/2 + 1/2 × its share of
     * the string's terms), ×1.1 when it is the whole string; summed over strings and terms.
     */
    double score(JsonNode doc, java.util.Set<String> terms) {
        TextLanguage language = language(doc);
        double[] total = {0};
        strings(doc, (text, weight) -> {
            Map<String, double[]> stats = new HashMap<>(); // term -> {count, freq}
            int tokens = 0;
            for (String word : TextTokens.words(text)) {
                String term = TextTokens.term(word, language, false, false);
                if (term == null) {
                    continue;
                }
                tokens++;
                double[] s = stats.computeIfAbsent(term, t -> new double[2]);
                s[1] += 1 / Math.pow(2, s[0]);
                s[0]++;
            }
            for (String term : terms) {
                double[] s = stats.get(term);
                if (s != null) {
                    double coefficient = 0.5 * s[0] / tokens + 0.5;
                    double whole = text.equalsIgnoreCase(term) ? 1.1 : 1;
                    total[0] += weight * s[1] * coefficient * whole;
                }
            }
        });
        return total[0];
    }
}
