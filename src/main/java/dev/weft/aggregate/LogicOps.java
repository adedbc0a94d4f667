package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntPredicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BooleanNode;

/** Comparison, boolean and conditional operators, {@code $literal} and {@code $let}. */
final class LogicOps {
    private LogicOps() {}

    static void register(Map<String, Operators.Op> ops) {
        comparison(ops, "$eq", c -> c == 0);
        comparison(ops, "$ne", c -> c != 0);
        comparison(ops, "$gt", c -> c > 0);
        comparison(ops, "$gte", c -> c >= 0);
        comparison(ops, "$lt", c -> c < 0);
        comparison(ops, "$lte", c -> c <= 0);
        ops.put("$cmp", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 2, 2);
            return s -> Json.NODES.numberNode(Integer.signum(AggValues.compare(a.get(0).eval(s), a.get(1).eval(s))));
        });
        ops.put("$and", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 0, Integer.MAX_VALUE);
            return s -> {
                for (Expr e : a) {
                    if (!AggValues.truthy(e.eval(s))) {
                        return BooleanNode.FALSE;
                    }
                }
                return BooleanNode.TRUE;
            };
        });
        ops.put("$or", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 0, Integer.MAX_VALUE);
            return s -> {
                for (Expr e : a) {
                    if (AggValues.truthy(e.eval(s))) {
                        return BooleanNode.TRUE;
                    }
                }
                return BooleanNode.FALSE;
            };
        });
        ops.put("$not", (args, p, name) -> {
            Expr a = p.args(name, args, 1, 1).getFirst();
            return s -> BooleanNode.valueOf(!AggValues.truthy(a.eval(s)));
        });
        ops.put("$cond", LogicOps::cond);
        ops.put("$ifNull", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 2, Integer.MAX_VALUE);
            return s -> {
                for (int i = 0; i < a.size() - 1; i++) {
                    JsonNode v = a.get(i).eval(s);
                    if (!AggValues.isNullish(v)) {
                        return v;
                    }
                }
                return a.getLast().eval(s);
            };
        });
        ops.put("$switch", LogicOps::switchOp);
        ops.put("$literal", (args, p, name) -> ExprParser.constant(args));
        ops.put("$let", LogicOps::let);
    }

    private static void comparison(Map<String, Operators.Op> ops, String op, IntPredicate test) {
        ops.put(op, (args, p, name) -> {
            List<Expr> a = p.args(name, args, 2, 2);
            Expr left = a.get(0);
            Expr right = a.get(1);
            return s -> BooleanNode.valueOf(test.test(AggValues.compare(left.eval(s), right.eval(s))));
        });
    }

    private static Expr cond(JsonNode args, ExprParser p, String name) {
        Expr test;
        Expr then;
        Expr otherwise;
        if (args.isArray()) {
            List<Expr> a = p.args(name, args, 3, 3);
            test = a.get(0);
            then = a.get(1);
            otherwise = a.get(2);
        } else {
            var named = ExprParser.named(name, args, Set.of("if", "then", "else"), Set.of("if", "then", "else"));
            test = p.parse(named.get("if"));
            then = p.parse(named.get("then"));
            otherwise = p.parse(named.get("else"));
        }
        return s -> AggValues.truthy(test.eval(s)) ? then.eval(s) : otherwise.eval(s);
    }

    private static Expr switchOp(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("branches", "default"), Set.of("branches"));
        JsonNode branches = named.get("branches");
        if (!branches.isArray()) {
            throw WeftException.badRequest("$switch: branches must be an array of {case, then}");
        }
        List<Expr> cases = new ArrayList<>();
        List<Expr> thens = new ArrayList<>();
        for (JsonNode b : branches) {
            var branch = ExprParser.named("$switch branch", b, Set.of("case", "then"), Set.of("case", "then"));
            cases.add(p.parse(branch.get("case")));
            thens.add(p.parse(branch.get("then")));
        }
        Expr fallback = named.has("default") ? p.parse(named.get("default")) : null;
        return s -> {
            for (int i = 0; i < cases.size(); i++) {
                if (AggValues.truthy(cases.get(i).eval(s))) {
                    return thens.get(i).eval(s);
                }
            }
            if (fallback == null) {
                throw WeftException.badRequest("$switch could not find a matching branch for an input,"
                        + " and no default was specified");
            }
            return fallback.eval(s);
        };
    }

    private static Expr let(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("vars", "in"), Set.of("vars", "in"));
        JsonNode vars = named.get("vars");
        if (!vars.isObject()) {
            throw WeftException.badRequest("$let: vars must be an object");
        }
        List<String> names = new ArrayList<>(vars.propertyNames());
        List<Expr> values = new ArrayList<>();
        names.forEach(n -> values.add(p.parse(vars.get(n))));
        Expr body = p.withVariables(names, named.get("in"));
        return s -> {
            Scope inner = s;
            for (int i = 0; i < names.size(); i++) {
                inner = inner.with(names.get(i), values.get(i).eval(s));
            }
            return body.eval(inner);
        };
    }
}
