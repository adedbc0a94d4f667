package dev.weft.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NamespaceTest {
    @Test
    void namesAreLettersDigitsThenAlsoUnderscoreDashAndSingleDots() {
        for (String good : new String[] {"a", "Z9", "bench", "my-db_2.v1", "0", "x".repeat(63)}) {
            assertThat(Namespace.validName(good)).as(good).isTrue();
        }
        for (String bad : new String[] {"", "_users", "-x", ".x", "a..b", "a b", "a/b", "é", "x".repeat(64), "a$", "a\u0000"}) {
            assertThat(Namespace.validName(bad)).as(bad).isFalse();
        }
    }

    /** The loop accepts exactly what the rule's regex would, over every short name of a telling alphabet. */
    @Test
    void agreesWithTheRuleAsARegex() {
        Pattern rule = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
        char[] alphabet = {'a', 'Z', '5', '_', '-', '.', '/', ' ', '\u00e9'};
        int names = 0;
        for (int length = 1; length <= 4; length++) {
            for (int k = 0; k < Math.pow(alphabet.length, length); k++) {
                StringBuilder name = new StringBuilder();
                for (int i = 0, rest = k; i < length; i++, rest /= alphabet.length) {
                    name.append(alphabet[rest % alphabet.length]);
                }
                String s = name.toString();
                boolean expected = rule.matcher(s).matches() && !s.contains("..");
                assertThat(Namespace.validName(s)).as(s).isEqualTo(expected);
                names++;
            }
        }
        assertThat(names).isEqualTo(9 + 81 + 729 + 6561);
    }

    @Test
    void aBadNameIsA400() {
        assertThatThrownBy(() -> new Namespace("db", "a..b")).isInstanceOfSatisfying(WeftException.class,
                e -> assertThat(e.status()).isEqualTo(400));
    }
}
