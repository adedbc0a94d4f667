package dev.weft.aggregate;

import dev.weft.query.Values;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/** Arithmetic: null or missing operands give null; other non-numbers are 400s naming the operator. */
final class ArithmeticOps {
    private ArithmeticOps() {}

    static void register(Map<String, Operators.Op> ops) {
        ops.put("$add", ArithmeticOps::add);
        ops.put("$subtract", ArithmeticOps::subtract);
        ops.put("$multiply", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 0, Integer.MAX_VALUE);
            return s -> {
                Numbers.Product product = new Numbers.Product();
                for (Expr e : a) {
                    JsonNode v = e.eval(s);
                    if (AggValues.isNullish(v)) {
                        return NullNode.getInstance();
                    }
                    product.multiply(number(name, v));
                }
                return product.value();
            };
        });
        ops.put("$divide", (args, p, name) -> binary(p.args(name, args, 2, 2), (a, b) -> {
            double divisor = number(name, b).doubleValue();
            if (divisor == 0) {
                throw AggValues.error(name, "can't divide by zero");
            }
            return Numbers.of(number(name, a).doubleValue() / divisor);
        }));
        ops.put("$mod", (args, p, name) -> binary(p.args(name, args, 2, 2), (a, b) -> {
            number(name, a);
            if (number(name, b).doubleValue() == 0) {
                throw AggValues.error(name, "can't $mod by zero");
            }
            int kind = Math.max(Numbers.kind(a), Numbers.kind(b));
            return kind == 2 ? Numbers.of(a.doubleValue() % b.doubleValue())
                    : Numbers.integral(a.longValue() % b.longValue(), kind);
        }));
        ops.put("$abs", (args, p, name) -> unary(p, args, name, v -> {
            int kind = Numbers.kind(v);
            if (kind == 2) {
                return Numbers.of(Math.abs(v.doubleValue()));
            }
            if (v.longValue() == Long.MIN_VALUE) {
                throw AggValues.error(name, "can't take the absolute value of the smallest long");
            }
            return Numbers.integral(Math.abs(v.longValue()), kind);
        }));
        ops.put("$ceil", (args, p, name) -> rounding(p, args, name, Math::ceil));
        ops.put("$floor", (args, p, name) -> rounding(p, args, name, Math::floor));
        ops.put("$sqrt", (args, p, name) -> unary(p, args, name, v -> {
            if (v.doubleValue() < 0) {
                throw AggValues.error(name, "its argument must be greater than or equal to 0");
            }
            return Numbers.of(Math.sqrt(v.doubleValue()));
        }));
        ops.put("$exp", (args, p, name) -> unary(p, args, name, v -> Numbers.of(Math.exp(v.doubleValue()))));
        ops.put("$ln", (args, p, name) -> unary(p, args, name, v -> {
            if (v.doubleValue() <= 0) {
                throw AggValues.error(name, "its argument must be a positive number");
            }
            return Numbers.of(Math.log(v.doubleValue()));
        }));
        ops.put("$log10", (args, p, name) -> unary(p, args, name, v -> {
            if (v.doubleValue() <= 0) {
                throw AggValues.error(name, "its argument must be a positive number");
            }
            return Numbers.of(Math.log10(v.doubleValue()));
        }));
        ops.put("$pow", (args, p, name) -> binary(p.args(name, args, 2, 2), (a, b) -> {
            int kind = Math.max(Numbers.kind(number(name, a)), Numbers.kind(number(name, b)));
            double r = Math.pow(a.doubleValue(), b.doubleValue());
            if (kind < 2 && b.longValue() >= 0 && Math.abs(r) < 0x1p53) {
                return Numbers.integral((long) r, kind);
            }
            if (kind < 2 && a.longValue() == 0 && b.longValue() < 0) {
                throw AggValues.error(name, "0 cannot be raised to a negative power");
            }
            return Numbers.of(r);
        }));
        ops.put("$round", (args, p, name) -> places(p, args, name, RoundingMode.HALF_EVEN));
        ops.put("$trunc", (args, p, name) -> places(p, args, name, RoundingMode.DOWN));
    }

    static JsonNode number(String op, JsonNode v) {
        if (!v.isNumber()) {
            throw AggValues.error(op, "only supports numeric types, not " + AggValues.typeName(v));
        }
        return v;
    }

    interface Binary {
        JsonNode apply(JsonNode a, JsonNode b);
    }

    interface Unary {
        JsonNode apply(JsonNode v);
    }

    static Expr binary(List<Expr> a, Binary f) {
        Expr left = a.get(0);
        Expr right = a.get(1);
        return s -> {
            JsonNode l = left.eval(s);
            JsonNode r = right.eval(s);
            return AggValues.isNullish(l) || AggValues.isNullish(r) ? NullNode.getInstance() : f.apply(l, r);
        };
    }

    private static Expr unary(ExprParser p, JsonNode args, String name, Unary f) {
        Expr a = p.args(name, args, 1, 1).getFirst();
        return s -> {
            JsonNode v = a.eval(s);
            return AggValues.isNullish(v) ? NullNode.getInstance() : f.apply(number(name, v));
        };
    }

    private static Expr rounding(ExprParser p, JsonNode args, String name, DoubleUnaryOperator f) {
        return unary(p, args, name, v -> Numbers.kind(v) < 2 ? v : Numbers.of(f.applyAsDouble(v.doubleValue())));
    }

    private static Expr places(ExprParser p, JsonNode args, String name, RoundingMode mode) {
        List<Expr> a = p.args(name, args, 1, 2);
        Expr value = a.get(0);
        Expr place = a.size() == 2 ? a.get(1) : ExprParser.constant(Numbers.integral(0, 0));
        return s -> {
            JsonNode v = value.eval(s);
            JsonNode n = place.eval(s);
            if (AggValues.isNullish(v) || AggValues.isNullish(n)) {
                return NullNode.getInstance();
            }
            number(name, v);
            if (!n.isIntegralNumber() && !(n.isNumber() && n.doubleValue() == Math.rint(n.doubleValue()))
                    || n.doubleValue() < -20 || n.doubleValue() > 100) {
                throw AggValues.error(name, "place must be a whole number between -20 and 100");
            }
            int places = n.intValue();
            if (Numbers.kind(v) < 2 && places >= 0) {
                return v;
            }
            double d = v.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return v;
            }
            BigDecimal rounded = new BigDecimal(Double.toString(d)).setScale(places, mode);
            return Numbers.kind(v) < 2 ? Numbers.integral(rounded.longValue(), Numbers.kind(v)) : Numbers.of(rounded.doubleValue());
        };
    }

    private static Expr add(JsonNode args, ExprParser p, String name) {
        List<Expr> a = p.args(name, args, 0, Integer.MAX_VALUE);
        return s -> {
            Numbers.Sum sum = new Numbers.Sum();
            boolean date = false;
            for (Expr e : a) {
                JsonNode v = e.eval(s);
                if (AggValues.isNullish(v)) {
                    return NullNode.getInstance();
                }
                if (Values.isDate(v)) {
                    if (date) {
                        throw AggValues.error(name, "only one date allowed in an $add expression");
                    }
                    date = true;
                    sum.add(Numbers.integral(Values.dateMillis(v), 1));
                } else if (v.isNumber()) {
                    sum.add(v);
                } else {
                    throw AggValues.error(name, "only supports numeric or date types, not " + AggValues.typeName(v));
                }
            }
            return date ? AggValues.date(Math.round(sum.asDouble())) : sum.value();
        };
    }

    private static Expr subtract(JsonNode args, ExprParser p, String name) {
        return binary(p.args(name, args, 2, 2), (a, b) -> {
            boolean ad = Values.isDate(a);
            boolean bd = Values.isDate(b);
            if (ad && bd) {
                return Numbers.integral(Values.dateMillis(a) - Values.dateMillis(b), 1);
            }
            if (ad && b.isNumber()) {
                return AggValues.date(Values.dateMillis(a) - Math.round(b.doubleValue()));
            }
            if (a.isNumber() && b.isNumber()) {
                return Numbers.subtract(a, b);
            }
            throw AggValues.error(name, "can't subtract " + AggValues.typeName(b) + " from " + AggValues.typeName(a));
        });
    }
}
