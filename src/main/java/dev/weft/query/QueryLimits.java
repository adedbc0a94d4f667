package dev.weft.query;

import dev.weft.core.Settings;

/** Limits the query language enforces while parsing (each a named setting of the server). */
public record QueryLimits(int maxRegexLength, int maxRegexProgram, int maxNestingDepth) {
    private static final QueryLimits DEFAULTS = of(Settings.defaults());

    public static QueryLimits defaults() {
        return DEFAULTS;
    }

    public static QueryLimits of(Settings settings) {
        return new QueryLimits(settings.maxRegexLength(), settings.maxRegexProgram(), settings.maxNestingDepth());
    }
}
