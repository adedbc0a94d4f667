package dev.weft.aggregate;

import java.util.HashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** The expression operators, by name; each group registers its own. */
final class Operators {
    /** Compiles one operator's operand. */
    @FunctionalInterface
    interface Op {
        Expr parse(JsonNode args, ExprParser parser, String name);
    }

    private static final Map<String, Op> ALL = new HashMap<>();

    static {
        LogicOps.register(ALL);
        ArithmeticOps.register(ALL);
        StringOps.register(ALL);
        ArrayOps.register(ALL);
        TypeOps.register(ALL);
        DateOps.register(ALL);
        AccumulatorOps.register(ALL);
    }

    private Operators() {}

    static Op get(String name) {
        return ALL.get(name);
    }
}
