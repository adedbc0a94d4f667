package dev.weft.http;

import dev.weft.aggregate.Mongomock;
import dev.weft.aggregate.Pipeline;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Where mongomock 4.3.0 departs from MongoDB's documented behaviour, each case named with the
 * page of MongoDB's manual it breaks; AggregationDifferentialTest leaves exactly these out of its
 * comparison with mongomock (Weft is still compared with its reference evaluator on them).
 */
final class MongomockDeviations {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private MongomockDeviations() {}

    /**
     * {@code pipeline} with the stages mongomock 4.3.0 does not implement ({@code $unset},
     * {@code $sortByCount}) written as the stages MongoDB's manual says they are equivalent to:
     * "$unset is an alias for the $project stage that removes/excludes fields"
     * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/unset/) and "$sortByCount
     * is equivalent to {$group: {_id: expr, count: {$sum: 1}}}, {$sort: {count: -1}}"
     * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/sortByCount/); the
     * {@code $count} accumulator as {@code {$sum: 1}}, which the manual says it is equivalent to
     * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/count-accumulator/), and
     * {@code $cmp} as the comparisons it is defined by (-1 when less, 1 when greater, else 0:
     * https://www.mongodb.com/docs/manual/reference/operator/aggregation/cmp/).
     */
    static JsonNode inDocumentedEquivalents(JsonNode pipeline) {
        ArrayNode out = F.arrayNode();
        for (JsonNode stage : pipeline) {
            if (stage.has("$unset")) {
                ObjectNode exclude = F.objectNode();
                JsonNode fields = stage.get("$unset");
                if (fields.isArray()) {
                    fields.forEach(f -> exclude.put(f.asString(), 0));
                } else {
                    exclude.put(fields.asString(), 0);
                }
                out.addObject().set("$project", exclude);
            } else if (stage.has("$sortByCount")) {
                ObjectNode group = out.addObject().putObject("$group");
                group.set("_id", stage.get("$sortByCount"));
                group.putObject("count").put("$sum", 1);
                out.addObject().putObject("$sort").put("count", -1);
            } else {
                out.add(equivalentExpressions(stage));
            }
        }
        return out;
    }

    private static JsonNode equivalentExpressions(JsonNode node) {
        if (node.isArray()) {
            ArrayNode a = F.arrayNode();
            node.forEach(v -> a.add(equivalentExpressions(v)));
            return a;
        }
        if (!node.isObject()) {
            return node;
        }
        if (node.size() == 1 && node.has("$count") && node.get("$count").isObject()) {
            return F.objectNode().put("$sum", 1);
        }
        if (node.size() == 1 && node.has("$cmp")) {
            JsonNode args = equivalentExpressions(node.get("$cmp"));
            return cond(F.objectNode().set("$lt", args), F.numberNode(-1),
                    cond(F.objectNode().set("$gt", args), F.numberNode(1), F.numberNode(0)));
        }
        ObjectNode o = F.objectNode();
        node.properties().forEach(e -> o.set(e.getKey(), equivalentExpressions(e.getValue())));
        return o;
    }

    private static JsonNode cond(JsonNode condition, JsonNode then, JsonNode otherwise) {
        return F.objectNode().set("$cond", F.arrayNode().add(condition).add(then).add(otherwise));
    }

