package dev.weft.query;

import java.util.Map;
import java.util.Set;

/**
 * The Snowball English ("Porter2") stemmer, as MongoDB's text indexes stem English: the
 * exceptional forms, steps 0 to 5 over the regions R1 and R2 (with the prefixes gener, commun
 * and arsen). Takes a lower-case word; returns its stem.
 */
final class EnglishStemmer {
    private static final Map<String, String> EXCEPTIONS = Map.ofEntries(
            Map.entry("skis", "ski"), Map.entry("skies", "sky"), Map.entry("dying", "die"), Map.entry("lying", "lie"),
            Map.entry("tying", "tie"), Map.entry("idly", "idl"), Map.entry("gently", "gentl"), Map.entry("ugly", "ugli"),
            Map.entry("early", "earli"), Map.entry("only", "onli"), Map.entry("singly", "singl"), Map.entry("sky", "sky"),
            Map.entry("news", "news"), Map.entry("howe", "howe"), Map.entry("atlas", "atlas"), Map.entry("cosmos", "cosmos"),
            Map.entry("bias", "bias"), Map.entry("andes", "andes"));
    private static final Set<String> AFTER_1A = Set.of("inning", "outing", "canning", "herring", "earring", "proceed",
            "exceed", "succeed");
    private static final String[][] STEP2 = {
            {"ization", "ize"}, {"ational", "ate"}, {"fulness", "ful"}, {"ousness", "ous"}, {"iveness", "ive"},
            {"tional", "tion"}, {"biliti", "ble"}, {"lessli", "less"}, {"entli", "ent"}, {"ation", "ate"},
            {"alism", "al"}, {"aliti", "al"}, {"ousli", "ous"}, {"iviti", "ive"}, {"fulli", "ful"}, {"enci", "ence"},
            {"anci", "ance"}, {"abli", "able"}, {"izer", "ize"}, {"ator", "ate"}, {"alli", "al"}, {"bli", "ble"},
            {"ogi", "og"}, {"li", ""}};
    private static final String[][] STEP3 = {
            {"ational", "ate"}, {"tional", "tion"}, {"alize", "al"}, {"icate", "ic"}, {"iciti", "ic"}, {"ative", ""},
            {"ical", "ic"}, {"ness", ""}, {"ful", ""}};
    private static final String[] STEP4 = {"ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate",
            "iti", "ous", "ive", "ize", "ion", "al", "er", "ic"};

    private EnglishStemmer() {}

    static String stem(String word) {
        if (word.length() <= 2) {
            return word;
        }
        String exception = EXCEPTIONS.get(word);
        if (exception != null) {
            return exception;
        }
        StringBuilder w = new StringBuilder(word.startsWith("'") ? word.substring(1) : word);
        markYs(w);
        int r1 = r1(w);
        int r2 = region(w, r1);
        step0(w);
        step1a(w);
        if (AFTER_1A.contains(w.toString())) {
            return w.toString();
        }
        step1b(w, r1);
        step1c(w);
        replaceIn(w, STEP2, r1, true);
        step3(w, r1, r2);
        step4(w, r2);
        step5(w, r1, r2);
        return w.toString().replace('Y', 'y');
    }

    private static boolean vowel(char c) {
        return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
    }

    /** An initial y, and a y after a vowel, are consonants: written Y. */
    private static void markYs(StringBuilder w) {
        for (int i = 0; i < w.length(); i++) {
            if (w.charAt(i) == 'y' && (i == 0 || vowel(w.charAt(i - 1)))) {
                w.setCharAt(i, 'Y');
            }
        }
    }

    private static int r1(StringBuilder w) {
        for (String prefix : new String[] {"gener", "commun", "arsen"}) {
            if (w.indexOf(prefix) == 0) {
                return prefix.length();
            }
        }
        return region(w, 0);
    }

    /** The start of the region after the first non-vowel following a vowel, from {@code from}. */
    private static int region(StringBuilder w, int from) {
        for (int i = from + 1; i < w.length(); i++) {
            if (!vowel(w.charAt(i)) && vowel(w.charAt(i - 1))) {
                return i + 1;
            }
        }
        return w.length();
    }

    private static boolean ends(StringBuilder w, String suffix) {
        int n = w.length() - suffix.length();
        return n >= 0 && w.indexOf(suffix, n) == n;
    }

    private static void cut(StringBuilder w, int n) {
        w.setLength(w.length() - n);
    }

