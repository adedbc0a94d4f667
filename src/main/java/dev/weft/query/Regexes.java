package dev.weft.query;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.weft.core.WeftException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * MongoDB {@code $regex} patterns compiled for RE2J, which runs in time linear in the input
 * whatever the pattern, and in the size of the compiled program. The only place a client's
 * pattern is compiled (filters, stream filters and access rules' filters all parse through
 * {@link FilterParser}), so both bounds hold everywhere: the pattern's length
 * ({@code max-regex-length}) and its program once repetitions are expanded
 * ({@code max-regex-program}, measured by {@link RegexProgramSize} before RE2J expands it).
 * Backreferences and lookaround, which need backtracking, are refused with a 400 naming the pattern.
 */
final class Regexes {
    private Regexes() {}

    private record Key(String pattern, String options) {}

    /** A compiled pattern and the size of its program, which each caller checks against its own limit. */
    private record Compiled(ValuePredicate.Regex regex, long program) {}

    /**
     * Patterns compiled before, so that a query asked again (a list page, a poll) is not measured,
     * compiled and searched for its literals again: a {@link ValuePredicate.Regex} is immutable
     * and safe to share. At most {@code regex-cache-entries}; past that it starts over. Only
     * patterns of at most {@link #CACHED_PROGRAM} instructions are kept (nearly every pattern a
     * client writes), so the cache holds at most entries × that many instructions.
     */
    private static final ConcurrentHashMap<Key, Compiled> COMPILED = new ConcurrentHashMap<>();
    static final int CACHED_PROGRAM = 256;

    static ValuePredicate.Regex compile(String pattern, String options, QueryLimits limits, String path) {
        if (pattern.length() > limits.maxRegexLength()) {
            throw WeftException.badRequest("$regex at '" + path + "' is longer than " + limits.maxRegexLength()
                    + " characters (limit max-regex-length)");
        }
        Key key = new Key(pattern, options);
        Compiled known = COMPILED.get(key);
        if (known != null) {
            checkProgram(known.program(), limits, path);
            return known.regex();
        }
        Compiled compiled = compileNew(pattern, options, limits, path);
        if (limits.regexCacheEntries() > 0 && compiled.program() <= CACHED_PROGRAM) {
            if (COMPILED.size() >= limits.regexCacheEntries()) {
                COMPILED.clear();
            }
            COMPILED.put(key, compiled);
        }
        return compiled.regex();
    }

    private static void checkProgram(long program, QueryLimits limits, String path) {
        if (program > limits.maxRegexProgram()) {
            throw WeftException.badRequest("$regex at '" + path + "' expands to "
                    + (program >= RegexProgramSize.SATURATED ? "more than 10^15" : "about " + program)
                    + " instructions once its repetitions are counted out, more than " + limits.maxRegexProgram()
                    + " (limit max-regex-program)");
        }
    }

    private static Compiled compileNew(String pattern, String options, QueryLimits limits, String path) {
        int flags = 0;
        boolean extended = false;
        for (char c : options.toCharArray()) {
            switch (c) {
                case 'i' -> flags |= Pattern.CASE_INSENSITIVE;
                case 'm' -> flags |= Pattern.MULTILINE;
                case 's' -> flags |= Pattern.DOTALL;
                case 'x' -> extended = true;
                case 'u' -> { } // patterns are always Unicode here
                default -> throw WeftException.badRequest("$options at '" + path + "': unknown option '" + c + "'");
            }
        }
        String source = extended ? stripExtended(pattern) : pattern;
        long program = RegexProgramSize.of(source);
        checkProgram(program, limits, path);
        Pattern compiled;
        try {
            compiled = Pattern.compile(source, flags);
        } catch (PatternSyntaxException e) {
            throw WeftException.badRequest("$regex at '" + path + "' cannot be used: " + e.getDescription()
                    + " in /" + pattern + "/ (backreferences and lookaround are not supported)");
        }
        int compiledFlags = flags;
        boolean caseSensitive = (flags & Pattern.CASE_INSENSITIVE) == 0;
        boolean anchoredLiteral = caseSensitive && (flags & Pattern.MULTILINE) == 0;
        String prefix = anchoredLiteral ? literalPrefix(source) : "";
        return new Compiled(new ValuePredicate.Regex(pattern, matcher(compiled, source, caseSensitive, anchoredLiteral),
                prefix, () -> RegexLiterals.required(source, compiledFlags)), program);
    }

    /**
     * The fastest equivalent test: RE2J's NFA costs microseconds per string, while a pattern
     * that is a literal once its leading and trailing {@code .*} are dropped (which changes
     * nothing for a search) is a plain {@code contains} or {@code startsWith}.
     */
    private static Predicate<String> matcher(Pattern compiled, String source, boolean caseSensitive, boolean anchorable) {
        String core = stripOuterDotStars(source);
        if (caseSensitive && isLiteral(core)) {
            return s -> s.contains(core);
        }
        if (anchorable && core.startsWith("^") && isLiteral(core.substring(1))) {
            String literal = core.substring(1);
            return s -> s.startsWith(literal);
        }
        return s -> compiled.matcher(s).find();
    }

    /** {@code .*x.*} finds a match exactly where {@code x} does: {@code .*} may match nothing. */
    static String stripOuterDotStars(String pattern) {
        String p = pattern;
        while (p.startsWith(".*")) {
            p = p.substring(p.startsWith(".*?") ? 3 : 2);
        }
        while (p.endsWith(".*") && !escaped(p, p.length() - 2)) {
            p = p.substring(0, p.length() - 2);
        }
        return p;
    }

    /** True when the character at {@code i} is preceded by an odd number of backslashes. */
    private static boolean escaped(String p, int i) {
        int backslashes = 0;
        for (int j = i - 1; j >= 0 && p.charAt(j) == '\\'; j--) {
            backslashes++;
        }
        return backslashes % 2 == 1;
    }

    private static boolean isLiteral(String p) {
        for (int i = 0; i < p.length(); i++) {
            if (".[]()*+?{}|\\^$".indexOf(p.charAt(i)) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** The {@code x} option: unescaped whitespace and {@code #} comments outside classes are dropped. */
    static String stripExtended(String pattern) {
        StringBuilder out = new StringBuilder(pattern.length());
        boolean inClass = false;
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                out.append(c).append(pattern.charAt(++i));
                continue;
            }
            if (inClass) {
                inClass = c != ']';
                out.append(c);
            } else if (c == '[') {
                inClass = true;
                out.append(c);
            } else if (c == '#') {
                while (i + 1 < pattern.length() && pattern.charAt(i + 1) != '\n') {
                    i++;
                }
            } else if (!Character.isWhitespace(c)) {
                out.append(c);
            }
        }
        return out.toString();
    }

    /**
     * The literal text every match must start with, for {@code ^abc...} patterns without
     * alternation: the planner turns it into a string prefix range. Empty when there is none.
     */
    static String literalPrefix(String pattern) {
        if (!pattern.startsWith("^") || pattern.indexOf('|') >= 0) {
            return "";
        }
        StringBuilder prefix = new StringBuilder();
        for (int i = 1; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (!isLiteral(String.valueOf(c))) {
                if ((c == '*' || c == '?' || c == '{') && prefix.length() > 0) {
                    prefix.setLength(prefix.length() - 1); // the last character was optional
                }
                break;
            }
            if (Character.isSurrogate(c)) {
                break;
            }
            prefix.append(c);
        }
        return prefix.toString();
    }
}
