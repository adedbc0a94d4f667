package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.aggregate.Mergeable.Partial;
import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.query.Values;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The stages that must see every input before emitting ({@code $group}, {@code $sort},
 * {@code $count}, {@code $bucket}, {@code $facet}, {@code $sample}): each holds at most
 * {@code aggregation-memory-bytes} ({@link MemoryBudget}) and checks the query time as it reads.
 */
final class BlockingStages {
    private BlockingStages() {}

    /** A fresh accumulator per output field of a {@code $group} or {@code $bucket}. */
    private static Accumulators.Accumulator[] started(List<Accumulators.Spec> fields) {
        Accumulators.Accumulator[] accs = new Accumulators.Accumulator[fields.size()];
        for (int i = 0; i < accs.length; i++) {
            accs[i] = fields.get(i).start();
        }
        return accs;
    }

    /** Adds one input to each accumulator, charging what they grew by to {@code budget}. */
    private static void add(List<Accumulators.Spec> fields, Accumulators.Accumulator[] accs, Scope scope,
                            Accumulators.Position at, MemoryBudget budget) {
        for (int i = 0; i < accs.length; i++) {
            long grown = accs[i].add(fields.get(i).argument().eval(scope), at);
            if (grown > 0) {
                budget.charge(grown);
            }
        }
    }

    /** The output document of one group or bucket: its {@code _id}, then each field's result. */
    private static ObjectNode result(JsonNode id, List<Accumulators.Spec> fields, Accumulators.Accumulator[] accs) {
        ObjectNode out = Json.NODES.objectNode();
        out.set("_id", id);
        for (int i = 0; i < fields.size(); i++) {
            out.set(fields.get(i).field(), accs[i].result());
        }
        return out;
    }

    /**
     * {@code $group}: groups by {@code _id}'s value (null and missing are one group), ordered by
     * it. Of equal keys ({@code 1}, {@code 1.0}) the group is named by the first input's.
     */
    static final class Group implements Mergeable {
        final Expr id;
        final List<Accumulators.Spec> fields;
        private final boolean ordered;

        Group(Expr id, List<Accumulators.Spec> fields) {
            this.id = id;
            this.fields = fields;
            this.ordered = fields.stream().anyMatch(Accumulators.Spec::ordered);
        }

        @Override
        public boolean reshapes() {
            return true;
        }

        @Override
        public boolean ordered() {
            // the key's own spelling (1 or 1.0) is the first input's, so order matters to every $group
            return true;
        }

        /** One group: the key it is named by, where that key's input stood, its accumulators. */
        static final class Entry {
            JsonNode key;
            Accumulators.Position at;
            final Accumulators.Accumulator[] accs;

            Entry(JsonNode key, Accumulators.Position at, Accumulators.Accumulator[] accs) {
                this.key = key;
                this.at = at;
                this.accs = accs;
            }

            boolean after(Accumulators.Position other) {
                return at != null && other != null && other.compareTo(at) < 0;
            }
        }

        final class Groups implements Partial {
            final HashMap<GroupKey, Entry> groups = new HashMap<>();
            final Run run;
            final MemoryBudget budget;

            Groups(Run run, MemoryBudget budget) {
                this.run = run;
                this.budget = budget;
            }

            @Override
            public void accept(JsonNode doc, Accumulators.Position at) {
                run.tick();
                Scope scope = run.scope(doc);
                Entry entry = entry(AggValues.orNull(id.eval(scope)), at);
                add(fields, entry.accs, scope, ordered ? at : null, budget);
            }

            /** The group of {@code key} (made when new), named by the key of its earliest input. */
            Entry entry(JsonNode key, Accumulators.Position at) {
                GroupKey hashed = new GroupKey(key);
                Entry entry = groups.get(hashed);
                if (entry == null) {
                    entry = new Entry(key, at, started(fields));
                    groups.put(hashed, entry);
                    budget.charge(MemoryBudget.size(key) + 64L + 48L * entry.accs.length);
                } else if (!GroupKey.spelledOneWay(key) && entry.after(at)) {
                    entry.key = key;
                    entry.at = at;
                }
                return entry;
            }

            void merge(Groups other) {
                for (Map.Entry<GroupKey, Entry> kv : other.groups.entrySet()) {
                    Entry e = kv.getValue();
                    Entry mine = groups.get(kv.getKey());
                    if (mine == null) {
                        groups.put(kv.getKey(), e);
                        continue;
                    }
                    if (mine.after(e.at)) {
                        mine.key = e.key;
                        mine.at = e.at;
                    }
                    for (int i = 0; i < mine.accs.length; i++) {
                        mine.accs[i].merge(e.accs[i]);
                    }
                }
            }
        }

        @Override
        public Partial partial(Run run, MemoryBudget budget) {
            return new Groups(run, budget);
        }

        @Override
        public void emit(List<Partial> partials, Sink next, Run run) {
            Groups all = (Groups) partials.getFirst();
            for (Partial p : partials.subList(1, partials.size())) {
                all.merge((Groups) p);
            }
            // in key order, the order the groups always came out in
            List<Entry> ordered = new ArrayList<>(all.groups.values());
            ordered.sort((a, b) -> Values.compare(a.key, b.key));
            for (Entry g : ordered) {
                if (!next.accept(result(g.key, fields, g.accs))) {
                    break;
                }
            }
            next.finish();
        }

