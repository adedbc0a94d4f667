package com.google.re2j;

import java.util.ArrayList;
import java.util.List;

/**
 * RE2J's parse tree, read-only, for code outside RE2J: its {@code Parser} and {@code Regexp}
 * are package-private, and Weft reads the tree to find the literals every match must contain
 * ({@code dev.weft.query.RegexLiterals}). Lives in RE2J's package for that access only; it
 * copies the tree and changes nothing in RE2J.
 */
public final class SyntaxTrees {
    private SyntaxTrees() {}

    /** One node: {@code op} is RE2J's {@code Regexp.Op} name (LITERAL, CONCAT, ALTERNATE, STAR, ...). */
    public record Node(String op, boolean foldCase, int[] runes, List<Node> subs, int min, int max) {}

    /**
     * The tree RE2J builds for {@code pattern} compiled with {@link Pattern} {@code flags}
     * (as {@code Pattern.compile(pattern, flags)} parses it); throws
     * {@link PatternSyntaxException} as compiling would.
     */
    public static Node parse(String pattern, int flags) {
        int re2 = RE2.PERL;
        if ((flags & Pattern.DISABLE_UNICODE_GROUPS) != 0) {
            re2 &= ~RE2.UNICODE_GROUPS;
        }
        if ((flags & Pattern.CASE_INSENSITIVE) != 0) {
            re2 |= RE2.FOLD_CASE;
        }
        if ((flags & Pattern.DOTALL) != 0) {
            re2 |= RE2.DOT_NL;
        }
        if ((flags & Pattern.MULTILINE) != 0) {
            re2 &= ~RE2.ONE_LINE;
        }
        return copy(Parser.parse(pattern, re2));
    }

    private static Node copy(Regexp re) {
        List<Node> subs = new ArrayList<>(re.subs == null ? 0 : re.subs.length);
        if (re.subs != null) {
            for (Regexp sub : re.subs) {
                subs.add(copy(sub));
            }
        }
        int[] runes = re.runes == null ? new int[0] : re.runes.clone();
        return new Node(re.op.name(), (re.flags & RE2.FOLD_CASE) != 0, runes, List.copyOf(subs), re.min, re.max);
    }
}
