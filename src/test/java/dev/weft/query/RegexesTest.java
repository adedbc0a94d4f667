package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import org.junit.jupiter.api.Test;

class RegexesTest {
    private static final QueryLimits LIMITS = new QueryLimits(1024, 10_000, 64, 1000);

    @Test
    void aPatternAskedAgainIsCompiledOnce() {
        ValuePredicate.Regex first = Regexes.compile("pa(c|t)h-once", "", LIMITS, "u");
        assertThat(Regexes.compile("pa(c|t)h-once", "", LIMITS, "v")).isSameAs(first);
        assertThat(Regexes.compile("pa(c|t)h-once", "i", LIMITS, "u")).isNotSameAs(first);
        assertThat(Regexes.compile("pa(c|t)h-twice", "", LIMITS, "u")).isNotSameAs(first);
    }

    @Test
    void aRememberedPatternStillMeetsTheCallersLimits() {
        Regexes.compile("(ab){50}-remembered", "", LIMITS, "u");
        QueryLimits small = new QueryLimits(1024, 100, 64, 1000);
        assertThatThrownBy(() -> Regexes.compile("(ab){50}-remembered", "", small, "w"))
                .isInstanceOf(WeftException.class).hasMessageContaining("$regex at 'w' expands to")
                .hasMessageContaining("limit max-regex-program");
        QueryLimits short_ = new QueryLimits(5, 10_000, 64, 1000);
        assertThatThrownBy(() -> Regexes.compile("(ab){50}-remembered", "", short_, "w"))
                .isInstanceOf(WeftException.class).hasMessageContaining("limit max-regex-length");
    }

    @Test
    void refusedPatternsAndOptionsAreRefusedEveryTime() {
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> Regexes.compile("(a)\\1-refused", "", LIMITS, "u")).isInstanceOf(WeftException.class);
            assertThatThrownBy(() -> Regexes.compile("ok-refused", "q", LIMITS, "u")).isInstanceOf(WeftException.class);
        }
    }

    @Test
    void largeProgramsAreCompiledEachTime() {
        ValuePredicate.Regex first = Regexes.compile("(abc){300}-large", "", LIMITS, "u");
        assertThat(Regexes.compile("(abc){300}-large", "", LIMITS, "u")).isNotSameAs(first);
    }

    @Test
    void noCacheCompilesEachTime() {
        QueryLimits none = new QueryLimits(1024, 10_000, 64, 0);
        assertThat(Regexes.compile("pach-uncached", "", none, "u")).isNotSameAs(Regexes.compile("pach-uncached", "", none, "u"));
    }
}
