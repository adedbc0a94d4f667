package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One update operator on one path. {@link #plan} reads the document and says what to write,
 * without writing: an update first plans every operator (any error is thrown before anything
 * changes), then writes. That is sound because parsing refused updates whose paths overlap, so
 * no operator reads what another writes.
 */
abstract class UpdateOp {
    /** A planned write: a new value at a path, or its removal ({@code value == null}). */
    record Change(UpdateOp op, Path path, JsonNode value) {}

    final String operator;
    final Path path;

    UpdateOp(String operator, Path path) {
        this.operator = operator;
        this.path = path;
    }

    abstract void plan(JsonNode doc, boolean inserting, List<Change> changes);

    WeftException error(String problem) {
        return WeftException.badRequest(operator + " at '" + path + "': " + problem);
    }

    /** The array at the path, null when missing, 400 when something else is there. */
    ArrayNode arrayOrNull(JsonNode doc) {
        JsonNode current = UpdatePaths.get(doc, path);
        if (current == null) {
            return null;
        }
        if (!current.isArray()) {
            throw error("field is not an array");
        }
        return (ArrayNode) current;
    }

    static ArrayNode copy(ArrayNode array) {
        ArrayNode copy = Json.NODES.arrayNode(array == null ? 0 : array.size());
        if (array != null) {
            copy.addAll(array);
        }
        return copy;
    }

    /** An operator on a positional path: the same operator planned at each concrete path it names. */
    static final class Positional extends UpdateOp {
        private final java.util.function.Function<Path, UpdateOp> at;
        private final PositionalPaths paths;

        Positional(UpdateOp template, java.util.function.Function<Path, UpdateOp> at, PositionalPaths paths) {
            super(template.operator, template.path);
            this.at = at;
            this.paths = paths;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            for (Path concrete : paths.expand(doc)) {
                at.apply(concrete).plan(doc, inserting, changes);
            }
        }
    }

    /** {@code $set}, {@code $setOnInsert}, and a plain PATCH body's fields. */
    static final class Set extends UpdateOp {
        private final JsonNode value;
        private final boolean onInsertOnly;

        Set(String operator, Path path, JsonNode value, boolean onInsertOnly) {
            super(operator, path);
            this.value = value;
            this.onInsertOnly = onInsertOnly;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            if (onInsertOnly && !inserting) {
                return;
            }
            if (path.dotted.equals("_id")) {
                JsonNode id = doc.get("_id");
                if (id != null && !Values.equal(id, value)) {
                    throw WeftException.badRequest(operator + ": _id cannot be modified");
                }
                if (id != null) {
                    return;
                }
            }
            // One parsed update may be applied to many documents: each gets its own copy.
            changes.add(new Change(this, path, value.deepCopy()));
        }
    }

    static final class Unset extends UpdateOp {
        Unset(Path path) {
            super("$unset", path);
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            changes.add(new Change(this, path, null));
        }
    }

    /** {@code $inc} and {@code $mul}; a missing field counts as 0. */
    static final class Arithmetic extends UpdateOp {
        private final JsonNode operand;

        Arithmetic(String operator, Path path, JsonNode operand) {
            super(operator, path);
            this.operand = operand;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            JsonNode current = UpdatePaths.get(doc, path);
            if (current == null) {
                current = Json.NODES.numberNode(0); // the result then takes the operand's type
            } else if (!current.isNumber()) {
                throw error("field is not a number (it is " + Values.bracket(current).name().toLowerCase() + ")");
            }
            changes.add(new Change(this, path, operator.equals("$mul") ? Numbers.multiply(current, operand, this)
                    : Numbers.add(current, operand, this)));
        }
    }

    /** {@code $min} and {@code $max}, in MongoDB's cross-type order. */
    static final class MinMax extends UpdateOp {
        private final JsonNode operand;

        MinMax(String operator, Path path, JsonNode operand) {
            super(operator, path);
            this.operand = operand;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            JsonNode current = UpdatePaths.get(doc, path);
            int c = current == null ? 0 : Values.compare(operand, current);
            if (current == null || (operator.equals("$max") ? c > 0 : c < 0)) {
                changes.add(new Change(this, path, operand.deepCopy()));
            }
        }
    }

    static final class Rename extends UpdateOp {
        private final Path target;

        Rename(Path path, Path target) {
            super("$rename", path);
            this.target = target;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            if (UpdatePaths.crossesArray(doc, path) || UpdatePaths.crossesArray(doc, target)) {
                throw error("cannot rename through an array");
            }
            JsonNode current = UpdatePaths.get(doc, path);
            if (current != null) {
                changes.add(new Change(this, path, null));
                changes.add(new Change(this, target, current));
            }
        }
    }

    /**
     * {@code $currentDate}: a date, or a timestamp as Extended JSON {@code {"$timestamp": {"t":
     * seconds, "i": increment}}}, the increment counting the timestamps made in the same second
     * so that they are distinct and ordered. A timestamp compares as the object it is written as:
     * by {@code t}, then {@code i} among timestamps, but in the object bracket among other types.
     */
    static final class CurrentDate extends UpdateOp {
        private static final java.util.concurrent.atomic.AtomicLong LAST = new java.util.concurrent.atomic.AtomicLong();

        private final boolean timestamp;

        CurrentDate(Path path, boolean timestamp) {
            super("$currentDate", path);
            this.timestamp = timestamp;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            long now = System.currentTimeMillis();
            JsonNode value = timestamp ? timestamp(now / 1000) : Json.NODES.objectNode().put("$date", now);
            changes.add(new Change(this, path, value));
        }

        /** Seconds in the high 32 bits, increment in the low: one atomic counter orders them all. */
        private static JsonNode timestamp(long seconds) {
            long packed = LAST.updateAndGet(last -> (last >>> 32) >= seconds ? last + 1 : (seconds << 32) | 1);
            ObjectNode ts = Json.NODES.objectNode();
            ts.putObject("$timestamp").put("t", packed >>> 32).put("i", packed & 0xFFFFFFFFL);
            return ts;
        }
    }

    /** {@code $push} with {@code $each $position $sort $slice}, applied in that order. */
    static final class Push extends UpdateOp {
        private final JsonNode[] values;
        private final Integer position;
        private final Comparator<JsonNode> sort;
        private final Integer slice;

        Push(Path path, List<JsonNode> values, Integer position, Comparator<JsonNode> sort, Integer slice) {
            super("$push", path);
            this.values = values.toArray(JsonNode[]::new);
            this.position = position;
            this.sort = sort;
            this.slice = slice;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            ArrayNode result = copy(arrayOrNull(doc));
            int at = result.size();
            if (position != null) {
                at = position >= 0 ? Math.min(position, result.size()) : Math.max(0, result.size() + position);
            }
            for (JsonNode value : values) {
                result.insert(at++, value.deepCopy());
            }
            if (sort != null) {
                List<JsonNode> sorted = new java.util.ArrayList<>(result.valueStream().toList());
                sorted.sort(sort);
                result.removeAll();
                result.addAll(sorted);
            }
            if (slice != null) {
                int keep = Math.min(Math.abs(slice), result.size());
                int from = slice >= 0 ? 0 : result.size() - keep;
                ArrayNode sliced = Json.NODES.arrayNode(keep);
                for (int i = from; i < from + keep; i++) {
                    sliced.add(result.get(i));
                }
                result = sliced;
            }
            changes.add(new Change(this, path, result));
        }
    }

    static final class AddToSet extends UpdateOp {
        private final JsonNode[] values;

        AddToSet(Path path, List<JsonNode> values) {
            super("$addToSet", path);
            this.values = values.toArray(JsonNode[]::new);
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            ArrayNode current = arrayOrNull(doc);
            ArrayNode result = copy(current);
            for (JsonNode value : values) {
                if (result.valueStream().noneMatch(existing -> Values.equal(existing, value))) {
                    result.add(value.deepCopy());
                }
            }
            if (current == null || result.size() != current.size()) {
                changes.add(new Change(this, path, result));
            }
        }
    }

    /** {@code $pull} (by value or condition), {@code $pullAll}: removes matching elements. */
    static final class Pull extends UpdateOp {
        private final Predicate<JsonNode> remove;

        Pull(String operator, Path path, Predicate<JsonNode> remove) {
            super(operator, path);
            this.remove = remove;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            ArrayNode current = arrayOrNull(doc);
            if (current == null) {
                return;
            }
            ArrayNode result = Json.NODES.arrayNode(current.size());
            for (JsonNode element : current) {
                if (!remove.test(element)) {
                    result.add(element);
                }
            }
            if (result.size() != current.size()) {
                changes.add(new Change(this, path, result));
            }
        }
    }

    static final class Pop extends UpdateOp {
        private final boolean first;

        Pop(Path path, boolean first) {
            super("$pop", path);
            this.first = first;
        }

        @Override
        void plan(JsonNode doc, boolean inserting, List<Change> changes) {
            ArrayNode current = arrayOrNull(doc);
            if (current == null || current.isEmpty()) {
                return;
            }
            ArrayNode result = copy(current);
            result.remove(first ? 0 : result.size() - 1);
            changes.add(new Change(this, path, result));
        }
    }

    /** Arithmetic with MongoDB's type rules: int stays int unless it overflows, then long. */
    static final class Numbers {
        private Numbers() {}

        static JsonNode add(JsonNode a, JsonNode b, UpdateOp op) {
            if (isDecimal(a) || isDecimal(b)) {
                return Json.NODES.numberNode(a.decimalValue().add(b.decimalValue()));
            }
            if (isFloating(a) || isFloating(b)) {
                return finite(a.doubleValue() + b.doubleValue(), op);
            }
            try {
                return integral(Math.addExact(a.longValue(), b.longValue()), a, b);
            } catch (ArithmeticException e) {
                throw op.error("integer overflow");
            }
        }

        static JsonNode multiply(JsonNode a, JsonNode b, UpdateOp op) {
            if (isDecimal(a) || isDecimal(b)) {
                return Json.NODES.numberNode(a.decimalValue().multiply(b.decimalValue()));
            }
            if (isFloating(a) || isFloating(b)) {
                return finite(a.doubleValue() * b.doubleValue(), op);
            }
            try {
                return integral(Math.multiplyExact(a.longValue(), b.longValue()), a, b);
            } catch (ArithmeticException e) {
                throw op.error("integer overflow");
            }
        }

        /** An infinity would be stored as the string "Infinity" and could no longer be compared as a number. */
        private static JsonNode finite(double result, UpdateOp op) {
            if (!Double.isFinite(result)) {
                throw op.error("the result is beyond the range of a double");
            }
            return Json.NODES.numberNode(result);
        }

        private static JsonNode integral(long result, JsonNode a, JsonNode b) {
            boolean ints = (a.isInt() || a.isShort()) && (b.isInt() || b.isShort());
            if (ints && result == (int) result) {
                return Json.NODES.numberNode((int) result);
            }
            return Json.NODES.numberNode(result);
        }

        private static boolean isDecimal(JsonNode n) {
            return n.isBigDecimal() || n.isBigInteger();
        }

        private static boolean isFloating(JsonNode n) {
            return n.isDouble() || n.isFloat();
        }
    }
}