        @Override
        public Sink into(Sink next, Run run) {
            return oneRange(this, next, run, "$group");
        }
    }

    /** A mergeable stage over one range in order: one partial, each input's position its rank. */
    static Sink oneRange(Mergeable stage, Sink next, Run run, String name) {
        Partial partial = stage.partial(run, run.budget(name));
        return new Sink() {
            long rank;

            @Override
            public boolean accept(JsonNode doc) {
                partial.accept(doc, new Accumulators.Position(null, rank++));
                return true;
            }

            @Override
            public void finish() {
                stage.emit(List.of(partial), next, run);
            }
        };
    }

    /** {@code $sort}, with MongoDB's order (the store's {@link Sort}); keeps only {@code limit} when a {@code $limit} follows. */
    static final class SortStage implements Stage {
        final Sort sort;
        private final long limit;

        SortStage(Sort sort, long limit) {
            this.sort = sort;
            this.limit = limit;
        }

        SortStage limitedTo(long n) {
            return new SortStage(sort, Math.min(limit, n));
        }

        @Override
        public Sink into(Sink next, Run run) {
            MemoryBudget budget = run.budget("$sort");
            // Ties keep their input order, as a stable sort does.
            record Entry(JsonNode doc, long seq, long bytes) {}
            Comparator<JsonNode> byKeys = sort.comparator(ScoredDocument::score);
            Comparator<Entry> order = Comparator.<Entry, JsonNode>comparing(Entry::doc, byKeys).thenComparingLong(Entry::seq);
            PriorityQueue<Entry> top = new PriorityQueue<>(order.reversed());
            List<Entry> all = new ArrayList<>();
            boolean bounded = limit < Integer.MAX_VALUE;
            return new Sink() {
                long seq;
                long held;

                @Override
                public boolean accept(JsonNode doc) {
                    run.tick();
                    Entry e = new Entry(doc, seq++, MemoryBudget.size(doc));
                    if (!bounded) {
                        all.add(e);
                        budget.charge(e.bytes());
                        return true;
                    }
                    top.add(e);
                    held += e.bytes();
                    if (top.size() > limit) {
                        held -= top.poll().bytes();
                    }
                    budget.holding(held);
                    return true;
                }

                @Override
                public void finish() {
                    List<Entry> sorted = bounded ? new ArrayList<>(top) : all;
                    sorted.sort(order);
                    for (Entry e : sorted) {
                        if (!next.accept(e.doc())) {
                            break;
                        }
                    }
                    next.finish();
                }
            };
        }
    }

    /** {@code $count}: one document with the number of inputs, none when there were none. */
    static final class Count implements Mergeable {
        private final String field;

        Count(String field) {
            this.field = field;
        }

        @Override
        public boolean reshapes() {
            return true;
        }

        @Override
        public boolean ordered() {
            return false;
        }

        private static final class Counted implements Partial {
            private final Run run;
            long n;

            Counted(Run run) {
                this.run = run;
            }

            @Override
            public void accept(JsonNode document, Accumulators.Position at) {
                run.tick();
                n++;
            }
        }

        @Override
        public Partial partial(Run run, MemoryBudget budget) {
            return new Counted(run);
        }

        @Override
        public void emit(List<Partial> partials, Sink next, Run run) {
            long n = partials.stream().mapToLong(p -> ((Counted) p).n).sum();
            if (n > 0) {
                ObjectNode out = Json.NODES.objectNode();
                out.set(field, Numbers.integral(n, 0));
                next.accept(out);
            }
            next.finish();
        }

        @Override
        public Sink into(Sink next, Run run) {
            return oneRange(this, next, run, "$count");
        }
    }

    /** {@code $sortByCount}: a {@code $group} counting each key, then sorted by the count, largest first. */
    static final class SortByCount implements Mergeable {
        final Group group;
        private final SortStage sort;

        SortByCount(Expr id) {
            this.group = new Group(id, List.of(new Accumulators.Spec("count", "$sum", ExprParser.constant(Json.NODES.numberNode(1)))));
            this.sort = new SortStage(new Sort(List.of(new IndexField("count", -1))), Long.MAX_VALUE);
        }

        @Override
        public boolean reshapes() {
            return true;
        }

        @Override
        public boolean ordered() {
            return group.ordered();
        }

        @Override
        public Partial partial(Run run, MemoryBudget budget) {
            return group.partial(run, budget);
        }

        @Override
        public void emit(List<Partial> partials, Sink next, Run run) {
            group.emit(partials, sort.into(next, run), run);
        }

        @Override
        public Sink into(Sink next, Run run) {
            return oneRange(this, next, run, "$group");
        }
    }

    /** {@code $bucket}: documents counted into the ranges between boundaries, the rest into {@code default}. */
    static final class Bucket implements Stage {
        private final Expr groupBy;
        private final List<JsonNode> boundaries;
        private final JsonNode fallback;
        private final List<Accumulators.Spec> output;

