package dev.weft.aggregate;

import java.util.Map;
import tools.jackson.databind.JsonNode;

/** What one execution of a pipeline shares: its options and the variables bound by an enclosing {@code $lookup}. */
final class Run {
    final Pipeline.Options options;
    private final Map<String, JsonNode> lets;

    Run(Pipeline.Options options, Map<String, JsonNode> lets) {
        this.options = options;
        this.lets = lets;
    }

    MemoryBudget budget(String stage) {
        return new MemoryBudget(stage, options.memoryBytes());
    }

    Scope scope(JsonNode document) {
        Scope s = Scope.of(document, options.now());
        for (Map.Entry<String, JsonNode> e : lets.entrySet()) {
            s = s.with(e.getKey(), e.getValue());
        }
        return s;
    }

    void tick() {
        options.tick().run();
    }
}
