package dev.weft.query;

import com.google.re2j.SyntaxTrees;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The literals every string a regular expression finds a match in must contain, read from RE2J's
 * parse tree as in Russ Cox's "Regular Expression Matching with a Trigram Index": each node is
 * either an exact set (the few strings it can match, e.g. {@code ab|cd}) or a condition (an
 * AND/OR of required literals); concatenation crosses exact sets while they stay small,
 * alternation unions them, and anything unbounded ({@code .}, {@code x*}, large classes) ends a
 * set, keeping what was required before it. Case-folded literals become ASCII case-insensitive
 * literals (split where a fold leaves ASCII).
 *
 * <p>A search matches anywhere in the string, so the result is a condition on substrings: sound
 * (every matching string satisfies it), not complete. A later trigram index can reuse it.
 */
public final class RegexLiterals {
    /** Largest exact set kept before it is turned into a condition. */
    private static final int MAX_EXACT = 16;
    /** Largest character class expanded into an exact set. */
    private static final int MAX_CLASS = 4;

    private RegexLiterals() {}

    /**
     * The condition for {@code pattern} compiled with RE2J {@code Pattern} flags
     * ({@code CASE_INSENSITIVE} etc.); {@link TextCondition#ALWAYS} when nothing is required or
     * the pattern does not parse.
     */
    public static TextCondition required(String pattern, int flags) {
        SyntaxTrees.Node tree;
        try {
            tree = SyntaxTrees.parse(pattern, flags);
        } catch (RuntimeException e) {
            return TextCondition.ALWAYS;
        }
        return info(tree).condition();
    }

    /** A node's literal facts: {@code exact} (null when unbounded) or else {@code match}. */
    private record Info(Set<String> exact, TextCondition match) {
        static Info exactly(Set<String> strings) {
            return new Info(strings, null);
        }

        static Info matching(TextCondition c) {
            return new Info(null, c);
        }

        TextCondition condition() {
            if (exact == null) {
                return match;
            }
            List<TextCondition> any = new ArrayList<>();
            for (String s : exact) {
                any.add(s.isEmpty() ? TextCondition.ALWAYS : TextCondition.inString(s, false));
            }
            return TextCondition.or(any);
        }
    }

    private static final Info EMPTY = Info.exactly(Set.of(""));
    private static final Info UNKNOWN = Info.matching(TextCondition.ALWAYS);

    private static Info info(SyntaxTrees.Node n) {
        return switch (n.op()) {
            case "EMPTY_MATCH", "BEGIN_LINE", "END_LINE", "BEGIN_TEXT", "END_TEXT", "WORD_BOUNDARY",
                 "NO_WORD_BOUNDARY" -> EMPTY;
            case "LITERAL" -> literal(n);
            case "CHAR_CLASS" -> charClass(n);
            case "CAPTURE" -> info(n.subs().get(0));
            case "QUEST" -> {
                Info sub = info(n.subs().get(0));
                if (sub.exact() == null) {
                    yield UNKNOWN;
                }
                Set<String> s = new LinkedHashSet<>(sub.exact());
                s.add("");
                yield s.size() <= MAX_EXACT ? Info.exactly(s) : UNKNOWN;
            }
            case "PLUS" -> Info.matching(info(n.subs().get(0)).condition());
            case "REPEAT" -> n.min() == 0 ? UNKNOWN : Info.matching(info(n.subs().get(0)).condition());
            case "CONCAT" -> concat(n.subs());
            case "ALTERNATE" -> alternate(n.subs());
            default -> UNKNOWN; // ANY_CHAR, STAR, NO_MATCH (no string matches: any condition holds)
        };
    }

    private static Info literal(SyntaxTrees.Node n) {
        String s = new String(n.runes(), 0, n.runes().length);
        if (n.foldCase()) {
            return Info.matching(TextCondition.inString(s, true));
        }
        return Info.exactly(Set.of(s));
    }

    private static Info charClass(SyntaxTrees.Node n) {
        int[] ranges = n.runes();
        Set<String> chars = new LinkedHashSet<>();
        for (int i = 0; i + 1 < ranges.length; i += 2) {
            if (ranges[i + 1] - ranges[i] + chars.size() >= MAX_CLASS) {
                return UNKNOWN;
            }
            for (int c = ranges[i]; c <= ranges[i + 1]; c++) {
                chars.add(new String(Character.toChars(c)));
            }
        }
        return chars.isEmpty() ? UNKNOWN : Info.exactly(chars);
    }

    private static Info concat(List<SyntaxTrees.Node> subs) {
        List<TextCondition> required = new ArrayList<>();
        Set<String> run = Set.of("");
        for (SyntaxTrees.Node sub : subs) {
            Info i = info(sub);
            if (i.exact() != null && (long) run.size() * i.exact().size() <= MAX_EXACT) {
                run = cross(run, i.exact());
                continue;
            }
            required.add(Info.exactly(run).condition());
            if (i.exact() != null) {
                run = i.exact();
            } else {
                required.add(i.match());
                run = Set.of("");
            }
        }
        if (required.isEmpty()) {
            return Info.exactly(run);
        }
        required.add(Info.exactly(run).condition());
        return Info.matching(TextCondition.and(required));
    }

    private static Set<String> cross(Set<String> a, Set<String> b) {
        Set<String> out = new LinkedHashSet<>();
        for (String x : a) {
            for (String y : b) {
                out.add(x + y);
            }
        }
        return out;
    }

    private static Info alternate(List<SyntaxTrees.Node> subs) {
        Set<String> union = new LinkedHashSet<>();
        List<TextCondition> any = new ArrayList<>();
        boolean exact = true;
        for (SyntaxTrees.Node sub : subs) {
            Info i = info(sub);
            if (exact && i.exact() != null && union.size() + i.exact().size() <= MAX_EXACT) {
                union.addAll(i.exact());
            } else {
                exact = false;
            }
            any.add(i.condition());
        }
        return exact ? Info.exactly(union) : Info.matching(TextCondition.or(any));
    }
}
