package dev.weft.query;

import static dev.weft.query.J.j;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.re2j.Pattern;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The estimate is checked against the program RE2J really compiles (read by reflection: RE2J
 * keeps it package-private): never below it, so no pattern the limit refuses would have been
 * small, and close enough to it that the limit means what it says.
 */
class RegexProgramSizeTest {

    @ParameterizedTest
    @ValueSource(strings = {
        "abc", ".*pach.*", "^abc", "a|b|c", "(a|bc)*d", "a{3}", "a{2,5}", "a{2,}", "(ab){0,4}",
        "[a-z]{5}(foo|bar){3}", "(?i)hello", "(?:ab)+?x", "(?P<n>a)(?<m>b)", "\\p{Greek}+\\d{4}",
        "\\Qa.b\\E{3}", "[]a]{10}", "[^]\\]]x", "x{", "a{,3}", "(a{10}){10}", "((a{5}){5}){5}",
        "\\x{41}{7}", "[[:alpha:]]{9}", "(((a)))", "a{0}b", "()", "^(a+|b+)$"})
    void estimateIsAnUpperBoundNearRe2jsProgram(String pattern) throws Exception {
        int actual = re2jInstructions(pattern);
        long estimate = RegexProgramSize.of(pattern);
        assertThat(estimate).as(pattern).isGreaterThanOrEqualTo(actual - 3); // RE2J's fixed prologue
        assertThat(estimate).as(pattern).isLessThanOrEqualTo(3L * actual + 10);
    }

    @Test
    void nestedCountedRepetitionsMultiply() {
        assertThat(RegexProgramSize.of("((((a{100}){100}){100}){100})")).isGreaterThan(100_000_000L);
        assertThat(RegexProgramSize.of("(a{100}){100}")).isBetween(10_000L, 11_000L);
    }

    @Test
    void deepNestingIsMeasuredWithoutRecursion() {
        String deep = "(".repeat(200_000) + "a" + ")".repeat(200_000);
        assertThat(RegexProgramSize.of(deep)).isEqualTo(1 + 2L * 200_000);
        assertThat(RegexProgramSize.of("(".repeat(100) + "a{1000}" + "){1000}".repeat(100)))
                .isEqualTo(RegexProgramSize.SATURATED);
    }

    @Test
    void filterRefusesAProgramAboveTheLimitBeforeCompilingIt() {
        QueryLimits limits = new QueryLimits(1024, 10_000, 64);
        J.assertBadRequest(() -> Filter.parse(j("{a: {$regex: '((((a{100}){100}){100}){100})'}}"), limits),
                "$regex at 'a' expands to about 10");
        J.assertBadRequest(() -> Filter.parse(j("{a: {$regex: '(a{100}){101}'}}"), limits),
                "limit max-regex-program");
        J.assertBadRequest(() -> Filter.parse(j("{a: {$in: [{$regex: '(a{1000}){11}'}]}}"), limits),
                "limit max-regex-program");
        J.assertBadRequest(() -> Filter.parse(j("{a: {$not: {$regex: '(a{1000}){11}'}}}"), limits),
                "limit max-regex-program");
        J.assertBadRequest(() -> Filter.parse(j("{a: {$regex: '(a{1000} ){11}', $options: 'x'}}"), limits),
                "limit max-regex-program");
        assertThat(Filter.parse(j("{a: {$regex: '^(a{90}){100}$'}}"), limits).matches(j("{a: '" + "a".repeat(9000) + "'}")))
                .isTrue();
    }

    private static int re2jInstructions(String pattern) throws Exception {
        Pattern compiled = Pattern.compile(pattern);
        Method re2 = Pattern.class.getDeclaredMethod("re2");
        re2.setAccessible(true);
        Object engine = re2.invoke(compiled);
        Field prog = engine.getClass().getDeclaredField("prog");
        prog.setAccessible(true);
        Object program = prog.get(engine);
        Method numInst = program.getClass().getDeclaredMethod("numInst");
        numInst.setAccessible(true);
        return (int) numInst.invoke(program);
    }
}