    private static void step0(StringBuilder w) {
        for (String s : new String[] {"'s'", "'s", "'"}) {
            if (ends(w, s)) {
                cut(w, s.length());
                return;
            }
        }
    }

    private static void step1a(StringBuilder w) {
        if (ends(w, "sses")) {
            cut(w, 2);
        } else if (ends(w, "ied") || ends(w, "ies")) {
            cut(w, w.length() > 4 ? 2 : 1);
        } else if (ends(w, "us") || ends(w, "ss")) {
            return;
        } else if (ends(w, "s")) {
            for (int i = 0; i < w.length() - 2; i++) {
                if (vowel(w.charAt(i))) {
                    cut(w, 1);
                    return;
                }
            }
        }
    }

    private static void step1b(StringBuilder w, int r1) {
        for (String s : new String[] {"eedly", "eed"}) {
            if (ends(w, s)) {
                if (w.length() - s.length() >= r1) {
                    cut(w, s.length() - 2);
                }
                return;
            }
        }
        for (String s : new String[] {"ingly", "edly", "ing", "ed"}) {
            if (ends(w, s)) {
                int stem = w.length() - s.length();
                boolean hasVowel = false;
                for (int i = 0; i < stem; i++) {
                    hasVowel |= vowel(w.charAt(i));
                }
                if (!hasVowel) {
                    return;
                }
                cut(w, s.length());
                if (ends(w, "at") || ends(w, "bl") || ends(w, "iz")) {
                    w.append('e');
                } else if (endsDouble(w)) {
                    cut(w, 1);
                } else if (r1 >= w.length() && endsShortSyllable(w)) {
                    w.append('e');
                }
                return;
            }
        }
    }

    private static boolean endsDouble(StringBuilder w) {
        int n = w.length();
        return n >= 2 && w.charAt(n - 1) == w.charAt(n - 2) && "bdfgmnprt".indexOf(w.charAt(n - 1)) >= 0;
    }

    private static boolean endsShortSyllable(CharSequence w) {
        int n = w.length();
        if (n == 2) {
            return vowel(w.charAt(0)) && !vowel(w.charAt(1));
        }
        return n >= 3 && !vowel(w.charAt(n - 3)) && vowel(w.charAt(n - 2)) && !vowel(w.charAt(n - 1))
                && "wxY".indexOf(w.charAt(n - 1)) < 0;
    }

    private static void step1c(StringBuilder w) {
        int n = w.length();
        if (n > 2 && (w.charAt(n - 1) == 'y' || w.charAt(n - 1) == 'Y') && !vowel(w.charAt(n - 2))) {
            w.setCharAt(n - 1, 'i');
        }
    }

    /** The longest suffix of {@code table} the word ends with, replaced when it lies in the region from {@code from}. */
    private static void replaceIn(StringBuilder w, String[][] table, int from, boolean step2) {
        for (String[] entry : table) {
            if (!ends(w, entry[0])) {
                continue;
            }
            int start = w.length() - entry[0].length();
            if (start < from) {
                return;
            }
            if (step2 && entry[0].equals("ogi") && (start == 0 || w.charAt(start - 1) != 'l')) {
                return;
            }
            if (step2 && entry[0].equals("li") && (start == 0 || "cdeghkmnrt".indexOf(w.charAt(start - 1)) < 0)) {
                return;
            }
            w.setLength(start);
            w.append(entry[1]);
            return;
        }
    }

    private static void step3(StringBuilder w, int r1, int r2) {
        if (ends(w, "ative")) {
            if (w.length() - 5 >= r2 && w.length() - 5 >= r1) {
                cut(w, 5);
            }
            return;
        }
        replaceIn(w, STEP3, r1, false);
    }

    private static void step4(StringBuilder w, int r2) {
        for (String s : STEP4) {
            if (!ends(w, s)) {
                continue;
            }
            int start = w.length() - s.length();
            if (start < r2) {
                return;
            }
            if (s.equals("ion") && (start == 0 || (w.charAt(start - 1) != 's' && w.charAt(start - 1) != 't'))) {
                return;
            }
            w.setLength(start);
            return;
        }
    }

    private static void step5(StringBuilder w, int r1, int r2) {
        int last = w.length() - 1;
        if (last < 0) {
            return;
        }
        if (w.charAt(last) == 'e') {
            if (last >= r2 || (last >= r1 && !endsShortSyllable(w.subSequence(0, last)))) {
                cut(w, 1);
            }
        } else if (w.charAt(last) == 'l' && last >= r2 && last > 0 && w.charAt(last - 1) == 'l') {
            cut(w, 1);
        }
    }
}
