package dev.weft.http;

import dev.weft.aggregate.Definitions;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.security.Authorizer;
import dev.weft.store.Metadata;
import dev.weft.store.Namespace;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.OptionalLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's aggregations: {@code GET /{db}/{coll}/_aggrs/{uri}} runs the pipeline the
 * collection's {@code aggrs} metadata defines, with the client's {@code avars}; and, beyond
 * RESTHeart, {@code POST /{db}/{coll}/_aggrs} runs the pipeline in the body, for admins and
 * for rules with {@code allowAdhocAggregations}. Results are a JSON array paged by
 * {@code page}/{@code pagesize} (unless a stored pipeline pages itself with {@code @page},
 * {@code @pagesize}, {@code @skip} or {@code @limit}), or every result as ndjson with
 * {@code Accept: application/x-ndjson}. What the pipeline may see is {@link AggregatePlan}'s.
 */
final class AggregationEndpoints {
    private static final int BUFFER = 32 * 1024;

    private final Api api;
    private final Authorizer authorizer;

    AggregationEndpoints(Api api, Authorizer authorizer) {
        this.api = api;
        this.authorizer = authorizer;
    }

    void named(Exchange ex) throws IOException {
        Namespace ns = api.namespace(ex);
        Metadata meta = api.existingCollection(ns);
        String uri = ex.pathParam("uri");
        JsonNode stored = Definitions.stages(meta.properties(), uri);
        ObjectNode avars = avars(ex);
        int page = ReadParams.intParam(ex, "page", 1, 1, Integer.MAX_VALUE);
        int pageSize = ReadParams.intParam(ex, "pagesize", api.settings().defaultPageSize(), 0, api.settings().maxPageSize());
        boolean pagesItself = Definitions.pagesItself(stored);
        avars.put("@page", page);
        avars.put("@pagesize", pageSize);
        avars.put("@skip", (long) (page - 1) * pageSize);
        avars.put("@limit", pageSize);
        JsonNode stages = Definitions.bind(stored, avars, uri);
        int answerPage = pagesItself ? 1 : page;
        int answerSize = pagesItself ? Integer.MAX_VALUE : pageSize;
        answer(ex, AggregatePlan.of(ex, api, authorizer, ns, stages, answered(ex, answerPage, answerSize)), answerPage, answerSize);
    }

    void adhoc(Exchange ex) throws IOException {
        ex.permission().admitAdhocAggregation();
        Namespace ns = api.namespace(ex);
        api.existingCollection(ns);
        JsonNode body = api.jsonBody(ex);
        if (!body.isArray()) {
            throw WeftException.badRequest("the body must be a pipeline: a JSON array of stages");
        }
        int page = ReadParams.intParam(ex, "page", 1, 1, Integer.MAX_VALUE);
        int pageSize = ReadParams.intParam(ex, "pagesize", api.settings().defaultPageSize(), 0, api.settings().maxPageSize());
        answer(ex, AggregatePlan.of(ex, api, authorizer, ns, body, answered(ex, page, pageSize)), page, pageSize);
    }

    /** How many results the answer takes at most: up to the page's end as a JSON array, all as ndjson. */
    private static OptionalLong answered(Exchange ex, int page, int pageSize) {
        return ndjson(ex) || pageSize == Integer.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of((long) page * pageSize);
    }

    private static boolean ndjson(Exchange ex) {
        return ex.header("Accept").map(a -> a.contains(CollectionEndpoints.NDJSON)).orElse(false);
    }

    private ObjectNode avars(Exchange ex) {
        if (ex.param("avars").isEmpty()) {
            return Json.NODES.objectNode();
        }
        JsonNode avars = ReadParams.jsonParam(api, "avars", ex.param("avars").get());
        if (!avars.isObject()) {
            throw WeftException.badRequest("avars must be a JSON object such as {\"name\": \"value\"}");
        }
        for (String name : avars.propertyNames()) {
            if (name.startsWith("@")) {
                throw WeftException.badRequest("avars." + name + ": names starting with @ are Weft's own");
            }
        }
        return ((ObjectNode) avars).deepCopy();
    }

    private void answer(Exchange ex, AggregatePlan plan, int page, int pageSize) throws IOException {
        if (ndjson(ex)) {
            streamAll(ex, plan);
            return;
        }
        long skip = (long) (page - 1) * pageSize;
        ArrayNode results = Json.NODES.arrayNode();
        long[] seen = {0};
        if (pageSize > 0) {
            plan.run(result -> {
                if (seen[0]++ >= skip) {
                    results.add(result);
                }
                return results.size() < pageSize;
            });
        }
        ex.sendJson(200, api.json().bytes(results));
    }

    /** Every result, one per line, the 200 committed with the first bytes (an error before that is a JSON error). */
    private void streamAll(Exchange ex, AggregatePlan plan) throws IOException {
        OutputStream out = new BufferedOutputStream(new NdjsonExport.OpenedOnFirstWrite(ex), BUFFER);
        Optional<JsonMode> mode = ex.jsonMode();
        plan.run(result -> {
            try {
                out.write(api.json().bytes(mode.isPresent() ? mode.get().render(result) : result));
                out.write('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return true;
        });
        out.close();
    }
}
