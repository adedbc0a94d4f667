package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Values;
import java.util.Map;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.NullNode;

/**
 * The accumulators of {@code $group} and {@code $bucket}: {@code $sum $avg $min $max $first $last
 * $push $addToSet $count}. A compiled {@link Spec} makes one {@link Accumulator} per group.
 */
final class Accumulators {
    private Accumulators() {}

    /** One group's running value. {@code add} returns the bytes it newly retains (for the memory bound). */
    interface Accumulator {
        long add(JsonNode value);

        JsonNode result();
    }

    /** A field's accumulator and the expression it accumulates. */
    record Spec(String field, String operator, Expr argument) {
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

    private static final class Sum implements Accumulator {
        private final Numbers.Sum sum = new Numbers.Sum();

        @Override
        public long add(JsonNode v) {
            if (v != null && v.isNumber()) {
                sum.add(v);
            }
            return 0;
        }

        @Override
        public JsonNode result() {
            return sum.value();
        }
    }

    private static final class Avg implements Accumulator {
        private double total;
        private long count;

        @Override
        public long add(JsonNode v) {
            if (v != null && v.isNumber()) {
                total += v.doubleValue();
                count++;
            }
            return 0;
        }

        @Override
        public JsonNode result() {
            return count == 0 ? NullNode.getInstance() : Numbers.of(total / count);
        }
    }

    private static final class Extreme implements Accumulator {
        private final int sign;
        private JsonNode best;

        Extreme(int sign) {
            this.sign = sign;
        }

        @Override
        public long add(JsonNode v) {
            if (AggValues.isNullish(v)) {
                return 0;
            }
            if (best == null || Integer.signum(Values.compare(v, best)) == sign) {
                long grown = best == null ? MemoryBudget.size(v) : MemoryBudget.size(v) - MemoryBudget.size(best);
                best = v;
                return Math.max(0, grown);
            }
            return 0;
        }

        @Override
        public JsonNode result() {
            return best == null ? NullNode.getInstance() : best;
        }
    }

    private static final class First implements Accumulator {
        private JsonNode first;
        private boolean seen;

        @Override
        public long add(JsonNode v) {
            if (seen) {
                return 0;
            }
            seen = true;
            first = AggValues.orNull(v);
            return MemoryBudget.size(first);
        }

        @Override
        public JsonNode result() {
            return first == null ? NullNode.getInstance() : first;
        }
    }

    private static final class Last implements Accumulator {
        private JsonNode last = NullNode.getInstance();

        @Override
        public long add(JsonNode v) {
            long grown = MemoryBudget.size(AggValues.orNull(v)) - MemoryBudget.size(last);
            last = AggValues.orNull(v);
            return Math.max(0, grown);
        }

        @Override
        public JsonNode result() {
            return last;
        }
    }

    private static final class Push implements Accumulator {
        private final ArrayNode values = Json.NODES.arrayNode();

        @Override
        public long add(JsonNode v) {
            if (v == null || v.isMissingNode()) {
                return 0;
            }
            values.add(v);
            return MemoryBudget.size(v);
        }

        @Override
        public JsonNode result() {
            return values;
        }
    }

    private static final class AddToSet implements Accumulator {
        private final TreeSet<JsonNode> seen = new TreeSet<>(Values::compare);
        private final ArrayNode values = Json.NODES.arrayNode();

        @Override
        public long add(JsonNode v) {
            if (v == null || v.isMissingNode() || !seen.add(v)) {
                return 0;
            }
            values.add(v);
            return 2 * MemoryBudget.size(v);
        }

        @Override
        public JsonNode result() {
            return values;
        }
    }
}
