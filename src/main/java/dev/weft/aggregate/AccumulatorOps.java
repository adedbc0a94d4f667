package dev.weft.aggregate;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * {@code $sum $avg $min $max} as expressions, as MongoDB's {@code ExpressionFromAccumulator}: one
 * argument that is an array is accumulated element by element, one that is not is accumulated
 * alone, several arguments each as a value (an array among them stays one value). The very
 * accumulators of {@code $group} do the work ({@link Accumulators}), so an expression and a
 * group over the same values answer alike: {@code $sum} of no numbers is 0, {@code $avg},
 * {@code $min} and {@code $max} of none are null, and null or missing values are passed over.
 */
final class AccumulatorOps {
    private AccumulatorOps() {}

    static void register(Map<String, Operators.Op> ops) {
        for (String name : List.of("$sum", "$avg", "$min", "$max")) {
            ops.put(name, AccumulatorOps::parse);
        }
    }

    private static Expr parse(JsonNode args, ExprParser p, String name) {
        List<Expr> a = p.args(name, args, 0, Integer.MAX_VALUE);
        Accumulators.Spec spec = new Accumulators.Spec(name, name, null);
        return s -> {
            Accumulators.Accumulator acc = spec.start();
            if (a.size() == 1) {
                JsonNode v = a.getFirst().eval(s);
                if (v != null && v.isArray()) {
                    accumulate(acc, v);
                } else {
                    acc.add(v, new Accumulators.Position(null, 0));
                }
            } else {
                for (int i = 0; i < a.size(); i++) {
                    acc.add(a.get(i).eval(s), new Accumulators.Position(null, i));
                }
            }
            return acc.result();
        };
    }

    /** Each element of {@code array} in order (its position breaks ties, as a scan's does). */
    private static void accumulate(Accumulators.Accumulator acc, JsonNode array) {
        for (int i = 0; i < array.size(); i++) {
            acc.add(array.get(i), new Accumulators.Position(null, i));
        }
    }
}
