package dev.weft.query;

import java.util.function.Predicate;

/**
 * A regular expression written elsewhere than in a filter (a JSON Schema's {@code pattern}),
 * searched for in strings under the same bounds as {@code $regex}: RE2J in linear time,
 * {@code max-regex-length} and {@code max-regex-program}, 400 for what RE2J cannot run.
 */
public final class PatternSearch {
    private PatternSearch() {}

    /** Whether a string holds a match of {@code pattern}; {@code where} names it in a 400. */
    public static Predicate<String> compile(String pattern, QueryLimits limits, String where) {
        ValuePredicate.Regex regex = Regexes.compile(pattern, "", limits, where);
        return s -> regex.test(tools.jackson.databind.node.StringNode.valueOf(s));
    }
}
