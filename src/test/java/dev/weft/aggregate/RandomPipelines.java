package dev.weft.aggregate;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Random documents (nested objects, arrays, mixed types, missing fields) and random pipelines
 * over them, from one seed, for differential tests. Every pipeline's result is deterministic
 * under MongoDB's rules: a {@code $sort} always ends in a unique tie-break ({@code _id}, and the
 * {@code $unwind} index when there is one), and the order-dependent accumulators ({@code $push},
 * {@code $first}, {@code $last}) only follow such a sort.
 */
public final class RandomPipelines {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final String[] FIELDS = {"a", "b.x", "b.y", "c", "g", "s", "n"};
    private static final String[] NUMERIC = {"a", "n", "b.x"};

    private final Random random;
    private final boolean booleans;

    /**
     * With {@code booleans} false no document holds a boolean and no expression yields one as a
     * value (a comparison is only a {@code $cond}'s condition): what can be compared with an
     * implementation in which true equals 1 (Python's).
     */
    public RandomPipelines(long seed, boolean booleans) {
        this.random = new Random(seed);
        this.booleans = booleans;
    }

    // --- documents ------------------------------------------------------------------------

    public List<JsonNode> documents(int count) {
        List<JsonNode> docs = new ArrayList<>();
        for (int id = 1; id <= count; id++) {
            ObjectNode d = F.objectNode();
            d.put("_id", id);
            maybe(d, "a", this::scalar);
            if (random.nextInt(4) > 0) {
                ObjectNode b = d.putObject("b");
                maybe(b, "x", this::scalar);
                maybe(b, "y", this::array);
            }
            maybe(d, "c", () -> random.nextInt(3) == 0 ? scalar() : array());
            maybe(d, "g", () -> pick(F.stringNode("k0"), F.stringNode("k1"), F.stringNode("k2"), F.numberNode(1),
                    F.numberNode(1.0), F.nullNode()));
            maybe(d, "s", () -> random.nextInt(5) == 0 ? scalar() : F.stringNode(dotted()));
            maybe(d, "n", () -> random.nextBoolean() ? F.numberNode(random.nextInt(200) - 50)
                    : F.numberNode(Math.round(random.nextDouble() * 1000) / 8.0));
            docs.add(d);
        }
        return docs;
    }

    private void maybe(ObjectNode d, String name, java.util.function.Supplier<JsonNode> value) {
        if (random.nextInt(6) > 0) {
            d.set(name, value.get());
        }
    }

    private JsonNode scalar() {
        return switch (random.nextInt(7)) {
            case 0 -> F.numberNode(random.nextInt(21) - 10);
            case 1 -> F.numberNode(Math.round(random.nextDouble() * 80 - 40) / 4.0);
            case 2 -> F.stringNode(pick("", "x", "y.z", "Ab", "10"));
            case 3 -> booleans ? F.booleanNode(random.nextBoolean()) : F.stringNode("t");
            case 4 -> F.nullNode();
            case 5 -> F.objectNode().put("x", random.nextInt(5));
            default -> F.numberNode(random.nextInt(5));
        };
    }

