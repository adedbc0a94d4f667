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

    @Test
    void postgresqlPatternsStayAsTheyWere() {
        TextPrefilter p = TextPrefilter.of(filter("{\"u\":{\"$regex\":\"pach\"}}"), TextPrefilter.Dialect.POSTGRESQL, "body");
        assertThat(p.sql()).isEqualTo(" AND position(? in body) > 0");
    }
}