        Bucket(Expr groupBy, List<JsonNode> boundaries, JsonNode fallback, List<Accumulators.Spec> output) {
            this.groupBy = groupBy;
            this.boundaries = boundaries;
            this.fallback = fallback;
            this.output = output;
        }

        @Override
        public boolean reshapes() {
            return true;
        }

        @Override
        public Sink into(Sink next, Run run) {
            MemoryBudget budget = run.budget("$bucket");
            Map<Integer, Accumulators.Accumulator[]> buckets = new TreeMap<>();
            return new Sink() {
                long rank;

                @Override
                public boolean accept(JsonNode doc) {
                    run.tick();
                    Scope scope = run.scope(doc);
                    JsonNode value = AggValues.orNull(groupBy.eval(scope));
                    int bucket = bucketOf(value);
                    add(output, buckets.computeIfAbsent(bucket, b -> started(output)), scope,
                            new Accumulators.Position(null, rank++), budget);
                    return true;
                }

                private int bucketOf(JsonNode value) {
                    for (int i = 0; i < boundaries.size() - 1; i++) {
                        if (Values.compare(value, boundaries.get(i)) >= 0 && Values.compare(value, boundaries.get(i + 1)) < 0
                                && Values.bracket(value) == Values.bracket(boundaries.get(i))) {
                            return i;
                        }
                    }
                    if (fallback == null) {
                        throw WeftException.badRequest("$bucket could not find a matching branch for an input, and no"
                                + " default was specified (value " + AggValues.typeName(value) + ")");
                    }
                    return Integer.MAX_VALUE;
                }

                @Override
                public void finish() {
                    for (Map.Entry<Integer, Accumulators.Accumulator[]> b : buckets.entrySet()) {
                        JsonNode id = b.getKey() == Integer.MAX_VALUE ? fallback : boundaries.get(b.getKey());
                        if (!next.accept(result(id, output, b.getValue()))) {
                            break;
                        }
                    }
                    next.finish();
                }
            };
        }
    }

    /** {@code $facet}: every input through each named sub-pipeline; one document of their results. */
    static final class Facet implements Stage {
        private final Map<String, List<Stage>> facets;

        Facet(Map<String, List<Stage>> facets) {
            this.facets = facets;
        }

        @Override
        public boolean reshapes() {
            return true;
        }

        @Override
        public Sink into(Sink next, Run run) {
            MemoryBudget budget = run.budget("$facet");
            Map<String, ArrayNode> results = new LinkedHashMap<>();
            List<Sink> heads = new ArrayList<>();
            List<Boolean> open = new ArrayList<>();
            for (Map.Entry<String, List<Stage>> f : facets.entrySet()) {
                ArrayNode out = Json.NODES.arrayNode();
                results.put(f.getKey(), out);
                heads.add(Pipeline.chain(f.getValue(), run, new Sink() {
                    @Override
                    public boolean accept(JsonNode doc) {
                        budget.charge(MemoryBudget.size(doc));
                        out.add(doc);
                        return true;
                    }

                    @Override
                    public void finish() {}
                }));
                open.add(true);
            }
            return new Sink() {
                @Override
                public boolean accept(JsonNode doc) {
                    run.tick();
                    boolean any = false;
                    for (int i = 0; i < heads.size(); i++) {
                        if (open.get(i)) {
                            open.set(i, heads.get(i).accept(doc));
                            any |= open.get(i);
                        }
                    }
                    return any;
                }

                @Override
                public void finish() {
                    heads.forEach(Sink::finish);
                    ObjectNode out = Json.NODES.objectNode();
                    results.forEach(out::set);
                    next.accept(out);
                    next.finish();
                }
            };
        }
    }

    /** {@code $sample}: {@code size} inputs chosen uniformly (reservoir sampling), in random order. */
    static final class Sample implements Stage {
        private final int size;

        Sample(int size) {
            this.size = size;
        }

        @Override
        public Sink into(Sink next, Run run) {
            MemoryBudget budget = run.budget("$sample");
            SplittableRandom random = new SplittableRandom();
            List<JsonNode> reservoir = new ArrayList<>();
            return new Sink() {
                long seen;

                @Override
                public boolean accept(JsonNode doc) {
                    run.tick();
                    seen++;
                    if (reservoir.size() < size) {
                        budget.charge(MemoryBudget.size(doc));
                        reservoir.add(doc);
                    } else {
                        long j = random.nextLong(seen);
                        if (j < size) {
                            reservoir.set((int) j, doc);
                        }
                    }
                    return true;
                }

                @Override
                public void finish() {
                    for (int i = reservoir.size() - 1; i > 0; i--) {
                        int j = random.nextInt(i + 1);
                        JsonNode t = reservoir.get(i);
                        reservoir.set(i, reservoir.get(j));
                        reservoir.set(j, t);
                    }
                    for (JsonNode doc : reservoir) {
                        if (!next.accept(doc)) {
                            break;
                        }
                    }
                    next.finish();
                }
            };
        }
    }
}