    private JsonNode array() {
        ArrayNode a = F.arrayNode();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            a.add(random.nextInt(4) == 0 ? F.objectNode().put("x", random.nextInt(3)) : scalar());
        }
        return a;
    }

    private String dotted() {
        StringBuilder s = new StringBuilder();
        int parts = 1 + random.nextInt(4);
        for (int i = 0; i < parts; i++) {
            s.append(i > 0 ? "." : "").append(pick("ab", "", "c", "def"));
        }
        return s.toString();
    }

    // --- pipelines ------------------------------------------------------------------------

    /**
     * A pipeline: an optional leading {@code $match}, up to two reshaping or filtering stages,
     * then one of {@code $group}, {@code $count}, {@code $sortByCount}, {@code $bucket} or a
     * sort with a page, or nothing more.
     */
    public ArrayNode pipeline() {
        ArrayNode p = F.arrayNode();
        if (random.nextBoolean()) {
            p.addObject().set("$match", queryFilter());
        }
        boolean unwound = false;
        int middle = random.nextInt(3);
        for (int i = 0; i < middle; i++) {
            switch (random.nextInt(5)) {
                case 0 -> p.addObject().set("$addFields", F.objectNode().set(pick("a", "e", "b.z"), expression(2)));
                case 1 -> p.addObject().set("$project", projection());
                case 2 -> {
                    if (!unwound) {
                        unwound = true;
                        p.addObject().set("$unwind", F.objectNode().put("path", pick("$c", "$b.y"))
                                .put("includeArrayIndex", "i").put("preserveNullAndEmptyArrays", random.nextBoolean()));
                    }
                }
                case 3 -> p.addObject().set("$match", queryFilter());
                default -> p.addObject().put("$unset", pick("a", "b.x", "c"));
            }
        }
        switch (random.nextInt(6)) {
            case 0 -> p.addObject().set("$group", group(false));
            case 1 -> {
                p.addObject().set("$sort", sortSpec(unwound));
                p.addObject().set("$group", group(true));
            }
            case 2 -> p.addObject().put("$count", "total");
            case 3 -> p.addObject().put("$sortByCount", pick("$g", "$a", "$b.x"));
            case 4 -> {
                p.addObject().set("$sort", sortSpec(unwound));
                if (random.nextBoolean()) {
                    p.addObject().put("$skip", random.nextInt(5));
                }
                p.addObject().put("$limit", 1 + random.nextInt(10));
            }
            default -> p.addObject().set("$bucket", bucket());
        }
        return p;
    }

    private ObjectNode sortSpec(boolean unwound) {
        ObjectNode sort = F.objectNode();
        String first = pick(FIELDS);
        if (!first.equals("_id")) {
            sort.put(first, random.nextBoolean() ? 1 : -1);
        }
        sort.put("_id", 1);
        if (unwound) {
            sort.put("i", 1);
        }
        return sort;
    }

    private ObjectNode queryFilter() {
        String field = pick(FIELDS);
        ObjectNode f = F.objectNode();
        switch (random.nextInt(7)) {
            case 0 -> f.set(field, scalar());
            case 1 -> f.set(field, F.objectNode().set(pick("$gt", "$gte", "$lt", "$lte"), scalar()));
            case 2 -> f.set(field, F.objectNode().put("$exists", random.nextBoolean()));
            case 3 -> f.set(field, F.objectNode().set("$in", F.arrayNode().add(scalar()).add(scalar())));
            case 4 -> f.set(field, F.objectNode().set("$ne", scalar()));
            case 5 -> f.set(field, F.objectNode().put("$type", pick("string", "number", "array", "object", "null", "bool")));
            default -> f.putNull(field);
        }
        return f;
    }

    private ObjectNode projection() {
        ObjectNode p = F.objectNode();
        if (random.nextInt(3) == 0) {
            p.put(pick("a", "b", "c", "b.y"), 0);
            return p;
        }
        p.put(pick("a", "b.x", "c", "g"), 1);
        // an operator, never a bare literal: $project reads 0, 1, true and false as exclusion or inclusion
        p.set(pick("e", "f"), operator(2));
        p.put("i", 1);
        return p;
    }

    private ObjectNode group(boolean sorted) {
        ObjectNode g = F.objectNode();
        g.set("_id", switch (random.nextInt(4)) {
            case 0 -> F.nullNode();
            case 1 -> F.stringNode(pick("$g", "$a", "$b.x"));
            case 2 -> F.objectNode().put("k", "$g").put("t", "$b.x");
            default -> expression(1);
        });
        int accumulators = 1 + random.nextInt(3);
        for (int i = 0; i < accumulators; i++) {
            String op = sorted ? pick("$sum", "$avg", "$min", "$max", "$push", "$addToSet", "$first", "$last", "$count")
                    : pick("$sum", "$avg", "$min", "$max", "$count", "$addToSet");
            if (op.equals("$count")) {
                g.set("v" + i, F.objectNode().set("$count", F.objectNode()));
            } else if (op.equals("$addToSet")) {
                // a set's order is unspecified: its size is what can be compared
                g.set("v" + i, F.objectNode().set(op, F.stringNode(pick("$g", "$s"))));
            } else {
                g.set("v" + i, F.objectNode().set(op, random.nextInt(4) == 0 ? F.numberNode(1) : operand()));
            }
        }
        return g;
    }

    private ObjectNode bucket() {
        ObjectNode b = F.objectNode();
        b.put("groupBy", "$" + pick(NUMERIC));
        b.set("boundaries", F.arrayNode().add(-10).add(0).add(5).add(100));
        b.put("default", "other");
        ObjectNode output = b.putObject("output");
        output.set("n", F.objectNode().put("$sum", 1));
        output.set("t", F.objectNode().put("$sum", "$" + pick(NUMERIC)));
        return b;
    }

    private JsonNode operand() {
        return random.nextBoolean() ? F.stringNode("$" + pick(FIELDS)) : expression(1);
    }

    /** An expression, most of them guarded so a pipeline runs to its end more often than it fails. */
    JsonNode expression(int depth) {
        if (depth == 0 || random.nextInt(4) == 0) {
            return random.nextInt(3) == 0 ? literal() : F.stringNode("$" + pick(FIELDS));
        }
        return operator(depth);
    }

    private JsonNode operator(int depth) {
        JsonNode x = expression(depth - 1);
        JsonNode y = expression(depth - 1);
        return switch (random.nextInt(20)) {
            case 0 -> op("$add", guardedNumber(x), guardedNumber(y));
            case 1 -> op("$multiply", guardedNumber(x), F.numberNode(random.nextInt(5) - 2));
            case 2 -> op("$subtract", guardedNumber(x), guardedNumber(y));
            case 3 -> op("$ifNull", x, literal());
            case 4 -> op("$cond", op(pick("$gt", "$lt", "$eq", "$gte", "$ne"), x, y), x, y);
            case 5 -> op("$cmp", x, y);
            case 6 -> F.objectNode().set("$type", x);
            case 7 -> truth(F.objectNode().set("$isArray", F.arrayNode().add(x)));
            case 8 -> op("$cond", F.objectNode().set("$isArray", x),
                    F.objectNode().set("$size", x), F.numberNode(-1));
            case 9 -> op("$cond", op("$eq", F.objectNode().set("$type", x), F.stringNode("string")),
                    op("$split", x, F.stringNode(".")), x);
            case 10 -> op("$cond", op("$eq", F.objectNode().set("$type", x), F.stringNode("string")),
                    F.objectNode().set("$strLenCP", x), F.nullNode());
            case 11 -> op("$cond", op("$eq", F.objectNode().set("$type", x), F.stringNode("string")),
                    F.objectNode().set("$toUpper", x), x);
            case 12 -> truth(op("$and", x, y));
            case 13 -> truth(op("$or", x, y));
            case 14 -> truth(F.objectNode().set("$not", F.arrayNode().add(x)));
            case 15 -> op("$cond", F.objectNode().set("$isArray", x),
                    op("$arrayElemAt", x, F.numberNode(random.nextInt(3) - 1)), x);
            case 16 -> truth(op("$in", x, F.arrayNode().add(literal()).add(literal())));
            // the accumulators as expressions: one argument (an array is taken element by element), or several
            case 17 -> F.objectNode().set(pick("$sum", "$avg", "$min", "$max"), x);
            case 18 -> op(pick("$sum", "$avg", "$min", "$max"), x, y);
            default -> op("$concat", F.stringNode("<"), op("$cond",
                    op("$eq", F.objectNode().set("$type", x), F.stringNode("string")), x, F.stringNode("?")));
        };
    }

    /** A boolean expression as a value: itself, or (without booleans) a string saying which. */
    private JsonNode truth(JsonNode condition) {
        return booleans ? condition : op("$cond", condition, F.stringNode("yes"), F.stringNode("no"));
    }

    private JsonNode guardedNumber(JsonNode x) {
        // $add and $subtract refuse strings and other non-numbers: keep most of them numbers
        return random.nextInt(5) == 0 ? x : op("$cond", F.objectNode().set("$isNumber", x), x, F.numberNode(0));
    }

    private JsonNode literal() {
        return switch (random.nextInt(5)) {
            case 0 -> F.numberNode(random.nextInt(9) - 4);
            case 1 -> F.numberNode(random.nextInt(9) / 2.0);
            case 2 -> F.stringNode(pick("x", "y.z", ""));
            case 3 -> F.nullNode();
            default -> booleans ? F.booleanNode(random.nextBoolean()) : F.numberNode(1);
        };
    }

    private static ObjectNode op(String name, JsonNode... args) {
        ArrayNode a = F.arrayNode();
        for (JsonNode arg : args) {
            a.add(arg);
        }
        return F.objectNode().set(name, a);
    }

    @SafeVarargs
    private <T> T pick(T... options) {
        return options[random.nextInt(options.length)];
    }
}
