package dev.weft.store.plan;

import dev.weft.query.Filter;
import dev.weft.query.TextCondition;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A filter's {@link TextCondition} tested in Java on a stored body held in memory as a
 * {@link StandardCharsets#ISO_8859_1} string of its UTF-8 bytes (one char per byte, so
 * {@link String#indexOf(String)}, which the JVM vectorises, is a byte search): what
 * {@link TextPrefilter} asks SQL, for rows a store keeps in memory. Like it, only ever a necessary
 * condition: a literal's bytes occur in the body (ignoring case: Java's case folding of each
 * byte as a Latin-1 char, which folds at least the ASCII letters SQLite's {@code LIKE} folds, so
 * no row {@code LIKE} lets through is refused here).
 */
public sealed interface HeldText {
    /** Whether the body may match. */
    boolean mayMatch(String body);

    /** The test of {@code filter}'s required text; {@link #ANY} when it requires none. */
    static HeldText of(Filter filter) {
        return filter == null ? ANY : of(filter.requiredText().bounded(TextCondition.MAX_LITERALS));
    }

    /** Every body may match. */
    HeldText ANY = new Any();

    /** Whether {@code filter} requires some text (so testing it can skip rows). */
    static boolean requiresText(Filter filter) {
        return !(of(filter) instanceof Any);
    }

    private static HeldText of(TextCondition c) {
        return switch (c) {
            case TextCondition.Always a -> ANY;
            case TextCondition.Contains t -> new Contains(latin(t.text()), t.ignoreCase());
            case TextCondition.AllOf a -> new Combined(a.all().stream().map(HeldText::of).toList(), true);
            case TextCondition.AnyOf o -> new Combined(o.any().stream().map(HeldText::of).toList(), false);
        };
    }

    /** The UTF-8 bytes of {@code text}, one char per byte. */
    static String latin(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    record Any() implements HeldText {
        @Override
        public boolean mayMatch(String body) {
            return true;
        }
    }

    record Contains(String bytes, boolean ignoreCase) implements HeldText {
        @Override
        public boolean mayMatch(String body) {
            if (!ignoreCase) {
                return body.contains(bytes);
            }
            for (int i = 0, last = body.length() - bytes.length(); i <= last; i++) {
                if (body.regionMatches(true, i, bytes, 0, bytes.length())) {
                    return true;
                }
            }
            return false;
        }
    }

    /** All of {@code parts} ({@code all}) or at least one of them. */
    record Combined(List<HeldText> parts, boolean all) implements HeldText {
        @Override
        public boolean mayMatch(String body) {
            for (HeldText t : parts) {
                if (t.mayMatch(body) != all) {
                    return !all;
                }
            }
            return all;
        }
    }
}
