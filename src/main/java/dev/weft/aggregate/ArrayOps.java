package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.query.Values;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.NullNode;

/** Array operators: a null or missing array gives null (but {@code $size} and {@code $in}, which refuse it). */
final class ArrayOps {
    private ArrayOps() {}

    /** {@code $size} of a {@code $split}: counts the pieces without making them (and {@link StoredGroup} on stored bytes). */
    record SplitSize(String name, StringOps.Split split) implements Expr {
        @Override
        public JsonNode eval(Scope s) {
            int pieces = split.pieces(s);
            if (pieces < 0) {
                throw AggValues.error(name, "the argument must be an array, not " + AggValues.typeName(NullNode.getInstance()));
            }
            return Json.NODES.numberNode(pieces);
        }
    }

    static void register(Map<String, Operators.Op> ops) {
        ops.put("$size", (args, p, name) -> {
            Expr a = p.args(name, args, 1, 1).getFirst();
            if (a instanceof StringOps.Split split) {
                return new SplitSize(name, split);
            }
            return s -> {
                JsonNode v = a.eval(s);
                if (v == null || !v.isArray()) {
                    throw AggValues.error(name, "the argument must be an array, not " + AggValues.typeName(v));
                }
                return Json.NODES.numberNode(v.size());
            };
        });
        ops.put("$isArray", (args, p, name) -> {
            Expr a = p.args(name, args, 1, 1).getFirst();
            return s -> {
                JsonNode v = a.eval(s);
                return BooleanNode.valueOf(v != null && v.isArray());
            };
        });
        ops.put("$arrayElemAt", (args, p, name) -> ArithmeticOps.binary(p.args(name, args, 2, 2), (arr, i) -> {
            ArrayNode array = array(name, arr);
            long index = whole(name, i);
            long at = index < 0 ? array.size() + index : index;
            return at < 0 || at >= array.size() ? null : array.get((int) at);
        }));
        ops.put("$first", (args, p, name) -> element(p, args, name, true));
        ops.put("$last", (args, p, name) -> element(p, args, name, false));
        ops.put("$in", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 2, 2);
            return s -> {
                JsonNode v = a.get(0).eval(s);
                JsonNode arr = a.get(1).eval(s);
                if (arr == null || !arr.isArray()) {
                    throw AggValues.error(name, "requires an array as a second argument, found: " + AggValues.typeName(arr));
                }
                for (JsonNode e : arr) {
                    if (AggValues.compare(v, e) == 0) {
                        return BooleanNode.TRUE;
                    }
                }
                return BooleanNode.FALSE;
            };
        });
        ops.put("$concatArrays", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 0, Integer.MAX_VALUE);
            return s -> {
                ArrayNode out = AggValues.array();
                for (Expr e : a) {
                    JsonNode v = e.eval(s);
                    if (AggValues.isNullish(v)) {
                        return NullNode.getInstance();
                    }
                    out.addAll(array(name, v));
                }
                return out;
            };
        });
        ops.put("$reverseArray", (args, p, name) -> {
            Expr a = p.args(name, args, 1, 1).getFirst();
            return s -> {
                JsonNode v = a.eval(s);
                if (AggValues.isNullish(v)) {
                    return NullNode.getInstance();
                }
                ArrayNode out = AggValues.array();
                ArrayNode in = array(name, v);
                for (int i = in.size() - 1; i >= 0; i--) {
                    out.add(in.get(i));
                }
                return out;
            };
        });
        ops.put("$slice", ArrayOps::slice);
        ops.put("$filter", ArrayOps::filter);
        ops.put("$map", ArrayOps::map);
        ops.put("$reduce", ArrayOps::reduce);
    }

    static ArrayNode array(String op, JsonNode v) {
        if (v == null || !v.isArray()) {
            throw AggValues.typeError(op, "an array", v);
        }
        return (ArrayNode) v;
    }

    static long whole(String op, JsonNode v) {
        if (!v.isNumber() || v.doubleValue() != Math.rint(v.doubleValue())) {
            throw AggValues.error(op, "requires a whole number, not " + AggValues.typeName(v));
        }
        return v.longValue();
    }

    private static Expr element(ExprParser p, JsonNode args, String name, boolean first) {
        Expr a = p.args(name, args, 1, 1).getFirst();
        return s -> {
            JsonNode v = a.eval(s);
            if (AggValues.isNullish(v)) {
                return NullNode.getInstance();
            }
            ArrayNode array = array(name, v);
            return array.isEmpty() ? null : array.get(first ? 0 : array.size() - 1);
        };
    }

    private static Expr slice(JsonNode args, ExprParser p, String name) {
        List<Expr> a = p.args(name, args, 2, 3);
        return s -> {
            JsonNode v = a.get(0).eval(s);
            JsonNode first = a.get(1).eval(s);
            JsonNode second = a.size() == 3 ? a.get(2).eval(s) : null;
            if (AggValues.isNullish(v) || AggValues.isNullish(first) || a.size() == 3 && AggValues.isNullish(second)) {
                return NullNode.getInstance();
            }
            ArrayNode array = array(name, v);
            int size = array.size();
            long from;
            long n;
            if (a.size() == 2) {
                n = whole(name, first);
                from = n >= 0 ? 0 : Math.max(0, size + n);
                n = Math.abs(n);
            } else {
                long position = whole(name, first);
                n = whole(name, second);
                if (n <= 0) {
                    throw AggValues.error(name, "its third argument must be positive, not " + n);
                }
                from = position >= 0 ? Math.min(position, size) : Math.max(0, size + position);
            }
            ArrayNode out = AggValues.array();
            for (long i = from; i < Math.min(size, from + n); i++) {
                out.add(array.get((int) i));
            }
            return out;
        };
    }

    private static String as(String op, JsonNode args) {
        JsonNode as = args.get("as");
        if (as == null) {
            return "this";
        }
        if (!as.isString()) {
            throw AggValues.error(op, "'as' must be a variable name");
        }
        return as.stringValue();
    }

    private static Expr filter(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("input", "as", "cond", "limit"), Set.of("input", "cond"));
        Expr input = p.parse(named.get("input"));
        String as = as(name, named);
        Expr cond = p.withVariables(List.of(as), named.get("cond"));
        Expr limit = named.has("limit") ? p.parse(named.get("limit")) : null;
        return s -> {
            JsonNode v = input.eval(s);
            if (AggValues.isNullish(v)) {
                return NullNode.getInstance();
            }
            long max = Long.MAX_VALUE;
            if (limit != null) {
                JsonNode l = limit.eval(s);
                if (!AggValues.isNullish(l)) {
                    max = whole(name, l);
                    if (max < 1) {
                        throw AggValues.error(name, "limit must be greater than 0");
                    }
                }
            }
            ArrayNode out = AggValues.array();
            for (JsonNode e : array(name, v)) {
                if (out.size() >= max) {
                    break;
                }
                if (AggValues.truthy(cond.eval(s.with(as, e)))) {
                    out.add(e);
                }
            }
            return out;
        };
    }

    private static Expr map(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("input", "as", "in"), Set.of("input", "in"));
        Expr input = p.parse(named.get("input"));
        String as = as(name, named);
        Expr in = p.withVariables(List.of(as), named.get("in"));
        return s -> {
            JsonNode v = input.eval(s);
            if (AggValues.isNullish(v)) {
                return NullNode.getInstance();
            }
            ArrayNode out = AggValues.array();
            for (JsonNode e : array(name, v)) {
                out.add(AggValues.orNull(in.eval(s.with(as, e))));
            }
            return out;
        };
    }

    private static Expr reduce(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("input", "initialValue", "in"), Set.of("input", "initialValue", "in"));
        Expr input = p.parse(named.get("input"));
        Expr initial = p.parse(named.get("initialValue"));
        Expr in = p.withVariables(List.of("value", "this"), named.get("in"));
        return s -> {
            JsonNode v = input.eval(s);
            if (AggValues.isNullish(v)) {
                return NullNode.getInstance();
            }
            JsonNode acc = initial.eval(s);
            for (JsonNode e : array(name, v)) {
                acc = in.eval(s.with("value", acc).with("this", e));
            }
            return acc;
        };
    }

    /** Equal as {@code $addToSet} and {@code $in} see values: MongoDB's equality. */
    static boolean same(JsonNode a, JsonNode b) {
        return Values.compare(a, b) == 0;
    }
}
