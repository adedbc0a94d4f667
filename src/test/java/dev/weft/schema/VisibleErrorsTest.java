package dev.weft.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.networknt.schema.path.NodePath;
import com.networknt.schema.path.PathType;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class VisibleErrorsTest {
    static final JsonMapper MAPPER = JsonMapper.builder().build();
    static final JsonNode DOCUMENT = MAPPER.readTree("{\"a\":{\"b\":1,\"c\":[{\"d\":2},{\"e\":3}]},\"f\":4}");
    static final JsonNode VIEW = MAPPER.readTree("{\"a\":{\"c\":[{\"d\":2},{}]},\"f\":4}");

    static NodePath path(Object... steps) {
        NodePath path = new NodePath(PathType.JSON_POINTER);
        for (Object step : steps) {
            path = step instanceof Integer i ? path.append(i) : path.append((String) step);
        }
        return path;
    }

    @Test
    void aLocationIsHiddenWhenTheDocumentHasItAndTheViewDoesNot() {
        assertThat(VisibleErrors.hidden(path("a", "b"), DOCUMENT, VIEW)).isTrue();
        assertThat(VisibleErrors.hidden(path("a", "c", 1, "e"), DOCUMENT, VIEW)).isTrue();
        assertThat(VisibleErrors.hidden(path("a", "c", 0, "d"), DOCUMENT, VIEW)).isFalse();
        assertThat(VisibleErrors.hidden(path("f"), DOCUMENT, VIEW)).isFalse();
        assertThat(VisibleErrors.hidden(path(), DOCUMENT, VIEW)).isFalse();
    }

    @Test
    void aLocationTheDocumentLacksIsNotHidden() {
        // "required" errors point at the parent; a missing value reveals nothing stored
        assertThat(VisibleErrors.hidden(path("g"), DOCUMENT, VIEW)).isFalse();
        assertThat(VisibleErrors.hidden(path("a", "c", 5), DOCUMENT, VIEW)).isFalse();
    }
}
