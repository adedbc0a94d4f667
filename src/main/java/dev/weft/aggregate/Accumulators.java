package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Values;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.NullNode;

/**
 * The accumulators of {@code $group} and {@code $bucket}: {@code $sum $avg $min $max $first $last
 * $push $addToSet $count}. A compiled {@link Spec} makes one {@link Accumulator} per group.
 */
final class Accumulators {
    private Accumulators() {}

    /**
     * Where an input stands in the order of a one-range scan: the {@code _id} of the stored
     * document it came from (null when every input comes from one range in order), then its rank
     * among the inputs of its range. Partials of a scan read in parts keep positions so that,
     * merged, they give exactly what one range would: the first, the last, the order of a
     * {@code $push}, which of two equal values ({@code 1}, {@code 1.0}) a {@code $min} keeps.
     */
    record Position(JsonNode id, long rank) implements Comparable<Position> {
        @Override
        public int compareTo(Position o) {
            int byId = id == null || o.id == null ? 0 : Values.compare(id, o.id);
            return byId != 0 ? byId : Long.compare(rank, o.rank);
        }
    }

    /** One group's running value. {@code add} returns the bytes it newly retains (for the memory bound). */
    interface Accumulator {
        long add(JsonNode value, Position at);

        /** Takes in {@code other}'s inputs (the same accumulator over another part of the scan). */
        void merge(Accumulator other);

        JsonNode result();
    }

    /** An accumulator that takes a whole number without a node made of it ({@link StoredGroup}). */
    interface Integral extends Accumulator {
        /** What {@link #add} does with an int ({@code kind} 0) or a long (1) node holding {@code v}. */
        void addIntegral(long v, int kind);
    }

    /** A field's accumulator and the expression it accumulates. */
    record Spec(String field, String operator, Expr argument) {
        /** Whether the result depends on the order of the inputs (so partials need their positions). */
        boolean ordered() {
            return !(operator.equals("$sum") || operator.equals("$count") || operator.equals("$avg"));
        }

        Accumulator start() {
            return switch (operator) {
                case "$sum", "$count" -> new Sum();
                case "$avg" -> new Avg();
                case "$min" -> new Extreme(-1);
                case "$max" -> new Extreme(1);
                case "$first" -> new First();
                case "$last" -> new Last();
                case "$push" -> new Push();
                case "$addToSet" -> new AddToSet();
                default -> throw new IllegalStateException(operator);
            };
        }
    }

    /** Compiles {@code field: {$acc: expr}}; 400 for an unknown accumulator, naming it. */
    static Spec parse(String stage, String field, JsonNode spec, ExprParser parser) {
        ExprParser.checkFieldName(field);
        if (!spec.isObject() || spec.size() != 1) {
            throw WeftException.badRequest(stage + ": the field '" + field + "' must be an accumulator object such as {\"$sum\": 1}");
        }
        Map.Entry<String, JsonNode> e = spec.properties().iterator().next();
        String op = e.getKey();
        return switch (op) {
            case "$sum", "$avg", "$min", "$max", "$first", "$last", "$push", "$addToSet" ->
                    new Spec(field, op, parser.parse(e.getValue()));
            case "$count" -> {
                if (!e.getValue().isObject() || !e.getValue().isEmpty()) {
                    throw WeftException.badRequest(stage + ": $count takes no argument: {\"$count\": {}}");
                }
                yield new Spec(field, op, ExprParser.constant(Json.NODES.numberNode(1)));
            }
            default -> throw WeftException.badRequest(stage + ": unknown group operator " + op);
        };
    }

    /** How many bytes a sum newly holds once it is a double: its exact total, bounded ({@link ExactDoubles}). */
    private static long grownBy(ExactSum sum, boolean wasDouble) {
        return !wasDouble && sum.isDouble() ? ExactDoubles.BYTES : 0;
    }

    private static final class Sum implements Integral {
        private final ExactSum sum = new ExactSum();

        @Override
        public void addIntegral(long v, int kind) {
            sum.addIntegral(v, kind);
        }

        @Override
        public long add(JsonNode v, Position at) {
            if (v == null || !v.isNumber()) {
                return 0;
            }
            boolean wasDouble = sum.isDouble();
            sum.add(v);
            return grownBy(sum, wasDouble);
        }

        @Override
        public void merge(Accumulator other) {
            sum.merge(((Sum) other).sum);
        }

        @Override
        public JsonNode result() {
            return sum.value();
        }
    }

    /** The exact sum of the numbers (as {@code $sum}'s) over their count, so its answer does not depend on their order either. */
    private static final class Avg implements Integral {
        private final ExactSum sum = new ExactSum();
        private long count;

        @Override
        public void addIntegral(long v, int kind) {
            sum.addIntegral(v, kind);
            count++;
        }

        @Override
        public long add(JsonNode v, Position at) {
            if (v == null || !v.isNumber()) {
                return 0;
            }
            boolean wasDouble = sum.isDouble();
            sum.add(v);
            count++;
            return grownBy(sum, wasDouble);
        }

