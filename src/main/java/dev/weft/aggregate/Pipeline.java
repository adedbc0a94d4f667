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
    private final boolean readsWholeDocuments;
    private final Set<String> lookups;
    private final boolean usesTextScore;

    private Pipeline(List<Stage> stages, Set<String> readPaths, boolean readsWholeDocuments, Set<String> lookups,
                     boolean usesTextScore) {
        this.stages = stages;
        this.usesTextScore = usesTextScore;
        this.readPaths = readPaths;
        this.readsWholeDocuments = readsWholeDocuments;
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

    /**
     * Compiles {@code stages} (a JSON array) of a change stream: no {@code $text}; 400 for anything
     * MongoDB would refuse or Weft does not run.
     */
    public static Pipeline parse(JsonNode stages, QueryLimits limits) {
        return parse(stages, new StageParser(limits, Set.of(), new LinkedHashSet<>()));
    }

    /**
     * Compiles an aggregation's {@code stages}: as {@link #parse}, and its first stage may be a
     * {@code $match} with {@code $text} (then in the {@link #prefix}), whose textScore the stages
     * after it may read ({@link #usesTextScore}).
     */
    public static Pipeline parseAggregation(JsonNode stages, QueryLimits limits) {
        return parse(stages, StageParser.aggregation(limits, new LinkedHashSet<>()));
    }

    /** Compiles one stage of a stored pipeline alone: as in an aggregation, where it could be the first stage or follow one. */
    static Pipeline parseStoredStage(JsonNode stages, QueryLimits limits) {
        return parse(stages, StageParser.storedStage(limits, new LinkedHashSet<>()));
    }

    private static Pipeline parse(JsonNode stages, StageParser parser) {
        List<Stage> parsed = parser.parseAll(stages, "a pipeline");
        return new Pipeline(parsed, Set.copyOf(parser.paths()), parser.readsWholeDocuments(), Set.copyOf(parser.lookups()),
                parser.usesTextScore());
    }

    /**
     * Whether a stage reads the textScore of the leading {@code $text} match: then each input
     * document is given its score ({@link #scored}) before it enters.
     */
    public boolean usesTextScore() {
        return usesTextScore;
    }

    /**
     * Whether every stage after the first {@code done} makes exactly one document of each input
     * ({@code $project $addFields $set $unset $replaceRoot $replaceWith}), so the first n results
     * come from the first n inputs.
     */
    public boolean oneForOneAfter(int done) {
        return stages.subList(done, stages.size()).stream().allMatch(s -> s instanceof StreamingStages.Project
                || s instanceof StreamingStages.AddFields || s instanceof StreamingStages.ReplaceRoot);
    }

    /** {@code document} with the textScore {@code score}, as a pipeline that {@link #usesTextScore} takes its input. */
    public static JsonNode scored(JsonNode document, double score) {
        return ScoredDocument.of(document, score);
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

    /**
     * Whether a run needs the documents whole; when false, {@link #readPaths} is all it reads of
     * them (every document is replaced by a new one before output, and nothing before that
     * reads {@code $$ROOT}), so a pruned read of those paths gives the same results.
     */
    public boolean readsWholeDocuments() {
        return readsWholeDocuments;
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
        Sink head = chain(stages, new Run(options, java.util.Map.of()), handingTo(out));
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

    /**
     * The stages after the first {@code done} as a run over a scan read in parts, when they are
     * stages that map each document on its own ({@code $match $project $addFields $set $unset
     * $replaceRoot $unwind}) followed by a mergeable blocking stage ({@code $group $sortByCount
     * $count}): each part runs the first through a partial of the second, and {@link
     * Parts#finish} merges the partials and runs the rest. Empty otherwise.
     */
    public Optional<Parts> inParts(int done, Options options) {
        int i = done;
        while (i < stages.size() && (stages.get(i) instanceof StreamingStages.PerDocument
                || stages.get(i) instanceof StreamingStages.Unwind)) {
            i++;
        }
        if (i == stages.size() || !(stages.get(i) instanceof Mergeable blocking)) {
            return Optional.empty();
        }
        return Optional.of(new Parts(stages.subList(done, i), blocking, stages.subList(i + 1, stages.size()), options));
    }

    /** One part of a scan read in parts: thread-confined. */
    public interface Part {
        /**
         * Takes one stored document, as the caller may see it; {@code id} is its {@code _id}
         * (which orders the parts' inputs as one range would have them), needed when
         * {@link Parts#needsIds()}.
         */
        void accept(JsonNode id, JsonNode document);
    }

    /** One part of a scan read in parts that takes the stored bytes of each document: thread-confined. */
    public interface StoredPart {
        /** Takes one stored document, as the caller may see it. */
        void accept(byte[] document);
    }

    /** A run over a scan read in parts: {@link #part} for each part (any thread), then {@link #finish} once. */
    public static final class Parts {
        private final List<Stage> perDocument;
        private final Mergeable blocking;
        private final List<Stage> rest;
        private final MemoryBudget budget;
        private final List<Mergeable.Partial> partials = new ArrayList<>();
        private final Optional<StoredGroup> stored;

        private Parts(List<Stage> perDocument, Mergeable blocking, List<Stage> rest, Options options) {
            this.stored = perDocument.isEmpty() ? StoredGroup.of(blocking) : Optional.empty();
            this.perDocument = perDocument;
            this.blocking = blocking;
            this.rest = rest;
            this.budget = new MemoryBudget("$group", options.memoryBytes());
        }

        public boolean needsIds() {
            return blocking.ordered();
        }

        /**
         * Whether {@link #storedPart} can take the documents as stored bytes: the blocking stage
         * comes first and is a {@code $group} that {@link StoredGroup} evaluates on bytes, or a
         * {@code $count}.
         */
        public boolean readsStoredBytes() {
            return stored.isPresent() || counts();
        }

        /** A {@code $count} first: it reads nothing of a document, so none is parsed. */
        private boolean counts() {
            return perDocument.isEmpty() && blocking instanceof BlockingStages.Count;
        }

        /**
         * A part taking each stored document's bytes (as the caller may see them, JSON the
         * server wrote), when {@link #readsStoredBytes}; run as {@link #part}.
         */
        public StoredPart storedPart(Options options, Json json) {
            Run run = new Run(options, java.util.Map.of());
            if (counts()) {
                Mergeable.Partial counted = partial(run);
                return document -> counted.accept(null, null);
            }
            return stored.orElseThrow().part((BlockingStages.Group.Groups) partial(run), json);
        }

        private Mergeable.Partial partial(Run run) {
            Mergeable.Partial partial = blocking.partial(run, budget);
            synchronized (partials) {
                partials.add(partial);
            }
            return partial;
        }

        /** A part, run with {@code options} (its own {@code tick}, as it runs on its own thread). */
        public Part part(Options options) {
            Run run = new Run(options, java.util.Map.of());
            Mergeable.Partial partial = partial(run);
            boolean ordered = blocking.ordered();
            JsonNode[] current = new JsonNode[1];
            Sink head = chain(perDocument, run, new Sink() {
                long rank;

                @Override
                public boolean accept(JsonNode document) {
                    partial.accept(document, ordered ? new Accumulators.Position(current[0], rank++) : null);
                    return true;
                }

                @Override
                public void finish() {}
            });
            return (id, document) -> {
                current[0] = id;
                head.accept(document);
            };
        }

        /** Merges the parts (all read) and runs the stages after the blocking one; results go to {@code out}. */
        public void finish(Options options, Consumer<JsonNode> out) {
            Run run = new Run(options, java.util.Map.of());
            Sink tail = chain(rest, run, handingTo(out));
            synchronized (partials) {
                if (partials.isEmpty()) {
                    part(options);
                }
                blocking.emit(List.copyOf(partials), tail, run);
            }
        }
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

    /** The last sink of a chain: every document to {@code out}. */
    private static Sink handingTo(Consumer<JsonNode> out) {
        return new Sink() {
            @Override
            public boolean accept(JsonNode document) {
                out.accept(document);
                return true;
            }

            @Override
            public void finish() {}
        };
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
