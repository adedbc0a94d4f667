package dev.weft.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ProtectedPathsTest {
    private static final Json JSON = Json.standard();

    private static JsonNode o(String json) {
        return JSON.parse(json.getBytes(), "test");
    }

    @Test
    void reachesValuesThroughObjectsArraysNestedArraysAndIndexes() {
        assertThat(ProtectedPaths.reached(o("{\"a\":{\"b\":1}}"), "a.b")).containsOnlyKeys("a.b");
        assertThat(ProtectedPaths.reached(o("{\"items\":[{\"price\":1},{\"qty\":2},{\"price\":3}]}"), "items.price"))
                .containsOnlyKeys("items.0.price", "items.2.price");
        assertThat(ProtectedPaths.reached(o("{\"m\":[[{\"x\":true}]]}"), "m.x")).containsOnlyKeys("m.0.0.x");
        assertThat(ProtectedPaths.reached(o("{\"items\":[{\"price\":1},{\"price\":2}]}"), "items.1.price").values())
                .extracting(JsonNode::asInt).containsExactly(2);
        assertThat(ProtectedPaths.reached(o("{\"a\":5}"), "a.b")).isEmpty();
        assertThat(ProtectedPaths.reached(null, "a")).isEmpty();
    }

    @Test
    void differIsByLocationAndMongoEquality() {
        assertThat(ProtectedPaths.differ(o("{\"a\":1}"), o("{\"a\":1.0}"), "a")).isFalse();
        assertThat(ProtectedPaths.differ(o("{\"a\":[{\"p\":1},{}]}"), o("{\"a\":[{},{\"p\":1}]}"), "a.p")).isTrue();
        assertThat(ProtectedPaths.differ(o("{\"a\":[{\"p\":1}]}"), o("{\"a\":[{\"p\":1},{\"q\":2}]}"), "a.p")).isFalse();
        assertThat(ProtectedPaths.differ(null, o("{\"a\":[{\"p\":null}]}"), "a.p")).isTrue();
    }

    @Test
    void updatePathsAreComparedByShape() {
        assertThat(ProtectedPaths.shape("items.$[].price")).isEqualTo("items.price");
        assertThat(ProtectedPaths.shape("items.$[el].price")).isEqualTo("items.price");
        assertThat(ProtectedPaths.shape("items.$.price")).isEqualTo("items.price");
        assertThat(ProtectedPaths.shape("items.10.price")).isEqualTo("items.price");
        List<String> guarded = List.of("items.price");
        assertThat(ProtectedPaths.overlapped("items.0", guarded)).isEqualTo("items.price");
        assertThat(ProtectedPaths.overlapped("items.0.price.x", guarded)).isEqualTo("items.price");
        assertThat(ProtectedPaths.overlapped("items.0.qty", guarded)).isNull();
        assertThat(ProtectedPaths.overlapped("itemsx", guarded)).isNull();
    }
}
