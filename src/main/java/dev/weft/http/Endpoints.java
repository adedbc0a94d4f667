package dev.weft.http;

import dev.weft.observe.Metrics;
import dev.weft.store.MemoryOnly;
import java.nio.charset.StandardCharsets;

/** The endpoints the route table points at, built once over one {@link Api}. */
record Endpoints(Endpoint ping, Endpoint metrics, DatabaseEndpoints databases, CollectionEndpoints collections,
                 DocumentEndpoints documents, BulkEndpoints bulk, IndexEndpoints indexes, StreamEndpoints streams,
                 Endpoint openApi, ConsoleFiles console, AggregationEndpoints aggregations, TokenEndpoints tokens,
                 SessionEndpoints sessions) {

    private static final byte[] PONG = "{\"message\":\"Greetings from Weft!\"}".getBytes(StandardCharsets.UTF_8);

    static Endpoints of(Api api, Metrics metrics, StreamEndpoints streams, AggregationEndpoints aggregations,
                        TokenEndpoints tokens) {
        return new Endpoints(
                ex -> ex.sendJson(200, PONG),
                ex -> ex.send(200, "text/plain; version=0.0.4; charset=utf-8",
                        metrics.render().getBytes(StandardCharsets.UTF_8)),
                new DatabaseEndpoints(api),
                collections(api, metrics),
                new DocumentEndpoints(api),
                new BulkEndpoints(api),
                new IndexEndpoints(api),
                streams,
                OpenApiDescription.endpoint(api.json()),
                new ConsoleFiles("console/"),
                aggregations,
                tokens,
                new SessionEndpoints(api));
    }

    private static CollectionEndpoints collections(Api api, Metrics metrics) {
        CollectionEndpoints collections = new CollectionEndpoints(api);
        metrics.counter("weft_held_list_answers_total", "List reads answered from held rows on a selector thread (selector-read-budget-us), without a virtual thread.",
                () -> collections.heldAttempts(MemoryOnly.Outcome.ANSWERED));
        metrics.counter("weft_held_list_waits_total", "List reads of held collections tried on a selector thread that needed the table (then run on a virtual thread).",
                () -> collections.heldAttempts(MemoryOnly.Outcome.WOULD_WAIT));
        metrics.counter("weft_held_list_over_budget_total", "List reads of held collections tried on a selector thread that ran past selector-read-budget-us (then run on a virtual thread).",
                () -> collections.heldAttempts(MemoryOnly.Outcome.OVER_BUDGET));
        metrics.counter("weft_held_list_not_now_total", "List reads of held collections tried on a selector thread that found no idle read connection or a planner count to refresh (then run on a virtual thread, and tried again at the next request).",
                () -> collections.heldAttempts(MemoryOnly.Outcome.NOT_NOW));
        return collections;
    }
}
