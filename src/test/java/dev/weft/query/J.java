package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Relaxed JSON for test tables: unquoted names and single quotes, {@code {a: 'x'}}. */
final class J {
    private static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .enable(JsonReadFeature.ALLOW_UNQUOTED_PROPERTY_NAMES)
                    .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
                    .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                    .build())
            .build();

    private J() {}

    static JsonNode j(String relaxed) {
        return MAPPER.readTree(relaxed);
    }

    static ObjectNode o(String relaxed) {
        return (ObjectNode) j(relaxed);
    }

    /** Asserts a client error: a WeftException 400 whose message names the problem. */
    static void assertBadRequest(ThrowingCallable call, String named) {
        assertThatThrownBy(call)
                .isInstanceOf(WeftException.class)
                .hasMessageContaining(named)
                .satisfies(e -> assertThat(((WeftException) e).status()).isEqualTo(400));
    }
}
