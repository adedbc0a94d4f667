package dev.weft.store.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.store.IndexSpec;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class WrittenFilterTest {
    static final Json JSON = Json.standard();

    static Filter written(String... specs) {
        List<JsonNode> nodes = Arrays.stream(specs).map(s -> JSON.parse(s, "filter")).toList();
        return WrittenFilter.of(Filter.and(nodes.stream().map(n -> Filter.parse(n, QueryLimits.defaults())).toList()), nodes);
    }

    static IndexSpec partial(String expression) {
        return new IndexSpec("i", List.of(new IndexField("email", 1)), true, false,
                Optional.of(IndexSpec.PartialFilter.of((ObjectNode) JSON.parse(expression, "p"), QueryLimits.defaults())));
    }

    static final IndexSpec SPARSE = new IndexSpec("i", List.of(new IndexField("email", 1)), true, true, Optional.empty());

    @Test
    void aPartialIndexServesOnlyQueriesWritingItsConditions() {
        IndexSpec index = partial("{\"active\":true,\"n\":{\"$gt\":1}}");
        assertThat(WrittenFilter.implies(written("{\"email\":\"a\",\"active\":true,\"n\":{\"$gt\":1}}"), index)).isTrue();
        assertThat(WrittenFilter.implies(written("{\"email\":\"a\"}", "{\"$and\":[{\"active\":true},{\"n\":{\"$gt\":1}}]}"), index))
                .isTrue();
        assertThat(WrittenFilter.implies(written("{\"email\":\"a\",\"active\":true}"), index)).isFalse();
        assertThat(WrittenFilter.implies(written("{\"active\":true,\"n\":{\"$gt\":2}}"), index)).isFalse(); // implied, not literal
        assertThat(WrittenFilter.implies(written("{\"$or\":[{\"active\":true,\"n\":{\"$gt\":1}}]}"), index)).isFalse();
        assertThat(WrittenFilter.implies(Filter.all(), index)).isFalse();
    }

    @Test
    void aSparseIndexServesQueriesThatNeedItsField() {
        assertThat(WrittenFilter.implies(written("{\"email\":\"a\"}"), SPARSE)).isTrue();
        assertThat(WrittenFilter.implies(written("{\"email\":{\"$exists\":true}}"), SPARSE)).isTrue();
        assertThat(WrittenFilter.implies(written("{\"email\":null}"), SPARSE)).isFalse();
        assertThat(WrittenFilter.implies(written("{\"email\":{\"$ne\":\"a\"}}"), SPARSE)).isFalse();
        assertThat(WrittenFilter.implies(written("{\"other\":1}"), SPARSE)).isFalse();
    }

    @Test
    void everyIndexHoldsEveryDocumentUnlessSelective() {
        IndexSpec plain = new IndexSpec("i", List.of(new IndexField("email", 1)), true);
        assertThat(WrittenFilter.implies(Filter.all(), plain)).isTrue();
        assertThat(SPARSE.holds(JSON.parse("{\"x\":1}", "d"))).isFalse();
        assertThat(SPARSE.holds(JSON.parse("{\"email\":null}", "d"))).isTrue();
        assertThat(partial("{\"active\":true}").holds(JSON.parse("{\"active\":false}", "d"))).isFalse();
    }
}
