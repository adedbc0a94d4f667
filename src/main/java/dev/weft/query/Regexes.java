package dev.weft.query;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.weft.core.WeftException;

/**
 * MongoDB {@code $regex} patterns compiled for RE2J, which runs in time linear in the input
 * whatever the pattern: the only cost bound needed is the pattern's length. Backreferences and
 * lookaround, which need backtracking, are refused with a 400 naming the pattern.
 */
final class Regexes {
    private Regexes() {}

    static ValueTest.Regex compile(String pattern, String options, int maxLength, String path) {
        if (pattern.length() > maxLength) {
            throw WeftException.badRequest("$regex at '" + path + "' is longer than " + maxLength
                    + " characters (limit max-regex-length)");
        }
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
        Pattern compiled;
        try {
            compiled = Pattern.compile(source, flags);
        } catch (PatternSyntaxException e) {
            throw WeftException.badRequest("$regex at '" + path + "' cannot be used: " + e.getDescription()
                    + " in /" + pattern + "/ (backreferences and lookaround are not supported)");
        }
        boolean anchoredLiteral = (flags & (Pattern.CASE_INSENSITIVE | Pattern.MULTILINE)) == 0;
        return new ValueTest.Regex(compiled, anchoredLiteral ? literalPrefix(source) : "");
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
            if (".[]()*+?{}|\\^$".indexOf(c) >= 0) {
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
