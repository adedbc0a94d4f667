package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.query.TextPatterns;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.BooleanNode;
import tools.jackson.databind.node.NullNode;

/** String operators; positions and lengths count code points, as the {@code CP} in their names says. */
final class StringOps {
    /** What {@code $trim} removes by default: MongoDB's list of whitespace code points. */
    private static final String WHITESPACE = "\u0000\u0020\u0009\n\u000B\u000C\r\u00A0\u1680\u2000\u2001\u2002"
            + "\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A";

    private StringOps() {}

    static void register(Map<String, Operators.Op> ops) {
        ops.put("$concat", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 0, Integer.MAX_VALUE);
            return s -> {
                StringBuilder out = new StringBuilder();
                for (Expr e : a) {
                    JsonNode v = e.eval(s);
                    if (AggValues.isNullish(v)) {
                        return NullNode.getInstance();
                    }
                    out.append(string(name, v));
                }
                return Json.NODES.stringNode(out.toString());
            };
        });
        ops.put("$split", (args, p, name) -> new Split(name, p.args(name, args, 2, 2)));
        ops.put("$toLower", (args, p, name) -> caseOp(p, args, name, true));
        ops.put("$toUpper", (args, p, name) -> caseOp(p, args, name, false));
        ops.put("$strLenCP", (args, p, name) -> {
            Expr a = p.args(name, args, 1, 1).getFirst();
            return s -> {
                String text = string(name, a.eval(s));
                return Json.NODES.numberNode(text.codePointCount(0, text.length()));
            };
        });
        ops.put("$substrCP", (args, p, name) -> {
            List<Expr> a = p.args(name, args, 3, 3);
            return s -> {
                JsonNode v = a.get(0).eval(s);
                int start = count(name, "starting index", a.get(1).eval(s));
                int length = count(name, "length", a.get(2).eval(s));
                if (AggValues.isNullish(v)) {
                    return Json.NODES.stringNode("");
                }
                String text = v.isNumber() ? TypeOps.toText(v) : string(name, v);
                int points = text.codePointCount(0, text.length());
                int from = Math.min(start, points);
                int to = (int) Math.min((long) from + length, points);
                return Json.NODES.stringNode(text.substring(text.offsetByCodePoints(0, from), text.offsetByCodePoints(0, to)));
            };
        });
        ops.put("$indexOfCP", StringOps::indexOf);
        ops.put("$trim", (args, p, name) -> trim(args, p, name, true, true));
        ops.put("$ltrim", (args, p, name) -> trim(args, p, name, true, false));
        ops.put("$rtrim", (args, p, name) -> trim(args, p, name, false, true));
        ops.put("$regexMatch", StringOps::regexMatch);
        ops.put("$strcasecmp", (args, p, name) -> ArithmeticOps.binary(p.args(name, args, 2, 2), (a, b) ->
                Json.NODES.numberNode(Integer.signum(string(name, a).toUpperCase(Locale.ROOT)
                        .compareTo(string(name, b).toUpperCase(Locale.ROOT))))));
    }

    /**
     * {@code $split}, which can also say how many pieces it would make without making them: an
     * expression that only counts them ({@code $size} of a {@code $split}) builds no strings.
     */
    static final class Split implements Expr {
        private final String name;
        final Expr text;
        final Expr delimiter;

        Split(String name, List<Expr> args) {
            this.name = name;
            this.text = args.get(0);
            this.delimiter = args.get(1);
        }

        @Override
        public JsonNode eval(Scope s) {
            JsonNode v = text.eval(s);
            JsonNode d = delimiter.eval(s);
            if (AggValues.isNullish(v) || AggValues.isNullish(d)) {
                return NullNode.getInstance();
            }
            String t = string(name, v);
            String sep = separator(d);
            var out = AggValues.array();
            int from = 0;
            for (int at = t.indexOf(sep); at >= 0; at = t.indexOf(sep, from)) {
                out.add(t.substring(from, at));
                from = at + sep.length();
            }
            out.add(t.substring(from));
            return out;
        }

        /** The size of the array {@link #eval} would answer, or -1 where it answers null; the same errors. */
        int pieces(Scope s) {
            JsonNode v = text.eval(s);
            JsonNode d = delimiter.eval(s);
            if (AggValues.isNullish(v) || AggValues.isNullish(d)) {
                return -1;
            }
            String t = string(name, v);
            String sep = separator(d);
            int n = 1;
            for (int at = t.indexOf(sep); at >= 0; at = t.indexOf(sep, at + sep.length())) {
                n++;
            }
            return n;
        }

        private String separator(JsonNode d) {
            String sep = string(name, d);
            if (sep.isEmpty()) {
                throw AggValues.error(name, "requires a non-empty separator");
            }
            return sep;
        }
    }

    static String string(String op, JsonNode v) {
        if (v == null || !v.isString()) {
            throw AggValues.typeError(op, "a string", v);
        }
        return v.stringValue();
    }

    private static int count(String op, String what, JsonNode v) {
        if (v == null || !v.isNumber() || v.doubleValue() != Math.rint(v.doubleValue()) || v.doubleValue() < 0
                || v.doubleValue() > Integer.MAX_VALUE) {
            throw AggValues.error(op, "its " + what + " must be a non-negative whole number, not " + AggValues.typeName(v));
        }
        return v.intValue();
    }

    private static Expr caseOp(ExprParser p, JsonNode args, String name, boolean lower) {
        Expr a = p.args(name, args, 1, 1).getFirst();
        return s -> {
            JsonNode v = a.eval(s);
            if (AggValues.isNullish(v)) {
                return Json.NODES.stringNode("");
            }
            String text = v.isString() ? v.stringValue() : TypeOps.toText(v);
            return Json.NODES.stringNode(lower ? text.toLowerCase(Locale.ROOT) : text.toUpperCase(Locale.ROOT));
        };
    }

    private static Expr indexOf(JsonNode args, ExprParser p, String name) {
        List<Expr> a = p.args(name, args, 2, 4);
        return s -> {
            JsonNode v = a.get(0).eval(s);
            if (AggValues.isNullish(v)) {
                return NullNode.getInstance();
            }
            String text = string(name, v);
            String sought = string(name, a.get(1).eval(s));
            int points = text.codePointCount(0, text.length());
            int start = a.size() > 2 ? count(name, "starting index", a.get(2).eval(s)) : 0;
            int end = a.size() > 3 ? count(name, "ending index", a.get(3).eval(s)) : points;
            end = Math.min(end, points);
            if (start > end) {
                return Json.NODES.numberNode(-1);
            }
            String window = text.substring(text.offsetByCodePoints(0, start), text.offsetByCodePoints(0, end));
            int at = window.indexOf(sought);
            return Json.NODES.numberNode(at < 0 ? -1 : start + window.codePointCount(0, at));
        };
    }

    private static Expr trim(JsonNode args, ExprParser p, String name, boolean left, boolean right) {
        var named = ExprParser.named(name, args, Set.of("input", "chars"), Set.of("input"));
        Expr input = p.parse(named.get("input"));
        Expr chars = named.has("chars") ? p.parse(named.get("chars")) : null;
        return s -> {
            JsonNode v = input.eval(s);
            if (AggValues.isNullish(v)) {
                return NullNode.getInstance();
            }
            String text = string(name, v);
            String set = WHITESPACE;
            if (chars != null) {
                JsonNode c = chars.eval(s);
                if (AggValues.isNullish(c)) {
                    return NullNode.getInstance();
                }
                set = string(name, c);
            }
            int from = 0;
            int to = text.length();
            while (left && from < to && set.indexOf(text.codePointAt(from)) >= 0) {
                from += Character.charCount(text.codePointAt(from));
            }
            while (right && to > from && set.indexOf(text.codePointBefore(to)) >= 0) {
                to -= Character.charCount(text.codePointBefore(to));
            }
            return Json.NODES.stringNode(text.substring(from, to));
        };
    }

    private static Expr regexMatch(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("input", "regex", "options"), Set.of("input", "regex"));
        Expr input = p.parse(named.get("input"));
        JsonNode regex = named.get("regex");
        JsonNode options = named.path("options");
        String opts = options.isString() ? options.stringValue() : "";
        if (!named.has("options") || options.isString()) {
            if (regex.isString() && !regex.stringValue().startsWith("$")) {
                Predicate<String> compiled = TextPatterns.compile(regex.stringValue(), opts, p.limits(), name);
                return s -> matches(name, input.eval(s), compiled);
            }
        }
        Expr pattern = p.parse(regex);
        Expr optionExpr = p.optional(named, "options", Json.NODES.stringNode(""));
        return s -> {
            JsonNode r = pattern.eval(s);
            JsonNode o = optionExpr.eval(s);
            if (AggValues.isNullish(r)) {
                return BooleanNode.FALSE;
            }
            String optionText = AggValues.isNullish(o) ? "" : string(name, o);
            return matches(name, input.eval(s), TextPatterns.compile(string(name, r), optionText, p.limits(), name));
        };
    }

    private static JsonNode matches(String name, JsonNode v, Predicate<String> pattern) {
        if (AggValues.isNullish(v)) {
            return BooleanNode.FALSE;
        }
        return BooleanNode.valueOf(pattern.test(string(name, v)));
    }
}
