package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A compiled MongoDB aggregation pipeline. Parsing refuses (400, naming it) any stage or
 * operator it does not know; running pushes documents through the stages one at a time
 * ({@link Feed}), the blocking stages holding at most {@link Options#memoryBytes} each.
 *
 * <p>The leading {@code $match}/{@code $sort}/{@code $skip}/{@code $limit} stages are the
 * {@link #prefix()}: a caller with a store runs them as its query (so indexes serve them) and
 * starts the pipeline after them ({@link #startAfterPrefix}); {@link #run} runs every stage in
 * memory, the reference evaluator.
 */
public final class Pipeline {
    /** Reads another collection of the same database for {@code $lookup}, as the caller may see it. */
    @FunctionalInterface
    public interface Collections {
        /** Hands each document of {@code collection} matching {@code filter} to {@code each} until it returns false. */
        void find(String collection, JsonNode filter, Predicate<JsonNode> each);

        Collections NONE = (collection, filter, each) -> {
            throw WeftException.badRequest("$lookup is not available here");
        };
    }

    /**
     * How one execution runs: the memory each blocking stage may hold, {@code $$NOW}, the
     * collections {@code $lookup} reads, and {@code tick}, called as documents are processed (to
     * enforce a time limit by throwing).
     */
    public record Options(long memoryBytes, JsonNode now, Collections collections, Runnable tick) {
        public static Options of(long memoryBytes, Collections collections, Runnable tick) {
            return new Options(memoryBytes, AggValues.date(System.currentTimeMillis()), collections, tick);
        }
    }

    /**
     * The leading stages a store can run as its query: filters (ANDed), a sort, skip and limit;
     * {@code matches} is how many stages the filters are, {@code length} how many in all.
     */
    public record Prefix(List<JsonNode> filters, Optional<Sort> sort, long skip, long limit, int matches, int length) {}

    /** Documents pushed into a running pipeline. */
    public interface Feed {
        /** False once no more input is wanted. */
        boolean accept(JsonNode document);

        /** End of input: blocking stages emit now. */
        void finish();
    }

    private final List<Stage> stages;
    private final Prefix prefix;
    private final Set<String> readPaths;
    private final Set<String> lookups;

    private Pipeline(List<Stage> stages, Set<String> readPaths, Set<String> lookups) {
        this.stages = stages;
        this.readPaths = readPaths;
        this.lookups = lookups;
        List<JsonNode> filters = new ArrayList<>();
        Optional<Sort> sort = Optional.empty();
        long skip = 0;
        long limit = Long.MAX_VALUE;
        int i = 0;
        while (i < stages.size() && stages.get(i) instanceof StreamingStages.Match m && m.pushable()) {
            if (!m.filterSpec.isEmpty()) {
                filters.add(m.filterSpec);
            }
            i++;
        }
        int matches = i;
        if (i < stages.size() && stages.get(i) instanceof BlockingStages.SortStage s) {
            sort = Optional.of(s.sort);
            i++;
        }
        if (i < stages.size() && stages.get(i) instanceof StreamingStages.Skip s) {
            skip = s.n();
            i++;
        }
        if (i < stages.size() && stages.get(i) instanceof StreamingStages.Limit l) {
            limit = l.n();
            i++;
        }
        this.prefix = new Prefix(List.copyOf(filters), sort, skip, limit, matches, i);
    }

    /** Compiles {@code stages} (a JSON array); 400 for anything MongoDB would refuse or Weft does not run. */
    public static Pipeline parse(JsonNode stages, QueryLimits limits) {
        Set<String> lookups = new LinkedHashSet<>();
        StageParser parser = new StageParser(limits, Set.of(), lookups);
        List<Stage> parsed = parser.parseAll(stages, "a pipeline");
        return new Pipeline(parsed, Set.copyOf(parser.paths()), Set.copyOf(lookups));
    }

    public Prefix prefix() {
        return prefix;
    }

    /**
     * The document paths the pipeline reads from the collection's documents as stored (before a
     * stage replaces them with new ones): what the caller's access must show.
     */
    public Set<String> readPaths() {
        return readPaths;
    }

    /** The collections its {@code $lookup} stages read. */
    public Set<String> lookupCollections() {
        return lookups;
    }

    /** Starts every stage; results go to {@code out}. */
    public Feed start(Options options, Consumer<JsonNode> out) {
        return feed(stages, options, out);
    }

    /**
     * Starts the stages after the first {@code done} (the store ran them: {@link Prefix#matches}
     * or {@link Prefix#length}), for input they already filtered, sorted and paged.
     */
    public Feed startAfter(int done, Options options, Consumer<JsonNode> out) {
        return feed(stages.subList(done, stages.size()), options, out);
    }

    private static Feed feed(List<Stage> stages, Options options, Consumer<JsonNode> out) {
        Sink head = chain(stages, new Run(options, java.util.Map.of()), new Sink() {
            @Override
            public boolean accept(JsonNode document) {
                out.accept(document);
                return true;
            }

            @Override
            public void finish() {}
        });
        return new Feed() {
            @Override
            public boolean accept(JsonNode document) {
                return head.accept(document);
            }

            @Override
            public void finish() {
                head.finish();
            }
        };
    }

    /** Every stage in memory over {@code input}: the reference evaluator. */
    public List<JsonNode> run(List<? extends JsonNode> input, Options options) {
        List<JsonNode> out = new ArrayList<>();
        Feed feed = start(options, out::add);
        for (JsonNode doc : input) {
            if (!feed.accept(doc)) {
                break;
            }
        }
        feed.finish();
        return out;
    }

    static Sink chain(List<Stage> stages, Run run, Sink last) {
        Sink sink = last;
        for (int i = stages.size() - 1; i >= 0; i--) {
            sink = stages.get(i).into(sink, run);
        }
        return sink;
    }

    /**
     * A pipeline update (PATCH with an array body): only {@code $set/$addFields}, {@code $unset},
     * {@code $project} and {@code $replaceRoot/$replaceWith}, as MongoDB allows; 400 for others.
     */
    public static Pipeline parseUpdate(JsonNode stages, QueryLimits limits) {
        if (!stages.isArray() || stages.isEmpty()) {
            throw WeftException.badRequest("an update pipeline is a non-empty array of stages");
        }
        for (JsonNode s : stages) {
            String name = s.isObject() && s.size() == 1 ? s.propertyNames().iterator().next() : "";
            if (!Set.of("$set", "$addFields", "$unset", "$project", "$replaceRoot", "$replaceWith").contains(name)) {
                throw WeftException.badRequest("stage " + (name.isEmpty() ? s.toString() : name) + " is not allowed in an update"
                        + " pipeline (only $set, $addFields, $unset, $project, $replaceRoot and $replaceWith)");
            }
        }
        return parse(stages, limits);
    }

    /** The document an update pipeline makes of {@code document} ({@code now} is its {@code $$NOW}). */
    public ObjectNode update(ObjectNode document, JsonNode now) {
        List<JsonNode> out = run(List.of(document), new Options(Long.MAX_VALUE, now, Collections.NONE, () -> {}));
        return out.isEmpty() ? Json.NODES.objectNode() : (ObjectNode) out.getFirst();
    }
}
