package dev.weft.store.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import org.junit.jupiter.api.Test;

class TextPrefilterTest {
    private static Filter filter(String json) {
        return Filter.parse(new Json(64).parse(json, "filter"),
                QueryLimits.defaults());
    }

    /** A bare {@code GLOB ?} or {@code LIKE ?} would make SQLite prepare the statement at every execution. */
    @Test
    void sqlitePatternsAreBoundInsideAnExpression() {
        TextPrefilter glob = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"pach\"}}"), TextPrefilter.Dialect.SQLITE, "body");
        assertThat(glob.sql()).isEqualTo(" AND CAST(body AS TEXT) GLOB (? || '')");
        assertThat(glob.args()).containsExactly("*pach*");
        TextPrefilter like = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"pach\",\"$options\":\"i\"}}"),
                TextPrefilter.Dialect.SQLITE, "d.body");
        assertThat(like.sql()).isEqualTo(" AND CAST(d.body AS TEXT) LIKE (? || '') ESCAPE '\\'");
        assertThat(like.args()).containsExactly("%pach%");
    }

    /** With the native library, a case-sensitive literal is its bytes for weft_contains; a case-insensitive one stays LIKE. */
    @Test
    void sqliteWithTheNativeLibrarySearchesBytes() {
        TextPrefilter contains = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"pa.ch\"}}"), TextPrefilter.Dialect.SQLITE_NATIVE, "body");
        assertThat(contains.sql()).isEqualTo(" AND (weft_contains(body, ?) AND weft_contains(body, ?))");
        assertThat(contains.args()).hasSize(2);
        assertThat(new String((byte[]) contains.args().getLast(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("ch");
        TextPrefilter like = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"pach\",\"$options\":\"i\"}}"),
                TextPrefilter.Dialect.SQLITE_NATIVE, "d.body");
        assertThat(like.sql()).isEqualTo(" AND CAST(d.body AS TEXT) LIKE (? || '') ESCAPE '\\'");
    }

    @Test
    void postgresqlPatternsStayAsTheyWere() {
        TextPrefilter p = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"pach\"}}"), TextPrefilter.Dialect.POSTGRESQL, "body");
        assertThat(p.sql()).isEqualTo(" AND position(? in body) > 0");
    }

    /** Rendered SQL is kept per condition, dialect and column: none of them may answer for another. */
    @Test
    void aKeptRenderingIsOnlyReusedForTheSameConditionDialectAndColumn() {
        Filter f = filter("{\"u\":{\"$regex\":\"a*b\\\\[c?\"}}");
        TextPrefilter first = TextPrefilter.of(f, TextPrefilter.Dialect.SQLITE, "body");
        assertThat(TextPrefilter.of(filter("{\"u\":{\"$regex\":\"a*b\\\\[c?\"}}"), TextPrefilter.Dialect.SQLITE, "body"))
                .isEqualTo(first);
        assertThat(TextPrefilter.of(f, TextPrefilter.Dialect.SQLITE, "d.body").sql()).contains("d.body").isNotEqualTo(first.sql());
        assertThat(TextPrefilter.of(f, TextPrefilter.Dialect.POSTGRESQL, "body").sql()).contains("position(");
        TextPrefilter other = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"a*b\\\\[d?\"}}"), TextPrefilter.Dialect.SQLITE, "body");
        assertThat(other.args()).isNotEqualTo(first.args());
        TextPrefilter folded = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"a*b\\\\[c?\",\"$options\":\"i\"}}"),
                TextPrefilter.Dialect.SQLITE, "body");
        assertThat(folded.sql()).contains("LIKE");
    }
}
