package dev.weft.http;

import dev.weft.aggregate.Pipeline;
import dev.weft.core.ReadMode;
import dev.weft.query.DocumentHead;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.query.TextSearch;
import dev.weft.security.Authorizer;
import dev.weft.security.DocumentAccess;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.QueryTime;
import dev.weft.store.StoredDocument;
import dev.weft.core.WeftException;
import dev.weft.query.PathTrie;
import dev.weft.query.PrunedReader;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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
 *   <li>A first {@code $match} with {@code $text} is bound to the collection's text index as a
 *       find's is ({@link TextQueries}: 403 when the index covers a field {@code projectResponse}
 *       hides), and the store answers it from that index, ranked when sorted by {@code textScore}
 *       ({@code store/sql/RankedText}), never by a scan in parts. When the stages read the
 *       textScore, each document enters with the one find would show: the score the store ranked
 *       it by, else MongoDB's per-document formula ({@link StoreTextScore}'s rule).</li>
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
    private final boolean scanInParts;
    private final Function<byte[], JsonNode> reader;
    /** The search whose textScore each input document carries in, when the stages read it. */
    private final Optional<TextSearch> scoredBy;

    private AggregatePlan(Api api, Namespace ns, Pipeline pipeline, int done, FindQuery query, DocumentAccess.View view,
                          ReadMode readMode, Map<String, DocumentAccess> lookups, boolean scanInParts) {
        this.api = api;
        this.ns = ns;
        this.pipeline = pipeline;
        this.done = done;
        this.query = query;
        this.view = view;
        this.readMode = readMode;
        this.lookups = lookups;
        this.scanInParts = scanInParts;
        this.reader = reader(api, pipeline);
        this.scoredBy = pipeline.usesTextScore() ? query.filter().textSearch() : Optional.empty();
    }

    /**
     * How a stored document (as the caller may see it) becomes the pipeline's input: parsed
     * whole, or, when the pipeline reads only some paths of it, pruned to them (and {@code _id},
     * which orders a scan read in parts) without decoding the rest.
     */
    private static Function<byte[], JsonNode> reader(Api api, Pipeline pipeline) {
        if (pipeline.readsWholeDocuments() || pipeline.usesTextScore()) { // MongoDB's score reads the text fields
            return bytes -> api.json().parse(bytes, "stored document");
        }
        Set<String> paths = new HashSet<>(pipeline.readPaths());
        paths.add("_id");
        PrunedReader pruned = new PrunedReader(api.json(), PathTrie.of(paths));
        return pruned::read;
    }

    /**
     * {@code stages} (variables already bound) compiled and admitted under the request's access to
     * {@code ns}; {@code answered} is how many results the answer takes at most (a page's end),
     * when it is known.
     */
    static AggregatePlan of(Exchange ex, Api api, Authorizer authorizer, Namespace ns, JsonNode stages, OptionalLong answered) {
        Pipeline pipeline = Pipeline.parseAggregation(stages, api.limits());
        DocumentAccess access = ex.context().access(ns);
        pipeline.readPaths().forEach(path -> access.checkReadPath("the pipeline", path));
        Pipeline.Prefix prefix = pipeline.prefix();
        Filter filter = TextQueries.bind(access.readFilter(prefix.filters(), api.limits()), api, ns, access);
        prefix.sort().ifPresent(sort -> sort.fields().stream().filter(f -> !f.path().equals(Sort.TEXT_SCORE))
                .forEach(f -> access.checkSortPath(f.path())));
        long limit = rankedPage(pipeline, answered).orElse(prefix.limit());
        boolean storeSorts = prefix.sort().isEmpty() || limit < Long.MAX_VALUE
                || servedByIndex(api, ns, prefix.sort().get());
        FindQuery query = storeSorts
                ? new FindQuery(filter, prefix.sort().orElse(NATURAL), prefix.skip(), limit, Optional.empty())
                : new FindQuery(filter, NATURAL, 0, Long.MAX_VALUE, Optional.empty());
        int done = storeSorts ? prefix.length() : prefix.matches();
        Map<String, DocumentAccess> lookups = new HashMap<>();
        for (String coll : pipeline.lookupCollections()) {
            Namespace other = new Namespace(ns.db(), coll);
            var permission = authorizer.authorize(ex.context().principal(), "GET", List.of(ns.db(), coll));
            lookups.put(coll, ex.context().access(other, permission));
        }
        // A scan read in parts has no order: only a filter may go before it, and the parts' inputs
        // are put back in _id order by their _id, so the caller must be able to see it.
        // A $text match is answered from the text index, not by scanning every part.
        boolean scanInParts = storeSorts && prefix.length() == prefix.matches() && seesIds(access)
                && filter.textSearch().isEmpty();
        return new AggregatePlan(api, ns, pipeline, done, query, access.view(Optional.empty(), api.json()),
                api.readMode(ex, ns), lookups, scanInParts);
    }

    /**
     * A sort by textScore with no {@code $limit} after it, whose answer takes the first n results
     * of stages that make one document of each input: the store's ranked page of n, so the order and
     * scores are find's (and only about n documents are read), rather than every match sorted here
     * by MongoDB's per-document formula.
     */
    private static OptionalLong rankedPage(Pipeline pipeline, OptionalLong answered) {
        Pipeline.Prefix prefix = pipeline.prefix();
        if (answered.isEmpty() || prefix.limit() < Long.MAX_VALUE || prefix.sort().isEmpty()
                || !prefix.sort().get().byTextScore() || !pipeline.oneForOneAfter(prefix.length())) {
            return OptionalLong.empty();
        }
        return answered;
    }

    private static boolean seesIds(DocumentAccess access) {
        try {
            access.checkReadPath("the pipeline", "_id");
            return true;
        } catch (WeftException hidden) {
            return false;
        }
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
        Consumer<JsonNode> results = result -> {
            if (stopped[0]) {
                return;
            }
            time.pause();
            stopped[0] = !out.test(result);
            time.resume();
        };
        Optional<Pipeline.Parts> parts = scanInParts ? pipeline.inParts(done, options) : Optional.empty();
        if (parts.isPresent()) {
            runInParts(parts.get(), time, options, results);
            return;
        }
        Pipeline.Feed feed = pipeline.startAfter(done, options, results);
        try {
            api.store().find(ns, query, readMode, doc -> {
                time.row();
                if (stopped[0] || !feed.accept(input(doc))) {
                    throw ENOUGH;
                }
            });
        } catch (Enough e) {
            // the pipeline has what it needs
        }
        time.checkNow();
        feed.finish();
    }

    /** A stored document as the pipeline takes it: as the caller may see it, with its textScore if the stages read it. */
    private JsonNode input(StoredDocument doc) {
        JsonNode input = reader.apply(view.matched(doc.json()));
        if (scoredBy.isEmpty()) {
            return input;
        }
        return Pipeline.scored(input, Double.isNaN(doc.textScore()) ? scoredBy.get().score(input) : doc.textScore());
    }

    /**
     * The stages up to the first blocking one, per part of the store's scan (one part per core,
     * each on its own thread, with its own partial), then the partials merged and the rest run
     * here. The memory setting bounds the partials together; the time limit is one deadline for
     * every part.
     */
    private void runInParts(Pipeline.Parts parts, QueryTime time, Pipeline.Options options, Consumer<JsonNode> results) {
        long deadline = time.deadlineNanos();
        int count = Runtime.getRuntime().availableProcessors();
        // a $group or $count first, on stored bytes, of named fields only: a document's head may stand for it
        Set<String> names = parts.readsStoredBytes() && !pipeline.readsWholeDocuments() && !pipeline.usesTextScore()
                ? pipeline.readPaths().stream().map(DocumentHead::topName).collect(java.util.stream.Collectors.toSet()) : null;
        api.store().scanParts(ns, query.filter(), names, readMode, count, i -> {
            // one $$NOW for every part: the run's
            Pipeline.Options own = new Pipeline.Options(options.memoryBytes(), options.now(), this::lookup,
                    deadlineTick(time, deadline));
            if (parts.readsStoredBytes()) {
                Pipeline.StoredPart part = parts.storedPart(own, api.json());
                return doc -> part.accept(view.matched(doc.json()));
            }
            Pipeline.Part part = parts.part(own);
            return doc -> {
                JsonNode input = reader.apply(view.matched(doc.json()));
                part.accept(input.get("_id"), input);
            };
        });
        time.checkNow();
        parts.finish(options, results);
    }

    /** A part's time check: past {@code deadline}, the query's "exceeded time limit" (the clock looked at every few rows). */
    private static Runnable deadlineTick(QueryTime time, long deadline) {
        return new Runnable() {
            private int rows;

            @Override
            public void run() {
                if ((++rows & 31) == 0 && System.nanoTime() - deadline > 0) {
                    throw time.exceeded();
                }
            }
        };
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