        @Override
        public void merge(Accumulator other) {
            Avg o = (Avg) other;
            sum.merge(o.sum);
            count += o.count;
        }

        @Override
        public JsonNode result() {
            return count == 0 ? NullNode.getInstance() : Numbers.of(sum.asDouble() / count);
        }
    }

    private static final class Extreme implements Accumulator {
        private final int sign;
        private JsonNode best;
        private Position bestAt;

        Extreme(int sign) {
            this.sign = sign;
        }

        @Override
        public long add(JsonNode v, Position at) {
            if (AggValues.isNullish(v) || !better(v, at)) {
                return 0;
            }
            long grown = best == null ? MemoryBudget.size(v) : MemoryBudget.size(v) - MemoryBudget.size(best);
            best = v;
            bestAt = at;
            return Math.max(0, grown);
        }

        /** Of equal values the earliest is kept, as one range in order keeps the first it met. */
        private boolean better(JsonNode v, Position at) {
            if (best == null) {
                return true;
            }
            int c = Integer.signum(Values.compare(v, best));
            return c == sign || c == 0 && at.compareTo(bestAt) < 0;
        }

        @Override
        public void merge(Accumulator other) {
            Extreme o = (Extreme) other;
            if (o.best != null && better(o.best, o.bestAt)) {
                best = o.best;
                bestAt = o.bestAt;
            }
        }

        @Override
        public JsonNode result() {
            return best == null ? NullNode.getInstance() : best;
        }
    }

    private static final class First implements Accumulator {
        private JsonNode first;
        private Position firstAt;

        @Override
        public long add(JsonNode v, Position at) {
            if (firstAt != null && at.compareTo(firstAt) >= 0) {
                return 0;
            }
            long was = MemoryBudget.size(first);
            firstAt = at;
            first = AggValues.orNull(v);
            return Math.max(0, MemoryBudget.size(first) - was);
        }

        @Override
        public void merge(Accumulator other) {
            First o = (First) other;
            if (o.firstAt != null) {
                add(o.first, o.firstAt);
            }
        }

        @Override
        public JsonNode result() {
            return first == null ? NullNode.getInstance() : first;
        }
    }

    private static final class Last implements Accumulator {
        private JsonNode last = NullNode.getInstance();
        private Position lastAt;

        @Override
        public long add(JsonNode v, Position at) {
            if (lastAt != null && at.compareTo(lastAt) < 0) {
                return 0;
            }
            long grown = MemoryBudget.size(AggValues.orNull(v)) - MemoryBudget.size(last);
            last = AggValues.orNull(v);
            lastAt = at;
            return Math.max(0, grown);
        }

        @Override
        public void merge(Accumulator other) {
            Last o = (Last) other;
            if (o.lastAt != null) {
                add(o.last, o.lastAt);
            }
        }

        @Override
        public JsonNode result() {
            return last;
        }
    }

    /** A value and where its input stood. */
    private record Placed(JsonNode value, Position at) {}

    private static final Comparator<Placed> IN_SCAN_ORDER = Comparator.comparing(Placed::at);

    private static final class Push implements Accumulator {
        private final List<Placed> values = new ArrayList<>();

        @Override
        public long add(JsonNode v, Position at) {
            if (v == null || v.isMissingNode()) {
                return 0;
            }
            values.add(new Placed(v, at));
            return MemoryBudget.size(v) + 32;
        }

        @Override
        public void merge(Accumulator other) {
            values.addAll(((Push) other).values);
        }

        @Override
        public JsonNode result() {
            values.sort(IN_SCAN_ORDER); // stable, and linear when already in order (one range)
            ArrayNode out = Json.NODES.arrayNode();
            values.forEach(p -> out.add(p.value()));
            return out;
        }
    }

    /** Distinct values (by MongoDB's comparison), in the order their first occurrences came. */
    private static final class AddToSet implements Accumulator {
        private final TreeMap<JsonNode, Placed> seen = new TreeMap<>(Values::compare);

        @Override
        public long add(JsonNode v, Position at) {
            if (v == null || v.isMissingNode()) {
                return 0;
            }
            Placed was = seen.get(v);
            if (was == null) {
                seen.put(v, new Placed(v, at));
                return 2 * MemoryBudget.size(v) + 32;
            }
            if (at.compareTo(was.at()) < 0) {
                seen.put(v, new Placed(v, at));
            }
            return 0;
        }

        @Override
        public void merge(Accumulator other) {
            ((AddToSet) other).seen.values().forEach(p -> add(p.value(), p.at()));
        }

        @Override
        public JsonNode result() {
            List<Placed> inOrder = new ArrayList<>(seen.values());
            inOrder.sort(IN_SCAN_ORDER);
            ArrayNode out = Json.NODES.arrayNode();
            inOrder.forEach(p -> out.add(p.value()));
            return out;
        }
    }
}
