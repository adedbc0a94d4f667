package dev.weft.aggregate;

import dev.weft.core.Json;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code $lookup} in the same database: the equality form ({@code localField}/{@code foreignField})
 * or the pipeline form ({@code let}/{@code pipeline}). The other collection is read through
 * {@link Pipeline.Collections}, which applies the caller's access to it, one query per input
 * document; the joined array counts against the memory bound.
 */
final class Lookup implements Stage {
    private final String from;
    private final String[] as;
    private final String[] localField;
    private final String foreignField;
    private final List<String> letNames;
    private final List<Expr> letValues;
    private final List<Stage> pipeline;
    private final JsonNode pushedFilter;

    Lookup(String from, String[] as, String[] localField, String foreignField, List<String> letNames,
           List<Expr> letValues, List<Stage> pipeline, JsonNode pushedFilter) {
        this.from = from;
        this.as = as;
        this.localField = localField;
        this.foreignField = foreignField;
        this.letNames = letNames;
        this.letValues = letValues;
        this.pipeline = pipeline;
        this.pushedFilter = pushedFilter;
    }

    @Override
    public Sink into(Sink next, Run run) {
        MemoryBudget budget = run.budget("$lookup");
        return new Sink() {
            @Override
            public boolean accept(JsonNode doc) {
                run.tick();
                ArrayNode joined = localField != null ? byEquality(doc) : byPipeline(doc, run);
                return next.accept(Documents.set(doc, as, 0, joined));
            }

            private ArrayNode byEquality(JsonNode doc) {
                JsonNode local = AggValues.path(doc, localField, 0);
                ArrayNode values = Json.NODES.arrayNode();
                if (local != null && local.isArray()) {
                    values.addAll((ArrayNode) local);
                } else {
                    values.add(AggValues.orNull(local));
                }
                ObjectNode filter = Json.NODES.objectNode();
                filter.putObject(foreignField).set("$in", values);
                ArrayNode out = Json.NODES.arrayNode();
                long[] held = {0};
                run.options.collections().find(from, filter, found -> {
                    held[0] += MemoryBudget.size(found);
                    budget.holding(held[0]);
                    out.add(found);
                    return true;
                });
                return out;
            }

            private ArrayNode byPipeline(JsonNode doc, Run outer) {
                Scope scope = outer.scope(doc);
                Map<String, JsonNode> lets = new HashMap<>();
                for (int i = 0; i < letNames.size(); i++) {
                    JsonNode v = letValues.get(i).eval(scope);
                    lets.put(letNames.get(i), v);
                }
                Run inner = new Run(outer.options, lets);
                ArrayNode out = Json.NODES.arrayNode();
                long[] held = {0};
                Sink head = Pipeline.chain(pipeline, inner, new Sink() {
                    @Override
                    public boolean accept(JsonNode found) {
                        held[0] += MemoryBudget.size(found);
                        budget.holding(held[0]);
                        out.add(found);
                        return true;
                    }

                    @Override
                    public void finish() {}
                });
                outer.options.collections().find(from, pushedFilter, head::accept);
                head.finish();
                return out;
            }

            @Override
            public void finish() {
                next.finish();
            }
        };
    }
}
