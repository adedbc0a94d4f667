package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Compiles a PATCH body into {@link UpdateOp}s. Refused with 400: unknown operators, operands of
 * the wrong type, a body mixing operators and plain fields, two operators on overlapping paths
 * ({@code a} and {@code a.b}; a positional segment overlaps any), any operator but
 * {@code $set}/{@code $setOnInsert} on {@code _id} (those two only when the value is unchanged,
 * checked when applied), {@code $rename} of positional paths, a {@code $} without a query
 * condition on its array, a {@code $[id]} without its array filter, an array filter not used.
 */
final class UpdateParser {
    private final QueryLimits limits;
    private final List<UpdateOp> ops = new ArrayList<>();
    private final List<Path> touched = new ArrayList<>();
    private final List<JsonNode> query;
    private final Filter queryFilter;
    private final ArrayFilters arrayFilters;

    private UpdateParser(QueryLimits limits, List<JsonNode> query, ArrayFilters arrayFilters) {
        this.limits = limits;
        this.query = query;
        this.queryFilter = Filter.and(query.stream().map(q -> Filter.parse(q, limits)).toList());
        this.arrayFilters = arrayFilters;
    }

    static Update parse(JsonNode spec, QueryLimits limits, List<JsonNode> query, JsonNode arrayFilters) {
        if (spec == null || !spec.isObject()) {
            throw WeftException.badRequest("update must be a JSON object");
        }
        UpdateParser parser = new UpdateParser(limits, query, ArrayFilters.parse(arrayFilters, limits));
        Boolean operators = null;
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            boolean isOperator = e.getKey().startsWith("$");
            if (operators != null && operators != isOperator) {
                throw WeftException.badRequest("update mixes operators and plain fields (at '" + e.getKey() + "')");
            }
            operators = isOperator;
            if (isOperator) {
                parser.operator(e.getKey(), e.getValue());
            } else {
                parser.add(new UpdateOp.Set("$set", parser.path("$set", e.getKey(), true), e.getValue(), false));
            }
        }
        parser.checkConflicts();
        parser.arrayFilters.checkAllUsed();
        return new CompiledUpdate(List.copyOf(parser.ops), parser.arrayFilters.probedPaths());
    }

    private void operator(String op, JsonNode fields) {
        if (!fields.isObject()) {
            throw WeftException.badRequest(op + " needs an object of field paths");
        }
        for (Map.Entry<String, JsonNode> e : fields.properties()) {
            JsonNode arg = e.getValue();
            boolean mayTouchId = op.equals("$set") || op.equals("$setOnInsert");
            Path path = path(op, e.getKey(), mayTouchId);
            java.util.function.Function<Path, UpdateOp> at = p -> make(op, p, arg);
            UpdateOp template = at.apply(path);
            PositionalPaths positions = positions(op, path);
            add(positions == null ? template : new UpdateOp.Positional(template, at, positions));
        }
    }

    /** One operator at one path; called again at each concrete path of a positional one. */
    private UpdateOp make(String op, Path path, JsonNode arg) {
        return switch (op) {
                case "$set" -> new UpdateOp.Set(op, path, arg, false);
                case "$setOnInsert" -> new UpdateOp.Set(op, path, arg, true);
                case "$unset" -> new UpdateOp.Unset(path);
                case "$inc", "$mul" -> new UpdateOp.Arithmetic(op, path, number(op, path, arg));
                case "$min", "$max" -> new UpdateOp.MinMax(op, path, arg);
                case "$rename" -> rename(path, arg);
                case "$currentDate" -> currentDate(path, arg);
                case "$push" -> push(path, arg);
                case "$addToSet" -> new UpdateOp.AddToSet(path, each(op, path, arg, false));
                case "$pull" -> new UpdateOp.Pull(op, path, pullCondition(path, arg));
                case "$pullAll" -> pullAll(path, arg);
                case "$pop" -> pop(path, arg);
                case "$bit", "$" -> throw WeftException.badRequest("update operator " + op + " is not supported");
                default -> throw WeftException.badRequest("unknown update operator " + op);
        };
    }

    /** The positional segments of a path compiled, or null when it has none. */
    private PositionalPaths positions(String op, Path path) {
        PositionalMatch first = null;
        for (int i = 0; i < path.length(); i++) {
            String segment = path.field(i);
            if (segment.equals("$")) {
                for (int k = 0; k < i; k++) {
                    if (PositionalPaths.isPositional(path.field(k))) {
                        throw WeftException.badRequest(op + " at '" + path + "': '$' cannot follow another positional operator");
                    }
                }
                if (first != null) {
                    throw WeftException.badRequest(op + " at '" + path + "': too many positional '$' elements");
                }
                first = PositionalMatch.of(query, prefix(path, i), op + " at '" + path + "'");
            } else if (PositionalPaths.identifier(segment) != null) {
                arrayFilters.use(PositionalPaths.identifier(segment), prefix(path, i), op, path);
            }
        }
        boolean positional = first != null
                || java.util.stream.IntStream.range(0, path.length()).anyMatch(i -> PositionalPaths.isPositional(path.field(i)));
        return positional ? new PositionalPaths(path, op, first, queryFilter, arrayFilters.filters()) : null;
    }

    private static String prefix(Path path, int end) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < end; i++) {
            b.append(i == 0 ? "" : ".").append(path.field(i));
        }
        return b.toString();
    }

    private void add(UpdateOp op) {
        ops.add(op);
        touched.add(op.path);
    }

    private Path path(String op, String dotted, boolean mayBeId) {
        Path path = Path.of(dotted);
        for (int i = 0; i < path.length(); i++) {
            String segment = path.field(i);
            if (segment.startsWith("$") && (!PositionalPaths.isPositional(segment) || op.equals("$rename") || i == 0)) {
                throw WeftException.badRequest(op + " at '" + dotted + "': " + (PositionalPaths.isPositional(segment)
                        ? "positional operators are not allowed here" : "$-prefixed field names are not supported"));
            }
        }
        if (path.field(0).equals("_id") && (!mayBeId || path.length() > 1)) {
            throw WeftException.badRequest(op + " at '" + dotted + "': _id cannot be modified");
        }
        return path;
    }

    private void checkConflicts() {
        for (int i = 0; i < touched.size(); i++) {
            for (int j = i + 1; j < touched.size(); j++) {
                Path a = touched.get(i);
                Path b = touched.get(j);
                if (overlap(a, b)) {
                    throw WeftException.badRequest("update paths '" + a + "' and '" + b + "' conflict");
                }
            }
        }
    }

    /** One path is the other or lies inside it; a positional segment may be any element. */
    private static boolean overlap(Path a, Path b) {
        for (int i = 0; i < Math.min(a.length(), b.length()); i++) {
            String x = a.field(i);
            String y = b.field(i);
            if (!x.equals(y) && !PositionalPaths.isPositional(x) && !PositionalPaths.isPositional(y)) {
                return false;
            }
        }
        return true;
    }

    private static JsonNode number(String op, Path path, JsonNode arg) {
        if (!arg.isNumber()) {
            throw WeftException.badRequest(op + " at '" + path + "' needs a number, found " + arg);
        }
        return arg;
    }

    private UpdateOp rename(Path path, JsonNode arg) {
        if (!arg.isString()) {
            throw WeftException.badRequest("$rename at '" + path + "' needs the new name as a string");
        }
        Path target = path("$rename", arg.stringValue(), false);
        if (target.startsWith(path) || path.startsWith(target)) {
            throw WeftException.badRequest("$rename at '" + path + "': source and target overlap");
        }
        touched.add(target);
        return new UpdateOp.Rename(path, target);
    }

    private static UpdateOp currentDate(Path path, JsonNode arg) {
        String type = arg.isBoolean() && arg.booleanValue() ? "date"
                : arg.isObject() && arg.size() == 1 ? arg.path("$type").stringValue(null) : null;
        if (!"date".equals(type) && !"timestamp".equals(type)) {
            throw WeftException.badRequest("$currentDate at '" + path + "' needs true, {\"$type\": \"date\"}"
                    + " or {\"$type\": \"timestamp\"}");
        }
        return new UpdateOp.CurrentDate(path, type.equals("timestamp"));
    }

    /** True for {@code {$each: ...}} and other modifier documents; false for values. */
    private static boolean isModifierDocument(JsonNode arg) {
        return arg.isObject() && !arg.isEmpty() && arg.propertyNames().iterator().next().startsWith("$")
                && Values.bracket(arg) == Values.Bracket.OBJECT;
    }

    private static List<JsonNode> each(String op, Path path, JsonNode arg, boolean modifiersAllowed) {
        if (!isModifierDocument(arg)) {
            return List.of(arg);
        }
        JsonNode each = arg.get("$each");
        if (each == null || !each.isArray()) {
            throw WeftException.badRequest(op + " at '" + path + "': modifiers need $each with an array");
        }
        for (String name : arg.propertyNames()) {
            boolean known = name.equals("$each") || (modifiersAllowed
                    && (name.equals("$slice") || name.equals("$sort") || name.equals("$position")));
            if (!known) {
                throw WeftException.badRequest(op + " at '" + path + "': unknown modifier " + name);
            }
        }
        return each.valueStream().toList();
    }

    private static UpdateOp push(Path path, JsonNode arg) {
        List<JsonNode> values = each("$push", path, arg, true);
        if (!isModifierDocument(arg)) {
            return new UpdateOp.Push(path, values, null, null, null);
        }
        Integer position = arg.has("$position") ? integer("$position", path, arg.get("$position")) : null;
        Integer slice = arg.has("$slice") ? integer("$slice", path, arg.get("$slice")) : null;
        Comparator<JsonNode> sort = arg.has("$sort") ? elementOrder(path, arg.get("$sort")) : null;
        return new UpdateOp.Push(path, values, position, sort, slice);
    }

    private static Comparator<JsonNode> elementOrder(Path path, JsonNode spec) {
        if (spec.isNumber() && Math.abs(spec.doubleValue()) == 1) {
            return spec.doubleValue() > 0 ? Values::compare : (a, b) -> Values.compare(b, a);
        }
        if (spec.isObject() && !spec.isEmpty()) {
            return Sort.parse(spec.toString(), QueryLimits.defaults()).comparator();
        }
        throw WeftException.badRequest("$push at '" + path + "': $sort needs 1, -1 or {field: 1|-1}");
    }

    private static int integer(String modifier, Path path, JsonNode arg) {
        if (!arg.isNumber() || arg.doubleValue() != Math.rint(arg.doubleValue()) || !arg.canConvertToInt()) {
            throw WeftException.badRequest("$push at '" + path + "': " + modifier + " needs an integer, found " + arg);
        }
        return arg.intValue();
    }

    private Predicate<JsonNode> pullCondition(Path path, JsonNode arg) {
        if (arg.isObject() && !arg.isEmpty() && Values.bracket(arg) == Values.Bracket.OBJECT) {
            return new FilterParser(limits).elemMatch(arg, path, 1)::matchesElement;
        }
        return element -> Values.equal(element, arg);
    }

    private static UpdateOp pullAll(Path path, JsonNode arg) {
        if (!arg.isArray()) {
            throw WeftException.badRequest("$pullAll at '" + path + "' needs an array");
        }
        List<JsonNode> values = arg.valueStream().toList();
        return new UpdateOp.Pull("$pullAll", path, element -> values.stream().anyMatch(v -> Values.equal(element, v)));
    }

    private static UpdateOp pop(Path path, JsonNode arg) {
        if (!arg.isNumber() || Math.abs(arg.doubleValue()) != 1) {
            throw WeftException.badRequest("$pop at '" + path + "' needs 1 (last) or -1 (first)");
        }
        return new UpdateOp.Pop(path, arg.doubleValue() < 0);
    }

    /** The parsed update: plans every operator, then writes, then describes what changed. */
    private record CompiledUpdate(List<UpdateOp> ops, java.util.Set<String> probedPaths) implements Update {
        @Override
        public UpdateDescription apply(ObjectNode document, boolean inserting) {
            List<UpdateOp.Change> changes = new ArrayList<>(ops.size());
            for (UpdateOp op : ops) {
                op.plan(document, inserting, changes);
            }
            for (UpdateOp.Change change : changes) {
                if (change.value() != null) {
                    UpdatePaths.checkSettable(document, change.path(), change.op().operator);
                }
            }
            ObjectNode updated = Json.NODES.objectNode();
            List<String> removed = new ArrayList<>();
            for (UpdateOp.Change change : changes) {
                write(document, change, updated, removed);
            }
            return new UpdateDescription(updated, List.copyOf(removed));
        }

        private static void write(ObjectNode doc, UpdateOp.Change change, ObjectNode updated, List<String> removed) {
            Path path = change.path();
            if (change.value() != null) {
                if (!change.value().equals(UpdatePaths.get(doc, path))) {
                    UpdatePaths.set(doc, path, change.value());
                    updated.set(path.dotted, change.value());
                }
                return;
            }
            JsonNode parent = UpdatePaths.parent(doc, path);
            String last = path.field(path.length() - 1);
            if (parent instanceof ObjectNode object) {
                if (object.remove(last) != null) {
                    removed.add(path.dotted);
                }
            } else if (parent instanceof ArrayNode array && path.index(path.length() - 1) >= 0
                    && path.index(path.length() - 1) < array.size()) {
                // MongoDB unsets an array element by nulling it, keeping the positions of the rest.
                array.set(path.index(path.length() - 1), Json.NODES.nullNode());
                updated.set(path.dotted, Json.NODES.nullNode());
            }
        }
    }

}
