package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Values;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.NullNode;

/** {@code $type}, {@code $isNumber} and the conversions ({@code $toInt}... and {@code $convert}). */
final class TypeOps {
    private TypeOps() {}

    static void register(Map<String, Operators.Op> ops) {
        ops.put("$type", (args, p, name) -> {
            Expr a = p.args(name, args, 1, 1).getFirst();
            return s -> Json.NODES.stringNode(AggValues.typeName(a.eval(s)));
        });
        ops.put("$isNumber", (args, p, name) -> {
            Expr a = p.args(name, args, 1, 1).getFirst();
            return s -> {
                JsonNode v = a.eval(s);
                return BooleanNode.valueOf(v != null && v.isNumber());
            };
        });
        for (String to : List.of("int", "long", "double", "string", "bool", "date")) {
            String op = "$to" + Character.toUpperCase(to.charAt(0)) + to.substring(1);
            ops.put(op, (args, p, name) -> {
                Expr a = p.args(name, args, 1, 1).getFirst();
                return s -> {
                    JsonNode v = a.eval(s);
                    return AggValues.isNullish(v) ? NullNode.getInstance() : convert(name, v, to);
                };
            });
        }
        ops.put("$convert", TypeOps::convertOp);
    }

    private static Expr convertOp(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("input", "to", "onError", "onNull"), Set.of("input", "to"));
        Expr input = p.parse(named.get("input"));
        Expr to = p.parse(named.get("to"));
        Expr onError = named.has("onError") ? p.parse(named.get("onError")) : null;
        Expr onNull = named.has("onNull") ? p.parse(named.get("onNull")) : null;
        return s -> {
            JsonNode v = input.eval(s);
            String target = target(to.eval(s));
            if (AggValues.isNullish(v)) {
                return onNull == null ? NullNode.getInstance() : onNull.eval(s);
            }
            try {
                return convert(name, v, target);
            } catch (WeftException e) {
                if (onError == null) {
                    throw e;
                }
                return onError.eval(s);
            }
        };
    }

    private static String target(JsonNode to) {
        if (to != null && to.isString()) {
            String t = to.stringValue();
            if (Set.of("int", "long", "double", "string", "bool", "date", "decimal").contains(t)) {
                return t.equals("decimal") ? "double" : t;
            }
        }
        if (to != null && to.isNumber()) {
            switch (to.intValue()) {
                case 1: return "double";
                case 2: return "string";
                case 8: return "bool";
                case 9: return "date";
                case 16: return "int";
                case 18: return "long";
                case 19: return "double";
                default: break;
            }
        }
        throw WeftException.badRequest("$convert: unknown target type " + to);
    }

    static JsonNode convert(String op, JsonNode v, String to) {
        return switch (to) {
            case "int" -> {
                long l = toLong(op, v, "int");
                if (l != (int) l) {
                    throw conversion(op, v, "int", "the value does not fit in an int");
                }
                yield Json.NODES.numberNode((int) l);
            }
            case "long" -> Json.NODES.numberNode(toLong(op, v, "long"));
            case "double" -> Json.NODES.numberNode(toDouble(op, v));
            case "string" -> Json.NODES.stringNode(toText(v, op));
            case "bool" -> BooleanNode.valueOf(v.isBoolean() ? v.booleanValue() : !v.isNumber() || v.doubleValue() != 0);
            case "date" -> toDate(op, v);
            default -> throw WeftException.badRequest(op + ": unknown target type " + to);
        };
    }

    private static long toLong(String op, JsonNode v, String to) {
        if (v.isBoolean()) {
            return v.booleanValue() ? 1 : 0;
        }
        if (v.isIntegralNumber()) {
            return v.longValue();
        }
        if (v.isNumber()) {
            double d = v.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d) || Math.abs(d) >= 0x1p63) {
                throw conversion(op, v, to, "the value is out of range");
            }
            return (long) d;
        }
        if (v.isString()) {
            try {
                return Long.parseLong(v.stringValue());
            } catch (NumberFormatException e) {
                throw conversion(op, v, to, "failed to parse number '" + v.stringValue() + "'");
            }
        }
        if (Values.isDate(v) && to.equals("long")) {
            return Values.dateMillis(v);
        }
        throw conversion(op, v, to, "unsupported conversion");
    }

    private static double toDouble(String op, JsonNode v) {
        if (v.isBoolean()) {
            return v.booleanValue() ? 1 : 0;
        }
        if (v.isNumber()) {
            return v.doubleValue();
        }
        if (v.isString()) {
            try {
                return Double.parseDouble(v.stringValue().trim());
            } catch (NumberFormatException e) {
                throw conversion(op, v, "double", "failed to parse number '" + v.stringValue() + "'");
            }
        }
        if (Values.isDate(v)) {
            return Values.dateMillis(v);
        }
        throw conversion(op, v, "double", "unsupported conversion");
    }

    private static JsonNode toDate(String op, JsonNode v) {
        if (Values.isDate(v)) {
            return v;
        }
        if (v.isNumber()) {
            return AggValues.date(v.longValue());
        }
        if (v.isString()) {
            try {
                return AggValues.date(Instant.parse(v.stringValue()).toEpochMilli());
            } catch (DateTimeParseException e) {
                throw conversion(op, v, "date", "not an ISO-8601 date");
            }
        }
        if (Values.isObjectId(v)) {
            return AggValues.date(Long.parseLong(v.get("$oid").stringValue().substring(0, 8), 16) * 1000);
        }
        throw conversion(op, v, "date", "unsupported conversion");
    }

    /** {@code $toString}'s text of a scalar: whole doubles without a fraction, dates as ISO-8601. */
    static String toText(JsonNode v) {
        return toText(v, "$toString");
    }

    private static String toText(JsonNode v, String op) {
        if (v.isString()) {
            return v.stringValue();
        }
        if (v.isIntegralNumber()) {
            return Long.toString(v.longValue());
        }
        if (v.isNumber()) {
            double d = v.doubleValue();
            if (d == Math.rint(d) && !Double.isInfinite(d) && Math.abs(d) < 1e15) {
                return Long.toString((long) d);
            }
            return Double.toString(d);
        }
        if (v.isBoolean()) {
            return Boolean.toString(v.booleanValue());
        }
        if (Values.isDate(v)) {
            return DateOps.iso(Values.dateMillis(v));
        }
        if (Values.isObjectId(v)) {
            return v.get("$oid").stringValue();
        }
        throw conversion(op, v, "string", "unsupported conversion");
    }

    private static WeftException conversion(String op, JsonNode v, String to, String why) {
        return AggValues.error(op, "can't convert " + AggValues.typeName(v) + " to " + to + ": " + why);
    }
}
