package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.TextSearch;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Compiles aggregation expressions: {@code "$a.b"} (a field path of {@code $$CURRENT}),
 * {@code "$$name.x"} (a variable), {@code {"$op": args}} (an operator from {@link Operators}),
 * objects and arrays of expressions, and constants. Unknown operators and undefined variables
 * are 400s naming them. Records every document path it compiles ({@link #paths}), for the
 * access checks of the caller. {@code {"$meta":"textScore"}} reads the score of the document
 * entering the stage ({@link ScoredDocument}); where the stage's documents have none (no leading
 * {@code $text} match, or a stage since made new ones) it is MongoDB's 400.
 */
final class ExprParser {
    private static final Set<String> BUILT_IN = Set.of("ROOT", "CURRENT", "NOW", "REMOVE");

    private final QueryLimits limits;
    private final Deque<String> bound = new ArrayDeque<>();
    private final Set<String> paths = new LinkedHashSet<>();
    private boolean readsWhole;
    private boolean textScoreAvailable;
    private boolean usesTextScore;
    private int depth;

    ExprParser(QueryLimits limits, Set<String> outerVariables) {
        this.limits = limits;
        bound.addAll(outerVariables);
    }

    /** Says whether the documents the expressions will read carry a textScore. */
    ExprParser withTextScore(boolean available) {
        textScoreAvailable = available;
        return this;
    }

    /** Whether a compiled expression reads the textScore. */
    boolean usesTextScore() {
        return usesTextScore;
    }

    QueryLimits limits() {
        return limits;
    }

    /** The document paths compiled expressions read ({@code a.b} for {@code "$a.b"} and {@code "$$ROOT.a.b"}). */
    Set<String> paths() {
        return paths;
    }

    /** Whether an expression reads the whole document ({@code "$$ROOT"}, {@code "$$CURRENT"}). */
    boolean readsWholeDocument() {
        return readsWhole;
    }

    Set<String> boundVariables() {
        return Set.copyOf(bound);
    }

    Expr parse(JsonNode spec) {
        if (++depth > limits.maxNestingDepth()) {
            throw WeftException.badRequest("expression nested deeper than " + limits.maxNestingDepth()
                    + " (limit max-nesting-depth)");
        }
        try {
            return parseAtDepth(spec);
        } finally {
            depth--;
        }
    }

    private Expr parseAtDepth(JsonNode spec) {
        if (spec.isString()) {
            String s = spec.stringValue();
            if (s.startsWith("$$")) {
                return variable(s.substring(2));
            }
            if (s.startsWith("$")) {
                return fieldPath(s.substring(1));
            }
            return constant(spec);
        }
        if (spec.isArray()) {
            List<Expr> elements = new ArrayList<>();
            spec.forEach(e -> elements.add(parse(e)));
            return scope -> {
                var out = AggValues.array();
                for (Expr e : elements) {
                    out.add(AggValues.orNull(e.eval(scope)));
                }
                return out;
            };
        }
        if (spec.isObject() && !spec.isEmpty()) {
            String first = spec.propertyNames().iterator().next();
            if (first.startsWith("$")) {
                if (spec.size() != 1) {
                    throw WeftException.badRequest("an expression object with an operator (" + first
                            + ") must have exactly one field");
                }
                return operator(first, spec.get(first));
            }
            return object((ObjectNode) spec);
        }
        return constant(spec);
    }

    static Expr constant(JsonNode value) {
        return new Constant(value);
    }

    /** A constant, recognisable by the evaluation on stored bytes ({@link StoredGroup}). */
    record Constant(JsonNode value) implements Expr {
        @Override
        public JsonNode eval(Scope scope) {
            return value;
        }
    }

    /** {@code "$a"}: a top-level field of {@code $$CURRENT}, recognisable by the evaluation on stored bytes. */
    record TopField(String field) implements Expr {
        @Override
        public JsonNode eval(Scope scope) {
            JsonNode current = scope.current();
            return current != null && current.isObject() ? current.get(field) : AggValues.path(current, new String[] {field}, 0);
        }
    }

    private Expr operator(String name, JsonNode args) {
        if (name.equals("$meta")) {
            return meta(args);
        }
        Operators.Op op = Operators.get(name);
        if (op == null) {
            throw WeftException.badRequest("unknown aggregation expression operator " + name);
        }
        return op.parse(args, this, name);
    }

    private Expr meta(JsonNode args) {
        if (!args.isString() || !args.stringValue().equals("textScore")) {
            throw WeftException.badRequest("unsupported $meta " + args + ": only {\"$meta\":\"textScore\"}");
        }
        if (!textScoreAvailable) {
            throw WeftException.badRequest(TextSearch.NO_SCORE);
        }
        usesTextScore = true;
        return scope -> ScoredDocument.meta(scope.variable("ROOT"));
    }

    private Expr object(ObjectNode spec) {
        List<String> names = new ArrayList<>();
        List<Expr> values = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            checkFieldName(e.getKey());
            names.add(e.getKey());
            values.add(parse(e.getValue()));
        }
        return scope -> {
            ObjectNode out = Json.NODES.objectNode();
            for (int i = 0; i < names.size(); i++) {
                JsonNode v = values.get(i).eval(scope);
                if (v != null) {
                    out.set(names.get(i), v);
                }
            }
            return out;
        };
    }

    static void checkFieldName(String name) {
        if (name.startsWith("$")) {
            throw WeftException.badRequest("unknown aggregation expression operator " + name
                    + " (a field name may not start with $)");
        }
        if (name.contains(".")) {
            throw WeftException.badRequest("field name '" + name + "' in an expression object may not contain '.'");
        }
    }

    private Expr fieldPath(String dotted) {
        String[] fields = split(dotted, "$" + dotted);
        paths.add(dotted);
        if (fields.length == 1) {
            return new TopField(fields[0]);
        }
        return scope -> AggValues.path(scope.current(), fields, 0);
    }

    private Expr variable(String text) {
        int dot = text.indexOf('.');
        String name = dot < 0 ? text : text.substring(0, dot);
        if (!BUILT_IN.contains(name) && !bound.contains(name)) {
            throw WeftException.badRequest("use of undefined variable: " + name);
        }
        if (dot < 0) {
            readsWhole |= name.equals("ROOT") || name.equals("CURRENT");
            return scope -> scope.variable(name);
        }
        String rest = text.substring(dot + 1);
        String[] fields = split(rest, "$$" + text);
        if (name.equals("ROOT") || name.equals("CURRENT")) {
            paths.add(rest);
        }
        return scope -> AggValues.path(scope.variable(name), fields, 0);
    }

    private static String[] split(String dotted, String written) {
        String[] fields = dotted.split("\\.", -1);
        for (String f : fields) {
            if (f.isEmpty() || f.startsWith("$")) {
                throw WeftException.badRequest("invalid field path " + written);
            }
        }
        return fields;
    }

    /** Compiles {@code body} with {@code names} bound as variables ({@code $let}, {@code $map}...). */
    Expr withVariables(List<String> names, JsonNode body) {
        for (String n : names) {
            if (n.isEmpty() || !Character.isLowerCase(n.charAt(0)) && !(n.charAt(0) > 127)) {
                throw WeftException.badRequest("variable name '" + n + "' must start with a lower-case letter");
            }
            bound.push(n);
        }
        try {
            return parse(body);
        } finally {
            names.forEach(n -> bound.remove(n));
        }
    }

    // --- argument helpers for operators -----------------------------------------------------

    /** The operands of {@code op}: an array's elements, or a lone operand; 400 outside min..max. */
    List<Expr> args(String op, JsonNode args, int min, int max) {
        List<Expr> out = new ArrayList<>();
        if (args.isArray()) {
            args.forEach(a -> out.add(parse(a)));
        } else {
            out.add(parse(args));
        }
        if (out.size() < min || out.size() > max) {
            String expected = min == max ? "exactly " + min : max == Integer.MAX_VALUE ? "at least " + min
                    : "between " + min + " and " + max;
            throw WeftException.badRequest("expression " + op + " takes " + expected + " arguments, "
                    + out.size() + " were passed in");
        }
        return out;
    }

    /** The named fields of an object operand ({@code $cond}, {@code $filter}...); 400 for unknown or missing ones. */
    static ObjectNode named(String op, JsonNode args, Set<String> allowed, Set<String> required) {
        if (!args.isObject()) {
            throw WeftException.badRequest(op + " takes an object such as {" + String.join(", ", required) + "}");
        }
        for (String name : args.propertyNames()) {
            if (!allowed.contains(name)) {
                throw WeftException.badRequest(op + ": unknown argument '" + name + "'");
            }
        }
        for (String name : required) {
            if (!args.has(name)) {
                throw WeftException.badRequest(op + " needs '" + name + "'");
            }
        }
        return (ObjectNode) args;
    }

    /** An optional named argument, or a constant when absent. */
    Expr optional(JsonNode args, String name, JsonNode otherwise) {
        JsonNode spec = args.get(name);
        return spec == null ? constant(otherwise) : parse(spec);
    }
}
