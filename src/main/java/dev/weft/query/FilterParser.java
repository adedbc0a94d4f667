package dev.weft.query;

import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Compiles a filter document into a {@link Node} tree. Everything a client can get wrong is
 * found here and answered 400 naming the operator or path: unknown operators, the unsupported
 * {@code $where $expr}, malformed operands, a {@code $text} anywhere but at the top level or in a
 * top-level {@code $and} (MongoDB's places for it), or twice, patterns RE2J cannot run, nesting deeper than
 * {@link QueryLimits#maxNestingDepth}.
 */
final class FilterParser {
    private final QueryLimits limits;
    /** Above 0 inside {@code $or}, {@code $nor} and {@code $elemMatch}, where MongoDB takes no {@code $text}. */
    private int noTextHere;
    private boolean sawText;

    FilterParser(QueryLimits limits) {
        this.limits = limits;
    }

    Node parse(JsonNode spec) {
        if (spec == null || !spec.isObject()) {
            throw WeftException.badRequest("filter must be a JSON object");
        }
        return document(spec, 1);
    }

    /** A filter on a document: field conditions and logical operators, all of which must hold. */
    Node document(JsonNode spec, int depth) {
        checkDepth(depth);
        List<Node> conditions = new ArrayList<>(spec.size());
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            String name = e.getKey();
            JsonNode value = e.getValue();
            if (!name.startsWith("$")) {
                conditions.add(field(Path.of(name), value, depth, true));
                continue;
            }
            switch (name) {
                case "$and" -> conditions.add(new Node.And(branches(name, value, depth)));
                case "$or" -> conditions.add(new Node.Or(withoutText(() -> branches(name, value, depth))));
                case "$nor" -> conditions.add(new Node.Not(new Node.Or(withoutText(() -> branches(name, value, depth)))));
                case "$text" -> conditions.add(text(value));
                case "$comment" -> { }
                case "$where", "$expr", "$jsonSchema", "$function", "$accumulator" ->
                        throw WeftException.badRequest("operator " + name + " is not supported");
                default -> throw WeftException.badRequest("unknown top-level operator " + name);
            }
        }
        return conjunction(conditions);
    }

    private Node text(JsonNode operand) {
        if (noTextHere > 0) {
            throw WeftException.badRequest("$text is not allowed in this context: only at the top level of a filter or in a top-level $and");
        }
        if (sawText) {
            throw WeftException.badRequest("Too many text expressions");
        }
        sawText = true;
        return new Node.Text(TextSearch.parse(operand));
    }

    private <T> T withoutText(java.util.function.Supplier<T> parse) {
        noTextHere++;
        try {
            return parse.get();
        } finally {
            noTextHere--;
        }
    }

    private static Node conjunction(List<Node> conditions) {
        return switch (conditions.size()) {
            case 0 -> Node.All.INSTANCE;
            case 1 -> conditions.get(0);
            default -> new Node.And(conditions);
        };
    }

    private List<Node> branches(String operator, JsonNode value, int depth) {
        if (!value.isArray() || value.isEmpty()) {
            throw WeftException.badRequest(operator + " needs a non-empty array of filters");
        }
        List<Node> branches = new ArrayList<>(value.size());
        for (JsonNode branch : value) {
            if (!branch.isObject()) {
                throw WeftException.badRequest(operator + " needs a non-empty array of filters, found " + branch);
            }
            branches.add(document(branch, depth + 1));
        }
        return branches;
    }

    /** The condition {@code path: value}: an operator document, or equality with the value. */
    private Node field(Path path, JsonNode value, int depth, boolean expand) {
        if (isOperatorDocument(value, path)) {
            return operators(path, value, depth, expand);
        }
        return new Node.Field(path, new ValuePredicate.Eq(value), expand);
    }

    /** True for {@code {$gt: 1, ...}}; false for values, including Extended JSON {$oid} and {$date}. */
    private static boolean isOperatorDocument(JsonNode value, Path path) {
        if (!value.isObject() || value.isEmpty()) {
            return false;
        }
        String first = value.propertyNames().iterator().next();
        if (first.equals("$oid") || first.equals("$date")) {
            if (value.size() != 1 || Values.bracket(value) == Values.Bracket.OBJECT) {
                throw WeftException.badRequest("malformed Extended JSON " + first + " at '" + path + "': " + value);
            }
            return false;
        }
        boolean operators = first.startsWith("$");
        for (String name : value.propertyNames()) {
            if (name.startsWith("$") != operators) {
                throw WeftException.badRequest("at '" + path + "': operators and field names mixed in " + value);
            }
        }
        return operators;
    }

    private Node operators(Path path, JsonNode spec, int depth, boolean expand) {
        checkDepth(depth);
        JsonNode options = spec.get("$options");
        if (options != null && !spec.has("$regex")) {
            throw WeftException.badRequest("$options without $regex at '" + path + "'");
        }
        List<Node> conditions = new ArrayList<>(spec.size());
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            String op = e.getKey();
            JsonNode operand = e.getValue();
            ValuePredicate test = switch (op) {
                case "$eq", "$ne" -> new ValuePredicate.Eq(literal(op, operand, path));
                case "$gt" -> compare(ValuePredicate.Compare.Op.GT, op, operand, path);
                case "$gte" -> compare(ValuePredicate.Compare.Op.GTE, op, operand, path);
                case "$lt" -> compare(ValuePredicate.Compare.Op.LT, op, operand, path);
                case "$lte" -> compare(ValuePredicate.Compare.Op.LTE, op, operand, path);
                case "$in", "$nin" -> in(op, operand, path);
                case "$exists" -> ValuePredicate.Exists.INSTANCE;
                case "$type" -> type(operand, path);
                case "$regex" -> regex(operand, options, path);
                case "$options" -> null;
                case "$size" -> new ValuePredicate.Size((int) nonNegativeInteger(op, operand, path, Integer.MAX_VALUE));
                case "$mod" -> mod(operand, path);
                case "$elemMatch" -> elemMatch(operand, path, depth);
                case "$all", "$not" -> null;
                case "$where", "$expr", "$text" -> throw WeftException.badRequest("operator " + op + " is not supported");
                default -> throw WeftException.badRequest("unknown operator " + op + " at '" + path + "'");
            };
            switch (op) {
                case "$options" -> { }
                case "$ne", "$nin" -> conditions.add(new Node.Not(new Node.Field(path, test, expand)));
                case "$exists" -> conditions.add(truthy(operand, path)
                        ? new Node.Field(path, test, expand)
                        : new Node.Not(new Node.Field(path, test, expand)));
                case "$all" -> conditions.add(all(operand, path, depth, expand));
                case "$not" -> conditions.add(new Node.Not(not(operand, path, depth, expand)));
                default -> conditions.add(new Node.Field(path, test, expand));
            }
        }
        return conjunction(conditions);
    }

    private Node not(JsonNode operand, Path path, int depth, boolean expand) {
        if (!operand.isObject() || operand.isEmpty() || !isOperatorDocument(operand, path)) {
            throw WeftException.badRequest("$not at '" + path + "' needs an operator document or {$regex}, found " + operand);
        }
        return operators(path, operand, depth + 1, expand);
    }

    private Node all(JsonNode operand, Path path, int depth, boolean expand) {
        if (!operand.isArray()) {
            throw WeftException.badRequest("$all at '" + path + "' needs an array");
        }
        List<Node> conditions = new ArrayList<>(operand.size());
        for (JsonNode element : operand) {
            if (element.isObject() && element.size() == 1 && element.has("$elemMatch")) {
                conditions.add(new Node.Field(path, elemMatch(element.get("$elemMatch"), path, depth), expand));
            } else {
                conditions.add(new Node.Field(path, new ValuePredicate.Eq(literal("$all", element, path)), expand));
            }
        }
        // MongoDB: {$all: []} matches no document.
        return conditions.isEmpty() ? new Node.Or(List.of()) : conjunction(conditions);
    }

    ValuePredicate.ElemMatch elemMatch(JsonNode operand, Path path, int depth) {
        if (!operand.isObject()) {
            throw WeftException.badRequest("$elemMatch at '" + path + "' needs an object");
        }
        boolean valueForm = !operand.isEmpty();
        for (String name : operand.propertyNames()) {
            if (!name.startsWith("$") || name.equals("$and") || name.equals("$or") || name.equals("$nor")) {
                valueForm = false;
            }
        }
        if (valueForm) {
            return new ValuePredicate.ElemMatch(operators(Path.SELF, operand, depth + 1, false), false);
        }
        return new ValuePredicate.ElemMatch(withoutText(() -> document(operand, depth + 1)), true);
    }

    private static ValuePredicate compare(ValuePredicate.Compare.Op kind, String op, JsonNode operand, Path path) {
        return new ValuePredicate.Compare(kind, literal(op, operand, path));
    }

    private ValuePredicate in(String op, JsonNode operand, Path path) {
        if (!operand.isArray()) {
            throw WeftException.badRequest(op + " at '" + path + "' needs an array");
        }
        List<ValuePredicate> alternatives = new ArrayList<>(operand.size());
        for (JsonNode element : operand) {
            if (element.isObject() && element.has("$regex")) {
                alternatives.add(regex(element.get("$regex"), element.get("$options"), path));
            } else {
                alternatives.add(new ValuePredicate.Eq(literal(op, element, path)));
            }
        }
        return new ValuePredicate.In(alternatives);
    }

    /** An operand used as a value: an object of operators there is a mistake, not a document. */
    private static JsonNode literal(String op, JsonNode operand, Path path) {
        if (operand.isObject() && !operand.isEmpty()) {
            String first = operand.propertyNames().iterator().next();
            if (first.startsWith("$") && Values.bracket(operand) == Values.Bracket.OBJECT) {
                throw WeftException.badRequest(op + " at '" + path + "' takes a value, found operator " + first);
            }
        }
        return operand;
    }

    private static ValuePredicate type(JsonNode operand, Path path) {
        List<BsonType> types = new ArrayList<>();
        if (operand.isArray()) {
            for (JsonNode t : operand) {
                types.add(bsonType(t, path));
            }
            if (types.isEmpty()) {
                throw WeftException.badRequest("$type at '" + path + "' needs at least one type");
            }
        } else {
            types.add(bsonType(operand, path));
        }
        return new ValuePredicate.Type(types);
    }

    private static BsonType bsonType(JsonNode spec, Path path) {
        BsonType t = BsonType.of(spec);
        if (t == null) {
            throw WeftException.badRequest("$type at '" + path + "': unknown type " + spec);
        }
        return t;
    }

    private static ValuePredicate mod(JsonNode operand, Path path) {
        if (!operand.isArray() || operand.size() != 2 || !operand.get(0).isNumber() || !operand.get(1).isNumber()) {
            throw WeftException.badRequest("$mod at '" + path + "' needs [divisor, remainder]");
        }
        long divisor = (long) operand.get(0).doubleValue();
        if (divisor == 0) {
            throw WeftException.badRequest("$mod at '" + path + "': divisor must not be 0");
        }
        return new ValuePredicate.Mod(divisor, (long) operand.get(1).doubleValue());
    }

    private static long nonNegativeInteger(String op, JsonNode operand, Path path, long max) {
        if (!operand.isNumber() || operand.doubleValue() != Math.rint(operand.doubleValue())
                || operand.doubleValue() < 0 || operand.doubleValue() > max) {
            throw WeftException.badRequest(op + " at '" + path + "' needs a non-negative integer, found " + operand);
        }
        return operand.longValue();
    }

    private static boolean truthy(JsonNode operand, Path path) {
        if (operand.isBoolean()) {
            return operand.booleanValue();
        }
        if (operand.isNumber()) {
            return operand.doubleValue() != 0;
        }
        if (operand.isNull()) {
            return false;
        }
        throw WeftException.badRequest("$exists at '" + path + "' needs true or false, found " + operand);
    }

    private ValuePredicate.Regex regex(JsonNode patternNode, JsonNode optionsNode, Path path) {
        if (!patternNode.isString()) {
            throw WeftException.badRequest("$regex at '" + path + "' needs a string pattern");
        }
        if (optionsNode != null && !optionsNode.isString()) {
            throw WeftException.badRequest("$options at '" + path + "' needs a string");
        }
        return Regexes.compile(patternNode.stringValue(), optionsNode == null ? "" : optionsNode.stringValue(),
                limits, path.dotted);
    }

    private void checkDepth(int depth) {
        if (depth > limits.maxNestingDepth()) {
            throw WeftException.badRequest("filter is nested deeper than " + limits.maxNestingDepth()
                    + " levels (limit max-nesting-depth)");
        }
    }
}
