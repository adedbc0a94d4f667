package dev.weft.query;

import java.util.ArrayList;
import java.util.List;

/**
 * A necessary condition on the stored JSON text of a document: an AND/OR tree of strings that
 * must occur in it (as UTF-8 bytes) for the document to possibly match. A store pushes it into
 * SQL as a cheap prefilter; the filter itself is still evaluated on what passes, so a condition
 * may be weaker than the filter but never stronger. {@link #ALWAYS} says nothing.
 *
 * <p>The text must be what the store's JSON writer writes: a literal holding a character the
 * writer escapes ({@link #writtenVerbatim}) is cut into the runs between such characters, each
 * of which does occur as written.
 */
public sealed interface TextCondition {
    /** No condition: every document passes. */
    TextCondition ALWAYS = new Always();

    /** Most literals a condition keeps (each is one SQL test per candidate row). */
    int MAX_LITERALS = 12;
    /** Longest literal kept, in characters; a longer one is cut (its start must occur too). */
    int MAX_LITERAL_CHARS = 128;

    record Always() implements TextCondition {}

    /**
     * {@code text} occurs in the document's JSON; with {@code ignoreCase}, ignoring ASCII case
     * only ({@code text} is then ASCII, without {@code k} or {@code s}, whose case folds reach
     * non-ASCII letters: KELVIN SIGN, LONG S).
     */
    record Contains(String text, boolean ignoreCase) implements TextCondition {}

    record AllOf(List<TextCondition> all) implements TextCondition {}

    record AnyOf(List<TextCondition> any) implements TextCondition {}

    /**
     * Whether the store's JSON writer writes this character as itself inside a string: all but
     * the quote, the backslash and control characters (checked against the writer by
     * TextConditionTest). Field names and strings are both written so.
     */
    static boolean writtenVerbatim(int codePoint) {
        return codePoint >= 0x20 && codePoint != '"' && codePoint != '\\'
                && !(codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE);
    }

    /** {@code text} occurs inside some string of the document (cut at what the writer escapes). */
    static TextCondition inString(String text, boolean ignoreCase) {
        List<TextCondition> runs = new ArrayList<>();
        StringBuilder run = new StringBuilder();
        text.codePoints().forEach(c -> {
            boolean keep = writtenVerbatim(c) && (!ignoreCase || foldsWithinAscii(c));
            if (keep) {
                run.appendCodePoint(ignoreCase ? Character.toLowerCase(c) : c);
            } else {
                flush(run, ignoreCase, runs);
            }
        });
        flush(run, ignoreCase, runs);
        return and(runs);
    }

    /**
     * An ASCII character whose case folds are all ASCII: what {@code LIKE}'s ASCII-only
     * case-insensitivity can stand for (RE2J folds k to U+212A and s to U+017F too).
     */
    private static boolean foldsWithinAscii(int c) {
        return c < 0x80 && "kKsS".indexOf(c) < 0;
    }

    private static void flush(StringBuilder run, boolean ignoreCase, List<TextCondition> runs) {
        if (!run.isEmpty()) {
            String s = run.toString();
            if (s.length() > MAX_LITERAL_CHARS) {
                int end = MAX_LITERAL_CHARS;
                if (Character.isHighSurrogate(s.charAt(end - 1))) {
                    end--;
                }
                s = s.substring(0, end);
            }
            runs.add(new Contains(s, ignoreCase && !s.chars().allMatch(c -> !Character.isLetter(c))));
            run.setLength(0);
        }
    }

    /** A JSON string equal to {@code value}, quotes included, or what of it is written verbatim. */
    static TextCondition jsonString(String value) {
        boolean verbatim = value.codePoints().allMatch(TextCondition::writtenVerbatim);
        if (verbatim && value.length() + 2 <= MAX_LITERAL_CHARS) {
            return new Contains('"' + value + '"', false);
        }
        return inString(value, false);
    }

    static TextCondition and(List<TextCondition> parts) {
        List<TextCondition> out = new ArrayList<>();
        for (TextCondition p : parts) {
            if (p instanceof AllOf a) {
                out.addAll(a.all());
            } else if (!(p instanceof Always)) {
                out.add(p);
            }
        }
        return out.isEmpty() ? ALWAYS : out.size() == 1 ? out.get(0) : new AllOf(List.copyOf(out));
    }

    /** At least one of them; {@link #ALWAYS} when any branch says nothing (or there is none). */
    static TextCondition or(List<TextCondition> parts) {
        List<TextCondition> out = new ArrayList<>();
        for (TextCondition p : parts) {
            if (p instanceof Always) {
                return ALWAYS;
            }
            if (p instanceof AnyOf a) {
                out.addAll(a.any());
            } else if (!out.contains(p)) {
                out.add(p);
            }
        }
        return out.isEmpty() ? ALWAYS : out.size() == 1 ? out.get(0) : new AnyOf(List.copyOf(out));
    }

    /** The number of literals this condition tests. */
    default int literals() {
        return switch (this) {
            case Always a -> 0;
            case Contains c -> 1;
            case AllOf a -> a.all().stream().mapToInt(TextCondition::literals).sum();
            case AnyOf o -> o.any().stream().mapToInt(TextCondition::literals).sum();
        };
    }

    /**
     * This condition within {@code max} literals, weakened soundly: an AND drops the parts past
     * the budget, an OR too large says nothing.
     */
    default TextCondition bounded(int max) {
        if (literals() <= max) {
            return this;
        }
        return switch (this) {
            case AllOf a -> {
                List<TextCondition> kept = new ArrayList<>();
                int left = max;
                for (TextCondition part : a.all()) {
                    TextCondition b = part.bounded(left);
                    left -= b.literals();
                    kept.add(b);
                }
                yield and(kept);
            }
            default -> ALWAYS;
        };
    }
}
