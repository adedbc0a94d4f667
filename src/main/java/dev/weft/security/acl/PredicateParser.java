package dev.weft.security.acl;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The parser of {@link RequestPredicate}: recursive descent over the Undertow syntax RESTHeart
 * writes, both call forms ({@code path-prefix('/a')}, {@code path-prefix[path="/a"]}),
 * positional arguments (they fill the predicate's default parameter) and named ones
 * ({@code regex[pattern="...", value="%R", full-match=true]}), arrays ({@code {'a', 'b'}}).
 * Every error is a 400 naming the predicate text and the character position.
 *
 * <pre>
 * expr   := term ('or' term)*
 * term   := factor ('and' factor)*
 * factor := 'not' factor | '(' expr ')' | 'true' | 'false' | name ('(' args ')' | '[' args ']')
 * args   := (arg (',' arg)*)?        arg := (param '=')? value
 * value  := 'text' | "text" | bare | '{' value (',' value)* '}'
 * </pre>
 */
final class PredicateParser {
    static final int DEFAULT_MAX_REGEX = 1024;

    /** A predicate's parameters: the first is the default one, which positional arguments fill. */
    private static final Map<String, List<String>> PARAMETERS = Map.ofEntries(
            Map.entry("path-prefix", List.of("path")),
            Map.entry("path", List.of("path")),
            Map.entry("path-suffix", List.of("path")),
            Map.entry("path-template", List.of("value", "match")),
            Map.entry("method", List.of("value")),
            Map.entry("equals", List.of("value")),
            Map.entry("contains", List.of("search", "value")),
            Map.entry("exists", List.of("value")),
            Map.entry("regex", List.of("pattern", "value", "full-match", "case-sensitive")),
            Map.entry("in", List.of("value", "array")),
            Map.entry("qparams-contain", List.of("qparams")),
            Map.entry("qparams-blacklist", List.of("blacklist")),
            Map.entry("qparams-whitelist", List.of("whitelist")),
            Map.entry("qparams-size", List.of("size")),
            Map.entry("bson-request-contains", List.of("keys")),
            Map.entry("bson-request-whitelist", List.of("whitelist")),
            Map.entry("bson-request-blacklist", List.of("blacklist")),
            Map.entry("bson-request-prop-equals", List.of("key", "value")),
            Map.entry("bson-request-array-contains", List.of("key", "values")),
            Map.entry("bson-request-array-is-subset", List.of("key", "values")));

    /** An argument as written; {@code array} is null for a single value. */
    private record Value(String raw, List<Value> array, int at) {}

    private final String text;
    private final int maxRegexLength;
    private int pos;

    PredicateParser(String text, int maxRegexLength) {
        this.text = text;
        this.maxRegexLength = maxRegexLength;
    }

    RequestPredicate parseAll() {
        RequestPredicate p = expr();
        skipSpace();
        if (pos != text.length()) {
            throw error("unexpected '" + text.substring(pos) + "'");
        }
        return p;
    }

    private RequestPredicate expr() {
        List<RequestPredicate> terms = new ArrayList<>();
        terms.add(term());
        while (keyword("or")) {
            terms.add(term());
        }
        return terms.size() == 1 ? terms.getFirst() : new RequestPredicate.Or(List.copyOf(terms));
    }

    private RequestPredicate term() {
        List<RequestPredicate> factors = new ArrayList<>();
        factors.add(factor());
        while (keyword("and")) {
            factors.add(factor());
        }
        return factors.size() == 1 ? factors.getFirst() : new RequestPredicate.And(List.copyOf(factors));
    }

    private RequestPredicate factor() {
        skipSpace();
        if (keyword("not")) {
            return new RequestPredicate.Not(factor());
        }
        if (peek() == '(') {
            pos++;
            RequestPredicate inner = expr();
            expect(')');
            return inner;
        }
        int at = pos;
        String name = word();
        skipSpace();
        if ((name.equals("true") || name.equals("false")) && peek() != '(' && peek() != '[') {
            return new RequestPredicate.Constant(name.equals("true"));
        }
        List<String> params = PARAMETERS.get(name);
        if (params == null) {
            pos = at;
            throw error("unknown predicate " + name + " (" + String.join(", ", PARAMETERS.keySet().stream().sorted().toList())
                    + ", true, false, and, or, not)");
        }
        char close = switch (peek()) {
            case '(' -> ')';
            case '[' -> ']';
            default -> throw error("expected '(' or '[' after " + name);
        };
        pos++;
        Map<String, Value> args = arguments(name, params, close);
        return build(name, args, at);
    }

    private Map<String, Value> arguments(String name, List<String> params, char close) {
        Map<String, Value> named = new LinkedHashMap<>();
        List<Value> positional = new ArrayList<>();
        skipSpace();
        if (peek() != close) {
            do {
                skipSpace();
                int at = pos;
                String param = parameterName();
                if (param != null) {
                    if (!params.contains(param)) {
                        pos = at;
                        throw error(name + " has no parameter " + param + " (" + String.join(", ", params) + ")");
                    }
                    if (named.put(param, value(false)) != null) {
                        pos = at;
                        throw error(param + " is given twice");
                    }
                } else {
                    positional.add(value(false));
                }
                skipSpace();
            } while (consume(','));
        }
        expect(close);
        if (!positional.isEmpty()) {
            String param = params.getFirst();
            if (named.containsKey(param)) {
                throw error(name + ": " + param + " is given both by name and by position");
            }
            named.put(param, positional.size() == 1 ? positional.getFirst()
                    : new Value(null, List.copyOf(positional), positional.getFirst().at()));
        }
        return named;
    }

    /** {@code name=} when the next thing is a parameter name followed by '='; else null, nothing consumed. */
    private String parameterName() {
        int start = pos;
        while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '-')) {
            pos++;
        }
        String name = text.substring(start, pos);
        skipSpace();
        if (!name.isEmpty() && peek() == '=') {
            pos++;
            return name;
        }
        pos = start;
        return null;
    }

    private Value value(boolean inArray) {
        skipSpace();
        int at = pos;
        char c = peek();
        if (c == '{' && !text.startsWith("{}", pos) || c == '{' && inArray) {
            pos++;
            List<Value> elements = new ArrayList<>();
            skipSpace();
            if (peek() != '}') {
                do {
                    elements.add(value(true));
                    skipSpace();
                } while (consume(','));
            }
            expect('}');
            return new Value(null, List.copyOf(elements), at);
        }
        if (c == '{') {
            pos += 2;
            return new Value(null, List.of(), at);
        }
        if (c == '\'' || c == '"') {
            int end = text.indexOf(c, pos + 1);
            if (end < 0) {
                throw error("unterminated string");
            }
            pos = end + 1;
            return new Value(text.substring(at + 1, end), null, at);
        }
        while (pos < text.length()) {
            if (text.startsWith("${", pos) || text.startsWith("@qparams[", pos) || text.charAt(pos) == '{') {
                int end = text.indexOf(text.charAt(pos) == '@' ? ']' : '}', pos);
                if (end < 0) {
                    throw error("unterminated " + text.substring(pos, pos + 2));
                }
                pos = end + 1;
            } else if (",)]} \t\r\n".indexOf(text.charAt(pos)) >= 0) {
                break;
            } else {
                pos++;
            }
        }
        if (at == pos) {
            throw error("expected a value");
        }
        return new Value(text.substring(at, pos), null, at);
    }

    private RequestPredicate build(String name, Map<String, Value> args, int at) {
        return switch (name) {
            case "path-prefix" -> new RequestPredicate.PathPrefix(paths(required(name, args, "path")));
            case "path" -> new RequestPredicate.PathExact(paths(required(name, args, "path")));
            case "path-suffix" -> new RequestPredicate.PathSuffix(paths(required(name, args, "path")));
            case "path-template" -> new RequestPredicate.PathTemplate(segments(single(name, required(name, args, "value"))));
            case "method" -> new RequestPredicate.Method(texts(required(name, args, "value")).stream()
                    .map(m -> m.toUpperCase(Locale.ROOT)).toList());
            case "equals" -> {
                List<Value> operands = list(required(name, args, "value"));
                if (operands.size() < 2) {
                    throw errorAt(at, "equals takes two operands or more");
                }
                yield new RequestPredicate.Equals(operands.stream().map(this::operand).toList());
            }
            case "contains" -> new RequestPredicate.Contains(operand(single(name, required(name, args, "value"))),
                    texts(required(name, args, "search")));
            case "exists" -> new RequestPredicate.Exists(operand(single(name, required(name, args, "value"))));
            case "regex" -> regex(name, args);
            case "in" -> new RequestPredicate.In(operand(single(name, required(name, args, "value"))),
                    array(required(name, args, "array")));
            case "qparams-contain" -> qparams(RequestPredicate.QParams.Kind.CONTAIN, required(name, args, "qparams"));
            case "qparams-blacklist" -> qparams(RequestPredicate.QParams.Kind.BLACKLIST, required(name, args, "blacklist"));
            case "qparams-whitelist" -> qparams(RequestPredicate.QParams.Kind.WHITELIST, args.get("whitelist"));
            case "qparams-size" -> new RequestPredicate.QParams(RequestPredicate.QParams.Kind.SIZE, Set.of(),
                    integer(single(name, required(name, args, "size"))));
            case "bson-request-contains" -> new RequestPredicate.BodyKeys(RequestPredicate.BodyKeys.Kind.CONTAINS,
                    keys(required(name, args, "keys")));
            case "bson-request-whitelist" -> new RequestPredicate.BodyKeys(RequestPredicate.BodyKeys.Kind.WHITELIST,
                    keys(args.get("whitelist")));
            case "bson-request-blacklist" -> new RequestPredicate.BodyKeys(RequestPredicate.BodyKeys.Kind.BLACKLIST,
                    keys(required(name, args, "blacklist")));
            case "bson-request-prop-equals" -> bodyValue(RequestPredicate.BodyValue.Kind.PROP_EQUALS, name, args, "value");
            case "bson-request-array-contains" -> bodyValue(RequestPredicate.BodyValue.Kind.ARRAY_CONTAINS, name, args, "values");
            case "bson-request-array-is-subset" -> bodyValue(RequestPredicate.BodyValue.Kind.ARRAY_IS_SUBSET, name, args, "values");
            default -> throw errorAt(at, "unknown predicate " + name);
        };
    }

    private RequestPredicate regex(String name, Map<String, Value> args) {
        Value pattern = single(name, required(name, args, "pattern"));
        if (pattern.raw().length() > maxRegexLength) {
            throw errorAt(pattern.at(), "regex pattern is longer than max-regex-length (" + maxRegexLength + ")");
        }
        boolean caseSensitive = !args.containsKey("case-sensitive") || bool(single(name, args.get("case-sensitive")));
        Value value = args.containsKey("value") ? single(name, args.get("value")) : new Value("%R", null, pattern.at());
        try {
            Pattern compiled = Pattern.compile(pattern.raw(), caseSensitive ? 0 : Pattern.CASE_INSENSITIVE);
            return new RequestPredicate.Regex(compiled, operand(value),
                    args.containsKey("full-match") && bool(single(name, args.get("full-match"))));
        } catch (PatternSyntaxException e) {
            throw errorAt(pattern.at(), "bad regex pattern: " + e.getMessage());
        }
    }

    private RequestPredicate qparams(RequestPredicate.QParams.Kind kind, Value names) {
        return new RequestPredicate.QParams(kind, keys(names), 0);
    }

    private RequestPredicate bodyValue(RequestPredicate.BodyValue.Kind kind, String name, Map<String, Value> args,
                                       String valuesParam) {
        String key = single(name, required(name, args, "key")).raw();
        return new RequestPredicate.BodyValue(kind, key, list(required(name, args, valuesParam)).stream()
                .map(this::operand).toList());
    }

    private Value required(String name, Map<String, Value> args, String param) {
        Value v = args.get(param);
        if (v == null) {
            throw error(name + " needs " + param);
        }
        return v;
    }

    private Value single(String name, Value v) {
        if (v.array() != null) {
            throw errorAt(v.at(), name + " takes one value here, not an array");
        }
        return v;
    }

    private static List<Value> list(Value v) {
        return v.array() != null ? v.array() : List.of(v);
    }

    private List<String> texts(Value v) {
        return list(v).stream().map(e -> single("array", e).raw()).toList();
    }

    private Set<String> keys(Value v) {
        return v == null ? Set.of() : Set.copyOf(new LinkedHashSet<>(texts(v)));
    }

    private Operand operand(Value v) {
        single("operand", v);
        try {
            return Operand.parse(v.raw(), "operand " + v.raw());
        } catch (WeftException e) {
            throw errorAt(v.at(), e.getMessage());
        }
    }

    private Operand array(Value v) {
        return v.array() != null ? new Operand.Array(v.array().stream().map(this::operand).toList()) : operand(v);
    }

    private List<List<String>> paths(Value v) {
        return list(v).stream().map(p -> segments(single("path", p))).toList();
    }

    private List<String> segments(Value path) {
        if (!path.raw().startsWith("/")) {
            throw errorAt(path.at(), "a path must start with '/': " + path.raw());
        }
        List<String> parts = new ArrayList<>();
        for (String p : path.raw().split("/")) {
            if (!p.isEmpty()) {
                parts.add(p);
            }
        }
        return List.copyOf(parts);
    }

    private int integer(Value v) {
        try {
            return Integer.parseInt(v.raw());
        } catch (NumberFormatException e) {
            throw errorAt(v.at(), "expected an integer, not " + v.raw());
        }
    }

    private boolean bool(Value v) {
        return switch (v.raw()) {
            case "true" -> true;
            case "false" -> false;
            default -> throw errorAt(v.at(), "expected true or false, not " + v.raw());
        };
    }

    private String word() {
        skipSpace();
        int start = pos;
        while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '-')) {
            pos++;
        }
        if (start == pos) {
            throw error("expected a predicate");
        }
        return text.substring(start, pos);
    }

    /** Consumes {@code kw} when it is the next whole word. */
    private boolean keyword(String kw) {
        skipSpace();
        int end = pos + kw.length();
        if (text.startsWith(kw, pos) && (end == text.length() || !Character.isLetterOrDigit(text.charAt(end))
                && text.charAt(end) != '-')) {
            pos = end;
            return true;
        }
        return false;
    }

    private boolean consume(char c) {
        skipSpace();
        if (peek() == c) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(char c) {
        skipSpace();
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private WeftException error(String what) {
        return errorAt(pos, what);
    }

    private WeftException errorAt(int at, String what) {
        return WeftException.badRequest("predicate " + text.strip() + ": " + what + " at " + at);
    }
}
