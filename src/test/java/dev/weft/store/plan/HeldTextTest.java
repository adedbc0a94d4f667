package dev.weft.store.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The in-memory test of a filter's required text lets through every body SQL's prefilter would. */
class HeldTextTest {
    private static final Json JSON = Json.standard();

    private static boolean mayMatch(String filter, String body) {
        Filter f = Filter.parse(JSON.parse(filter, "filter"), QueryLimits.defaults());
        String held = new String(body.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
        return HeldText.of(f).mayMatch(held, HeldText.sketch(held));
    }

    @Test
    void literalsAreFoundAsTheirUtf8Bytes() {
        assertThat(mayMatch("{\"u\":{\"$regex\":\".*pach.*\"}}", "{\"u\":\"https://apache.org\"}")).isTrue();
        assertThat(mayMatch("{\"u\":{\"$regex\":\".*pach.*\"}}", "{\"u\":\"https://apa.che\"}")).isFalse();
        assertThat(mayMatch("{\"u\":{\"$regex\":\"caf\u00e9\"}}", "{\"u\":\"un caf\u00e9\"}")).isTrue();
        assertThat(mayMatch("{\"u\":{\"$regex\":\"caf\u00e9\"}}", "{\"u\":\"un cafe\"}")).isFalse();
    }

    @Test
    void caseInsensitiveLiteralsMatchEveryAsciiCase() {
        assertThat(mayMatch("{\"u\":{\"$regex\":\"apache\",\"$options\":\"i\"}}", "{\"u\":\"APAChe\"}")).isTrue();
        assertThat(mayMatch("{\"u\":{\"$regex\":\"apache\",\"$options\":\"i\"}}", "{\"u\":\"APACE\"}")).isFalse();
    }

    private static boolean sketched(String filter) {
        return HeldText.of(Filter.parse(JSON.parse(filter, "filter"), QueryLimits.defaults())).sketched();
    }

    @Test
    void aTestIsSketchedOnlyWhenEveryLiteralItSearchesIsRefusedByTheSketchFirst() {
        assertThat(sketched("{\"u\":{\"$regex\":\".*pach.*\"}}")).isTrue();
        assertThat(sketched("{\"u\":{\"$regex\":\"pach\",\"$options\":\"i\"}}")).isFalse();
        assertThat(sketched("{\"a\":\"x-one\",\"b\":\"y-two\"}")).isTrue();
        assertThat(sketched("{\"a\":{\"$regex\":\"x-one\",\"$options\":\"i\"},\"b\":\"y-two\"}")).isFalse();
        assertThat(sketched("{\"$or\":[{\"a\":\"x-one\"},{\"b\":{\"$regex\":\"y-two\",\"$options\":\"i\"}}]}")).isFalse();
        assertThat(sketched("{\"a\":{\"$gt\":1}}")).isFalse();
    }

    @Test
    void alternativesNeedOneAndConjunctionsAll() {
        String or = "{\"$or\":[{\"a\":\"x-one\"},{\"b\":\"y-two\"}]}";
        assertThat(mayMatch(or, "{\"b\":\"y-two\"}")).isTrue();
        assertThat(mayMatch(or, "{\"b\":\"z\"}")).isFalse();
        String and = "{\"a\":\"x-one\",\"b\":\"y-two\"}";
        assertThat(mayMatch(and, "{\"a\":\"x-one\"}")).isFalse();
        assertThat(mayMatch(and, "{\"a\":\"x-one\",\"b\":\"y-two\"}")).isTrue();
        assertThat(HeldText.requiresText(Filter.parse(JSON.parse("{\"n\":{\"$gt\":1}}", "f"), QueryLimits.defaults())))
                .isFalse();
    }
}
