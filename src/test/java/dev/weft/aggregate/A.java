package dev.weft.aggregate;

import dev.weft.query.QueryLimits;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Relaxed JSON for test tables ({@code {a: 'x'}}) and a pipeline run in memory. */
final class A {
    static final JsonMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .enable(JsonReadFeature.ALLOW_UNQUOTED_PROPERTY_NAMES)
                    .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
                    .build())
            .build();
    static final JsonNode NOW = AggValues.date(1_700_000_000_000L);

    private A() {}

    static JsonNode j(String relaxed) {
        return MAPPER.readTree(relaxed);
    }

    static List<JsonNode> run(String pipeline, String docs) {
        List<JsonNode> input = new ArrayList<>();
        j(docs).forEach(input::add);
        return Pipeline.parse(j(pipeline), QueryLimits.defaults())
                .run(input, new Pipeline.Options(1 << 20, NOW, Pipeline.Collections.NONE, () -> {}));
    }

    /** The value of {@code expr} over {@code doc}, as {@code {v: expr}} projects it ("missing" when absent). */
    static String eval(String expr, String doc) {
        List<JsonNode> out = run("[{$project: {_id: 0, v: " + expr + "}}]", "[" + doc + "]");
        JsonNode v = out.getFirst().get("v");
        return v == null ? "missing" : v.toString();
    }
}
