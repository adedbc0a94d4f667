package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class TextConditionTest {
    private static final Json JSON = Json.standard();

    /** The prefilter's idea of what the writer escapes is the writer's own. */
    @Test
    void writtenVerbatimAgreesWithTheStoresJsonWriter() {
        for (int c = 1; c <= 0x10FFFF; c += c < 0x3000 ? 1 : 97) {
            if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
                continue;
            }
            String s = new String(Character.toChars(c));
            String written = new String(JSON.bytes(Json.NODES.stringNode(s)), StandardCharsets.UTF_8);
            assertThat(written.equals('"' + s + '"')).as("U+%04X", c).isEqualTo(TextCondition.writtenVerbatim(c));
        }
    }

    @Test
    void filtersRequireWhatTheirMatchesHold() {
        assertThat(required("{a: 'x'}")).isEqualTo(contains("\"x\""));
        assertThat(required("{a: {$in: ['x', 'y']}}")).isEqualTo(new TextCondition.AnyOf(List.of(contains("\"x\""), contains("\"y\""))));
        assertThat(required("{a: {$in: ['x', 1]}}")).isEqualTo(TextCondition.ALWAYS);
        assertThat(required("{a: {$all: ['x', 'y']}}")).isEqualTo(new TextCondition.AllOf(List.of(contains("\"x\""), contains("\"y\""))));
        assertThat(required("{$or: [{a: 'x'}, {b: {$regex: 'yz'}}]}"))
                .isEqualTo(new TextCondition.AnyOf(List.of(contains("\"x\""), contains("yz"))));
        assertThat(required("{$or: [{a: 'x'}, {b: 1}]}")).isEqualTo(TextCondition.ALWAYS);
        assertThat(required("{a: {$elemMatch: {b: 'x'}}}")).isEqualTo(contains("\"x\""));
        assertThat(required("{a: 'q\"uote'}")).isEqualTo(new TextCondition.AllOf(List.of(contains("q"), contains("uote"))));
        for (String negative : new String[] {"{a: {$ne: 'x'}}", "{a: {$nin: ['x']}}", "{a: {$not: {$regex: 'x'}}}",
                "{$nor: [{a: 'x'}]}", "{a: {$exists: false}}", "{a: {$gt: 'x'}}", "{a: 1}"}) {
            assertThat(required(negative)).as(negative).isEqualTo(TextCondition.ALWAYS);
        }
    }

    @Test
    void boundedKeepsAnAndsFirstPartsAndDropsALargeOr() {
        TextCondition many = required("{a: {$in: ['a','b','c','d','e','f','g','h','i','j','k','l','m','n']}}");
        assertThat(many.bounded(TextCondition.MAX_LITERALS)).isEqualTo(TextCondition.ALWAYS);
        TextCondition and = required("{a: 'x', b: 'y', c: 'z'}");
        assertThat(and.bounded(2)).isEqualTo(new TextCondition.AllOf(List.of(contains("\"x\""), contains("\"y\""))));
    }

    private static TextCondition contains(String s) {
        return new TextCondition.Contains(s, false);
    }

    private static TextCondition required(String filter) {
        return Filter.parse(J.j(filter), QueryLimits.defaults()).requiredText();
    }
}
