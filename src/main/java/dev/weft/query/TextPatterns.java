package dev.weft.query;

import java.util.function.Predicate;

/**
 * Regular expressions outside filters (the aggregation operator {@code $regexMatch}), compiled
 * by the same {@link Regexes} as {@code $regex}, so {@code max-regex-length} and
 * {@code max-regex-program} bound them too and they run in linear time.
 */
public final class TextPatterns {
    private TextPatterns() {}

    /** A test finding {@code pattern} anywhere in a string; 400 naming {@code where} when it cannot run. */
    public static Predicate<String> compile(String pattern, String options, QueryLimits limits, String where) {
        return Regexes.compile(pattern, options, limits, where).matcher();
    }
}
