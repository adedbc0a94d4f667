package dev.weft.query;

import dev.weft.core.Settings;

/** Limits the query language enforces while parsing (each a named setting of the server). */
public record QueryLimits(int maxRegexLength, int maxRegexProgram, int maxNestingDepth, int regexCacheEntries) {
    private static final QueryLimits DEFAULTS = of(Settings.defaults());

    /** Limits with the default number of compiled patterns remembered. */
    public QueryLimits(int maxRegexLength, int maxRegexProgram, int maxNestingDepth) {
        this(maxRegexLength, maxRegexProgram, maxNestingDepth, DEFAULT_REGEX_CACHE_ENTRIES);
    }

    /** {@code regex-cache-entries}' default. */
    public static final int DEFAULT_REGEX_CACHE_ENTRIES = 1000;

    public static QueryLimits defaults() {
        return DEFAULTS;
    }

    public static QueryLimits of(Settings settings) {
        return new QueryLimits(settings.maxRegexLength(), settings.maxRegexProgram(), settings.maxNestingDepth(),
                settings.regexCacheEntries());
    }
}
