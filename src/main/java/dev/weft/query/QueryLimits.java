package dev.weft.query;

/** Limits the query language enforces while parsing (each a named setting of the server). */
public record QueryLimits(int maxRegexLength, int maxNestingDepth) {
    public static QueryLimits defaults() {
        return new QueryLimits(1024, 64);
    }
}
