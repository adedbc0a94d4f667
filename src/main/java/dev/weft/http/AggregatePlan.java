package dev.weft.http;

import dev.weft.aggregate.Pipeline;
import dev.weft.core.ReadMode;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.security.Authorizer;
import dev.weft.security.DocumentAccess;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;

/**
 * An aggregation planned under the request's {@link DocumentAccess}, the one way the http layer
 * runs a pipeline (AccessThroughPlansTest lists it with the read plans, as it reads documents).
 *
 * <ul>
 *   <li>The pipeline sees only what its caller may read: the store's query is the leading
 *       {@code $match} stages narrowed by the read filter (so the read filter is in effect the
 *       first {@code $match}), and each document enters the caller's stages as the caller may
 *       see it (the policy, then {@code projectResponse}).</li>
 *   <li>A path the stages read from the stored documents is refused as a filter's is: 400
 *       when the collection's policy hides it, 403 (401 anonymous) when {@code projectResponse}
 *       does, since matching, sorting or grouping by it would reveal it.</li>
 *   <li>{@code $lookup} reads another collection only as a {@code GET} of it would: the access
 *       rules are asked again for that path (403 when no rule allows it), and its read filter,
 *       policy and projection apply to the documents joined.</li>
 *   <li>The leading {@code $match/$sort/$skip/$limit} run as the store's query (planner and
 *       indexes); the rest runs here, each blocking stage bounded by
 *       {@code aggregation-memory-bytes}, the whole by {@code query-timeout-ms} (or a lower
 *       {@code maxTimeMS}).</li>
 * </ul>
 */
final class AggregatePlan {
    /** Stops a store's scan once the pipeline wants no more input. */
    private static final class Enough extends RuntimeException {
        Enough() {
            super(null, null, false, false);
        }
    }

    private static final Enough ENOUGH = new Enough();
    private static final Sort NATURAL = new Sort(List.of(new IndexField("_id", 1)));

    private final Api api;
    private final Namespace ns;
    private final Pipeline pipeline;
    private final int done;
    private final FindQuery query;
    private final DocumentAccess.View view;
    private final ReadMode readMode;
    private final Map<String, DocumentAccess> lookups;

    private AggregatePlan(Api api, Namespace ns, Pipeline pipeline, int done, FindQuery query, DocumentAccess.View view,
                          ReadMode readMode, Map<String, DocumentAccess> lookups) {
        this.api = api;
        this.ns = ns;
        this.pipeline = pipeline;
        this.done = done;
        this.query = query;
        this.view = view;
        this.readMode = readMode;
        this.lookups = lookups;
    }

    /** {@code stages} (variables already bound) compiled and admitted under the request's access to {@code ns}. */
    static AggregatePlan of(Exchange ex, Api api, Authorizer authorizer, Namespace ns, JsonNode stages) {
        Pipeline pipeline = Pipeline.parse(stages, api.limits());
        DocumentAccess access = ex.context().access(ns);
        pipeline.readPaths().forEach(path -> access.checkReadPath("the pipeline", path));
        Pipeline.Prefix prefix = pipeline.prefix();
        Filter filter = TextQueries.bind(access.readFilter(prefix.filters(), api.limits()), api, ns, access);
        prefix.sort().ifPresent(sort -> sort.fields().forEach(f -> access.checkSortPath(f.path())));
        boolean storeSorts = prefix.sort().isEmpty() || prefix.limit() < Long.MAX_VALUE
                || servedByIndex(api, ns, prefix.sort().get());
        FindQuery query = storeSorts
                ? new FindQuery(filter, prefix.sort().orElse(NATURAL), prefix.skip(), prefix.limit(), Optional.empty())
                : new FindQuery(filter, NATURAL, 0, Long.MAX_VALUE, Optional.empty());
        int done = storeSorts ? prefix.length() : prefix.matches();
        Map<String, DocumentAccess> lookups = new HashMap<>();
        for (String coll : pipeline.lookupCollections()) {
            Namespace other = new Namespace(ns.db(), coll);
            var permission = authorizer.authorize(ex.context().principal(), "GET", List.of(ns.db(), coll));
            lookups.put(coll, ex.context().access(other, permission));
        }
        return new AggregatePlan(api, ns, pipeline, done, query, access.view(Optional.empty(), api.json()),
                api.readMode(ex, ns), lookups);
    }

    /**
     * Whether the store can stream {@code sort} without holding the matches (an export-sized
     * read needs that): on {@code _id} or on an index's fields. Otherwise the pipeline sorts,
     * within {@code aggregation-memory-bytes}.
     */
    private static boolean servedByIndex(Api api, Namespace ns, Sort sort) {
        if (sort.fields().size() == 1 && sort.fields().getFirst().path().equals("_id")) {
            return true;
        }
        return api.store().indexes(ns).stream().anyMatch(i -> i.fields().equals(sort.fields())
                || i.fields().equals(sort.fields().stream().map(f -> new IndexField(f.path(), -f.direction())).toList()));
    }

    /**
     * Runs the pipeline, handing each result to {@code out} until it returns false. The time
     * {@code out} takes (a slow client) is not counted against the query time.
     */
    void run(Predicate<JsonNode> out) {
        QueryTime time = QueryTime.start(api.settings().queryTimeoutMs());
        boolean[] stopped = {false};
        Pipeline.Options options = Pipeline.Options.of(api.settings().aggregationMemoryBytes(), this::lookup, time::row);
        Pipeline.Feed feed = pipeline.startAfter(done, options, result -> {
            if (stopped[0]) {
                return;
            }
            time.pause();
            stopped[0] = !out.test(result);
            time.resume();
        });
        try {
            api.store().find(ns, query, readMode, doc -> {
                time.row();
                if (stopped[0] || !feed.accept(api.json().parse(view.matched(doc.json()), "stored document"))) {
                    throw ENOUGH;
                }
            });
        } catch (Enough e) {
            // the pipeline has what it needs
        }
        time.checkNow();
        feed.finish();
    }

    private void lookup(String coll, JsonNode filterSpec, Predicate<JsonNode> each) {
        DocumentAccess access = lookups.get(coll);
        Namespace other = new Namespace(ns.db(), coll);
        if (access == null || api.store().collection(other).isEmpty()) {
            return; // MongoDB joins nothing from a collection that does not exist
        }
        Filter filter = access.readFilter(List.of(filterSpec), api.limits());
        DocumentAccess.View shown = access.view(Optional.empty(), api.json());
        try {
            api.store().find(other, new FindQuery(filter, NATURAL, 0, Long.MAX_VALUE, Optional.empty()), readMode, doc -> {
                if (!each.test(api.json().parse(shown.matched(doc.json()), "stored document"))) {
                    throw ENOUGH;
                }
            });
        } catch (Enough e) {
            // the stage has what it needs
        }
    }
}
