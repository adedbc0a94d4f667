package dev.weft.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class EventStagesTest {
    private static final Json JSON = Json.standard();
    private static final String EVENT = "{\"_id\":{\"_data\":\"000000000000002a\"},\"operationType\":\"insert\","
            + "\"fullDocument\":{\"_id\":1,\"name\":\"ann\",\"n\":2}}";

    private static Optional<EventStages> stages(String json) {
        return EventStages.of((ArrayNode) JSON.parse(json.getBytes(), "stages"), "stages", QueryLimits.defaults(), s -> s);
    }

    private static ObjectNode event() {
        return (ObjectNode) JSON.parse(EVENT.getBytes(), "event");
    }

    @Test
    void noStagesIsNothingToRun() {
        assertThat(stages("[]")).isEmpty();
    }

    @Test
    void shapesTheEventAndLeavesTheInputAsItWas() {
        EventStages s = stages("[{\"$set\":{\"fullDocument.n\":{\"$add\":[\"$fullDocument.n\",1]}}},"
                + "{\"$unset\":\"operationType\"},{\"$project\":{\"fullDocument.name\":0}}]").orElseThrow();
        ObjectNode in = event();
        assertThat(s.apply(in, 0).orElseThrow().toString())
                .isEqualTo("{\"_id\":{\"_data\":\"000000000000002a\"},\"fullDocument\":{\"_id\":1,\"n\":3}}");
        assertThat(in).isEqualTo(event());
    }

    @Test
    void aLaterMatchLeavesTheEventOut() {
        EventStages s = stages("[{\"$addFields\":{\"big\":{\"$gt\":[\"$fullDocument.n\",5]}}},{\"$match\":{\"big\":true}}]")
                .orElseThrow();
        assertThat(s.apply(event(), 0)).isEmpty();
    }

    @Test
    void readPathsAreEventPaths() {
        assertThat(stages("[{\"$addFields\":{\"s\":\"$fullDocument.secret\"}}]").orElseThrow().readPaths())
                .isEqualTo(Set.of("fullDocument.secret"));
    }

    @Test
    void touchingTheTokenOrAnotherStageIs400() {
        for (String bad : new String[] {"[{\"$unset\":\"_id\"}]", "[{\"$project\":{\"_id\":false}}]",
                "[{\"$addFields\":{\"_id\":{\"$literal\":1}}}]", "[{\"$set\":{\"_id._data\":\"x\"}}]"}) {
            assertThatThrownBy(() -> stages(bad)).isInstanceOf(WeftException.class).hasMessageContaining("resume token");
        }
        assertThatThrownBy(() -> stages("[{\"$replaceRoot\":{\"newRoot\":\"$fullDocument\"}}]"))
                .isInstanceOf(WeftException.class).hasMessageContaining("stage $replaceRoot is not supported");
    }

    @Test
    void anInclusionThatKeepsIdKeepsTheToken() {
        EventStages s = stages("[{\"$project\":{\"_id\":1,\"fullDocument\":1}}]").orElseThrow();
        assertThat(s.apply(event(), 0).orElseThrow().has("_id")).isTrue();
    }
}
