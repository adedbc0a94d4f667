package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.re2j.Pattern;
import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RegexLiteralsTest {
    private static final Json JSON = Json.standard();

    private static TextCondition contains(String s) {
        return new TextCondition.Contains(s, false);
    }

    @Test
    void requiredLiteralsOfCommonPatterns() {
        assertThat(RegexLiterals.required(".*pach.*", 0)).isEqualTo(contains("pach"));
        assertThat(RegexLiterals.required("^https://pro", 0)).isEqualTo(contains("https://pro"));
        assertThat(RegexLiterals.required("a.*bc", 0)).isEqualTo(new TextCondition.AllOf(List.of(contains("a"), contains("bc"))));
        assertThat(RegexLiterals.required("apache|nginx", 0))
                .isEqualTo(new TextCondition.AnyOf(List.of(contains("apache"), contains("nginx"))));
        assertThat(RegexLiterals.required("x(ab|cd)y", 0))
                .isEqualTo(new TextCondition.AnyOf(List.of(contains("xaby"), contains("xcdy"))));
        assertThat(RegexLiterals.required("colou?r", 0))
                .isEqualTo(new TextCondition.AnyOf(List.of(contains("colour"), contains("color"))));
        assertThat(RegexLiterals.required("(abc)+", 0)).isEqualTo(contains("abc"));
        assertThat(RegexLiterals.required("(abc){2,3}", 0)).isEqualTo(contains("abc"));
    }

    @Test
    void nothingRequiredWhenAMatchMayBeAnything() {
        for (String p : new String[] {".*", "a*", "a?", "[a-z]+", "(abc)*", "x{0,3}", "abc|.*", "^$", "\\w+", "(abc){0}"}) {
            assertThat(RegexLiterals.required(p, 0)).as(p).isEqualTo(TextCondition.ALWAYS);
        }
    }

    @Test
    void escapedCharactersCutTheLiteral() {
        // the writer stores " as \" and a tab as \t: the literal's runs between them still occur
        assertThat(RegexLiterals.required("say \"hi\"", 0))
                .isEqualTo(new TextCondition.AllOf(List.of(contains("say "), contains("hi"))));
        assertThat(RegexLiterals.required("a\\tb", 0))
                .isEqualTo(new TextCondition.AllOf(List.of(contains("a"), contains("b"))));
        assertThat(RegexLiterals.required("\\\\", 0)).isEqualTo(TextCondition.ALWAYS);
    }

    @Test
    void caseInsensitiveLiteralsAreAsciiWithoutFoldsThatLeaveAscii() {
        assertThat(RegexLiterals.required("Apache", Pattern.CASE_INSENSITIVE))
                .isEqualTo(new TextCondition.Contains("apache", true));
        assertThat(RegexLiterals.required("(?i)Apache", 0)).isEqualTo(new TextCondition.Contains("apache", true));
        // k folds to KELVIN SIGN and s to LONG S: the literal is cut there
        assertThat(RegexLiterals.required("risky", Pattern.CASE_INSENSITIVE))
                .isEqualTo(new TextCondition.AllOf(List.of(new TextCondition.Contains("ri", true),
                        new TextCondition.Contains("y", true))));
        assertThat(RegexLiterals.required("\u00e9t\u00e9", Pattern.CASE_INSENSITIVE))
                .isEqualTo(new TextCondition.Contains("t", true));
    }

    /**
     * Soundness on random patterns and strings: whenever RE2J finds a match in a string, the
     * JSON text the writer stores for it satisfies the condition.
     */
    @Test
    void everyMatchSatisfiesTheCondition() {
        Random random = new Random(12);
        String[] atoms = {"a", "b", "ab", "K", "s", "\u212a", "\u017f", "\"", "\\\\", "\\t", "\u00e9", ".", "[ab]", "[a-c]",
                "[^a]", "\\d", "\\w", "x", "^", "$", "\\b", "\uD83D\uDE00"};
        String alphabet = "abKks\u212a\u017fx\"\\\t\u00e9AB1 \uD83D\uDE00";
        int checked = 0;
        for (int i = 0; i < 3000; i++) {
            String pattern = pattern(random, atoms, 3);
            int flags = random.nextInt(4) == 0 ? Pattern.CASE_INSENSITIVE : 0;
            Pattern compiled;
            try {
                compiled = Pattern.compile(pattern, flags);
            } catch (RuntimeException e) {
                continue;
            }
            TextCondition c = RegexLiterals.required(pattern, flags).bounded(TextCondition.MAX_LITERALS);
            for (int j = 0; j < 40; j++) {
                StringBuilder s = new StringBuilder();
                int n = random.nextInt(8);
                for (int k = 0; k < n; k++) {
                    s.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
                }
                if (compiled.matcher(s.toString()).find()) {
                    checked++;
                    String stored = new String(JSON.bytes(Json.NODES.stringNode(s.toString())), StandardCharsets.UTF_8);
                    assertThat(holds(c, stored)).as("/%s/ (flags %d) on %s: %s", pattern, flags, stored, c).isTrue();
                }
            }
        }
        assertThat(checked).isGreaterThan(5000);
    }

    private static String pattern(Random random, String[] atoms, int depth) {
        int n = 1 + random.nextInt(4);
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(depth > 0 ? 9 : 6);
            String atom = kind >= 6 ? "(" + pattern(random, atoms, depth - 1) + (kind == 8 ? "|" + pattern(random, atoms, depth - 1) : "") + ")"
                    : atoms[random.nextInt(atoms.length)];
            p.append(atom);
            switch (random.nextInt(8)) {
                case 0 -> p.append('*');
                case 1 -> p.append('+');
                case 2 -> p.append('?');
                case 3 -> p.append("{1,2}");
                default -> { }
            }
        }
        return p.toString();
    }

    /** The condition evaluated as the SQL does: a byte search, or ASCII-case-insensitive. */
    static boolean holds(TextCondition c, String stored) {
        return switch (c) {
            case TextCondition.Always a -> true;
            case TextCondition.Contains t -> t.ignoreCase() ? asciiLower(stored).contains(asciiLower(t.text())) : stored.contains(t.text());
            case TextCondition.AllOf a -> a.all().stream().allMatch(x -> holds(x, stored));
            case TextCondition.AnyOf o -> o.any().stream().anyMatch(x -> holds(x, stored));
        };
    }

    private static String asciiLower(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char ch : s.toCharArray()) {
            b.append(ch >= 'A' && ch <= 'Z' ? (char) (ch + 32) : ch);
        }
        return b.toString();
    }
}