    /**
     * The deviation {@code pipeline} runs into over {@code documents}, if any. Most are found
     * from what reaches the stage in question, computed by the reference evaluator over the
     * stages before it (Weft agrees with it byte for byte, checked first), so a case is left out
     * only when mongomock's known departure can show in it.
     */
    static Optional<String> of(JsonNode pipeline, List<JsonNode> documents, Mongomock.Answer answer) {
        if (answer instanceof Mongomock.Unsupported u) {
            return Optional.of("not implemented in mongomock: " + u.reason().replaceAll("(?s)[.,(].*", ""));
        }
        if (answer instanceof Mongomock.Failed f && f.reason().startsWith("OperationFailure: Unrecognized expression")) {
            // an operator MongoDB documents and mongomock 4.3.0 does not know ($type)
            return Optional.of("not implemented in mongomock: " + f.reason().substring("OperationFailure: ".length()));
        }
        if (answer instanceof Mongomock.Failed f && f.reason().matches("TypeError: '[<>]=?' not supported between instances of .*")) {
            // MongoDB compares values of different types by the BSON comparison order, never
            // failing (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/);
            // mongomock compares with Python's < (in $sort, $min/$max, $gt/$lt, $bucket) and fails
            return Optional.of("mixed types compared with Python's < (TypeError)");
        }
        if (has(pipeline, "$isArray", JsonNode::isArray)) {
            // {$isArray: [<expression>]} is the operator with its argument list
            // (https://www.mongodb.com/docs/manual/reference/operator/aggregation/isArray/);
            // mongomock tests whether the list itself is an array: always true
            return Optional.of("$isArray with an argument list");
        }
        if (has(pipeline, "$not", v -> true)) {
            // {$not: [<expression>]} negates the expression
            // (https://www.mongodb.com/docs/manual/reference/operator/aggregation/not/); mongomock
            // negates the truth of the argument list, a non-empty array: always false
            return Optional.of("$not with an argument list");
        }
        for (int k = 0; k < pipeline.size(); k++) {
            Optional<String> found = atStage(pipeline, k, documents);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> atStage(JsonNode pipeline, int k, List<JsonNode> documents) {
        JsonNode stage = pipeline.get(k);
        String name = stage.propertyNames().iterator().next();
        JsonNode spec = stage.get(name);
        if (!name.equals("$match") && comparesMissing(pipeline, k, documents, spec)) {
            // missing is a value below null to a comparison
            // (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/: "non-existent
            // fields" sort first; $cmp/$gt/... compare "both value and type"); in mongomock a
            // comparison with a missing operand makes the whole expression missing
            return Optional.of("an expression comparing a missing value");
        }
        boolean apart = name.equals("$bucket")
                ? takesOneOperandApart(pipeline, k, documents, false, spec.path("groupBy"))
                        || takesOneOperandApart(pipeline, k, documents, true, spec.path("output"))
                : !name.equals("$match") && takesOneOperandApart(pipeline, k, documents, name.equals("$group"), spec);
        if (apart) {
            // with one operand, $sum/$avg/$min/$max as expressions accumulate the elements of an
            // array and any other value alone ("With a single expression as its operand, if the
            // expression resolves to an array, $sum traverses into the array";
            // https://www.mongodb.com/docs/manual/reference/operator/aggregation/sum/, avg/, min/,
            // max/); mongomock iterates a field path's value (failing on a number or a missing
            // one) and takes any other operand as an argument list
            return Optional.of("$sum/$avg/$min/$max expression with one operand that is not an array field");
        }
        switch (name) {
            case "$match" -> {
                for (String op : List.of("$gt", "$gte", "$lt", "$lte")) {
                    if (has(spec, op, JsonNode::isNull)) {
                        // null and missing are one value to a query, and a range operator with
                        // null matches them as $eq: null does
                        // (https://www.mongodb.com/docs/manual/tutorial/query-for-null-fields/,
                        // type bracketing: https://www.mongodb.com/docs/manual/reference/method/db.collection.find/#type-bracketing);
                        // mongomock's range operators match nothing for null
                        return Optional.of("$gt/$gte/$lt/$lte null in a query");
                    }
                }
            }
            case "$group", "$count", "$sortByCount", "$bucket" -> {
                if (before(pipeline, k, documents).isEmpty() && (!name.equals("$group") || spec.get("_id").isNull())) {
                    // $group outputs one document per distinct key of its input, none without input
                    // (https://www.mongodb.com/docs/manual/reference/operator/aggregation/group/), and $count is a
                    // $group with _id null (https://www.mongodb.com/docs/manual/reference/operator/aggregation/count/);
                    // mongomock outputs one group (a count of 0) for no input
                    return Optional.of("a group of no documents");
                }
                if (name.equals("$group")) {
                    return accumulators(pipeline, k, documents, spec);
                }
            }
            case "$sort" -> {
                for (String key : spec.propertyNames()) {
                    if (before(pipeline, k, documents).stream().anyMatch(d -> at(d, key).isArray())) {
                        // an ascending sort compares arrays by their smallest element, a descending one by their
                        // largest (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/#arrays);
                        // mongomock compares Python lists
                        return Optional.of("$sort on arrays");
                    }
                }
            }
            case "$unwind" -> {
                String path = spec.get("path").asString().substring(1);
                if (spec.has("includeArrayIndex") && spec.path("preserveNullAndEmptyArrays").asBoolean(false)
                        && before(pipeline, k, documents).stream().map(d -> at(d, path))
                                .anyMatch(v -> v.isMissingNode() || v.isNull() || v.isArray() && v.isEmpty())) {
                    // a document kept for a missing, null or empty array has the index null
                    // (https://www.mongodb.com/docs/manual/reference/operator/aggregation/unwind/#include-array-index);
                    // mongomock leaves the index field out
                    return Optional.of("$unwind's includeArrayIndex for a missing, null or empty array");
                }
            }
            case "$addFields", "$set" -> {
                for (var field : spec.properties()) {
                    if (values(pipeline, k, documents, field.getValue()).stream().anyMatch(JsonNode::isMissingNode)) {
                        // a field whose expression is missing is left out, as with $$REMOVE
                        // (https://www.mongodb.com/docs/manual/reference/aggregation-variables/#mongodb-variable-variable.REMOVE);
                        // mongomock keeps the field's old value
                        return Optional.of("$addFields of a missing value");
                    }
                }
            }
            default -> { }
        }
        return Optional.empty();
    }

    private static Optional<String> accumulators(JsonNode pipeline, int k, List<JsonNode> documents, JsonNode group) {
        for (var field : group.properties()) {
            if (field.getKey().equals("_id")) {
                continue;
            }
            String op = field.getValue().propertyNames().iterator().next();
            List<JsonNode> values = values(pipeline, k, documents, field.getValue().get(op));
            if (op.equals("$addToSet") && values.stream().anyMatch(MongomockDeviations::falsyInPython)) {
                // $addToSet adds each distinct value (https://www.mongodb.com/docs/manual/reference/operator/aggregation/addToSet/);
                // mongomock adds null in place of every value Python finds false (0, "", [], {})
                return Optional.of("$addToSet of 0, \"\", [] or {}");
            }
            if ((op.equals("$first") || op.equals("$last")) && values.stream().anyMatch(JsonNode::isMissingNode)) {
                // a document without the value gives null, it is not skipped
                // (https://www.mongodb.com/docs/manual/reference/operator/aggregation/first/#missing-values);
                // mongomock skips it
                return Optional.of("$first/$last over missing values");
            }
        }
        return Optional.empty();
    }

    private static final List<String> COMPARISONS = List.of("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp");

    private static boolean comparesMissing(JsonNode pipeline, int k, List<JsonNode> documents, JsonNode node) {
        if (node.isArray()) {
            for (JsonNode v : node) {
                if (comparesMissing(pipeline, k, documents, v)) {
                    return true;
                }
            }
            return false;
        }
        if (!node.isObject()) {
            return false;
        }
        for (var e : node.properties()) {
            if (COMPARISONS.contains(e.getKey()) && e.getValue().isArray()) {
                for (JsonNode operand : e.getValue()) {
                    if (values(pipeline, k, documents, operand).stream().anyMatch(JsonNode::isMissingNode)) {
                        return true;
                    }
                }
            }
            if (comparesMissing(pipeline, k, documents, e.getValue())) {
                return true;
            }
        }
        return false;
    }

    private static final List<String> ACCUMULATOR_EXPRESSIONS = List.of("$sum", "$avg", "$min", "$max");

    /**
     * Whether {@code node} (a stage's spec; with {@code accumulators}, a {@code $group}'s or a
     * {@code $bucket}'s output, whose fields' own operators are accumulators, not expressions) holds
     * {@code $sum $avg $min $max} as an expression with one operand that is not a field path
     * taking only arrays over what reaches stage {@code k}.
     */
    private static boolean takesOneOperandApart(JsonNode pipeline, int k, List<JsonNode> documents, boolean accumulators, JsonNode node) {
        if (node.isArray()) {
            for (JsonNode v : node) {
                if (takesOneOperandApart(pipeline, k, documents, false, v)) {
                    return true;
                }
            }
            return false;
        }
        if (!node.isObject()) {
            return false;
        }
        for (var e : node.properties()) {
            JsonNode operand = e.getValue();
            if (!accumulators && ACCUMULATOR_EXPRESSIONS.contains(e.getKey()) && !(operand.isArray() && operand.size() > 1)) {
                JsonNode one = operand.isArray() && operand.size() == 1 ? operand.get(0) : operand;
                if (operand.isArray() || !one.isString()
                        || !values(pipeline, k, documents, one).stream().allMatch(JsonNode::isArray)) {
                    return true;
                }
            }
            boolean fieldsOfAccumulators = accumulators && !e.getKey().equals("_id") && operand.isObject();
            JsonNode inner = fieldsOfAccumulators && operand.size() == 1 ? operand.properties().iterator().next().getValue() : operand;
            if (takesOneOperandApart(pipeline, k, documents, false, inner)) {
                return true;
            }
        }
        return false;
    }

    private static boolean falsyInPython(JsonNode v) {
        return v.isNumber() && v.doubleValue() == 0 || v.isString() && v.asString().isEmpty()
                || (v.isArray() || v.isObject()) && v.isEmpty();
    }

    /** What reaches stage {@code k}: the reference evaluator over the stages before it (nothing if they fail). */
    private static List<JsonNode> before(JsonNode pipeline, int k, List<JsonNode> documents) {
        ArrayNode stages = F.arrayNode();
        for (int i = 0; i < k; i++) {
            stages.add(pipeline.get(i));
        }
        try {
            return Pipeline.parse(stages, QueryLimits.defaults())
                    .run(documents, Pipeline.Options.of(1 << 24, Pipeline.Collections.NONE, () -> {}));
        } catch (WeftException e) {
            return List.of();
        }
    }

    /** The values {@code expression} takes over what reaches stage {@code k} (missing as a missing node). */
    private static List<JsonNode> values(JsonNode pipeline, int k, List<JsonNode> documents, JsonNode expression) {
        ArrayNode stages = F.arrayNode();
        stages.addObject().putObject("$project").put("_id", 0).set("v", F.objectNode().set("$let",
                F.objectNode().<ObjectNode>set("vars", F.objectNode()).set("in", expression)));
        try {
            return Pipeline.parse(stages, QueryLimits.defaults())
                    .run(before(pipeline, k, documents), Pipeline.Options.of(1 << 24, Pipeline.Collections.NONE, () -> {}))
                    .stream().map(d -> d.path("v")).toList();
        } catch (WeftException e) {
            return List.of();
        }
    }

    private static JsonNode at(JsonNode document, String path) {
        JsonNode v = document;
        for (String part : path.split("\\.")) {
            v = v.path(part);
        }
        return v;
    }

    /** Whether {@code node} holds an operator {@code name} whose operand passes {@code test}. */
    private static boolean has(JsonNode node, String name, java.util.function.Predicate<JsonNode> test) {
        if (node.isObject()) {
            for (var e : node.properties()) {
                if (e.getKey().equals(name) && test.test(e.getValue()) || has(e.getValue(), name, test)) {
                    return true;
                }
            }
        } else if (node.isArray()) {
            for (JsonNode v : node) {
                if (has(v, name, test)) {
                    return true;
                }
            }
        }
        return false;
    }
}
