package dev.weft.security.acl;

import dev.weft.core.WeftException;
import dev.weft.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code predicate} of an access rule: a subset of the Undertow predicate language RESTHeart
 * uses, compiled once when rules load and evaluated on every request.
 *
 * <pre>
 * expr   := term ('or' term)*
 * term   := factor ('and' factor)*
 * factor := 'not' factor | '(' expr ')' | 'true' | 'false' | call
 * call   := path-prefix('/a/b', ...) | path('/a/b', ...) | path-template('/{db}/{coll}/{id}')
 *         | method(GET, POST, ...) | equals(operand, operand)
 * operand:= 'quoted text' | @user._id | %u | ${name} (a variable bound by path-template)
 * </pre>
 *
 * <p>Paths are compared segment by segment on decoded segments, so {@code path-prefix('/db/coll')}
 * matches {@code /db/coll} and {@code /db/coll/x} but never {@code /db/collection}, and an
 * encoded slash cannot forge a segment boundary. Invariant: evaluation has no side effects beyond
 * the per-request variable map and never throws; a predicate that cannot be parsed is refused at
 * load time ({@link WeftException} 400), never guessed.
 */
sealed interface RequestPredicate {

    /** What a predicate sees of a request. {@code vars} collects path-template bindings. */
    record Subject(String method, List<String> segments, Principal principal, Map<String, String> vars) {
        Subject(String method, List<String> segments, Principal principal) {
            this(method, segments, principal, new HashMap<>(4));
        }
    }

    boolean test(Subject s);

    static RequestPredicate parse(String text) {
        return new Parser(text).parseAll();
    }

    record Constant(boolean value) implements RequestPredicate {
        public boolean test(Subject s) {
            return value;
        }
    }

    record Not(RequestPredicate inner) implements RequestPredicate {
        public boolean test(Subject s) {
            return !inner.test(s);
        }
    }

    record And(List<RequestPredicate> all) implements RequestPredicate {
        public boolean test(Subject s) {
            for (RequestPredicate p : all) {
                if (!p.test(s)) {
                    return false;
                }
            }
            return true;
        }
    }

    record Or(List<RequestPredicate> any) implements RequestPredicate {
        public boolean test(Subject s) {
            for (RequestPredicate p : any) {
                if (p.test(s)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** {@code path-prefix}: the request's segments start with one of the prefixes. */
    record PathPrefix(List<List<String>> prefixes) implements RequestPredicate {
        public boolean test(Subject s) {
            for (List<String> prefix : prefixes) {
                if (s.segments().size() >= prefix.size() && s.segments().subList(0, prefix.size()).equals(prefix)) {
                    return true;
                }
            }
            return false;
        }
    }

    /** {@code path}: the request's segments are exactly one of the paths (a trailing slash aside). */
    record PathExact(List<List<String>> paths) implements RequestPredicate {
        public boolean test(Subject s) {
            return paths.contains(s.segments());
        }
    }

    /** {@code path-template}: as many segments as the template, literals equal, {@code {name}} binds. */
    record PathTemplate(List<String> template) implements RequestPredicate {
        public boolean test(Subject s) {
            if (s.segments().size() != template.size()) {
                return false;
            }
            Map<String, String> bound = new HashMap<>(4);
            for (int i = 0; i < template.size(); i++) {
                String t = template.get(i);
                String seg = s.segments().get(i);
                if (t.length() > 2 && t.startsWith("{") && t.endsWith("}")) {
                    bound.put(t.substring(1, t.length() - 1), seg);
                } else if (!t.equals(seg)) {
                    return false;
                }
            }
            s.vars().putAll(bound);
            return true;
        }
    }

    record Method(List<String> methods) implements RequestPredicate {
        public boolean test(Subject s) {
            return methods.contains(s.method());
        }
    }

    /** {@code equals(a, b)}: both operands resolve and are equal; an unbound {@code ${x}} is false. */
    record Equals(String left, String right) implements RequestPredicate {
        public boolean test(Subject s) {
            String l = resolve(left, s);
            String r = resolve(right, s);
            return l != null && l.equals(r);
        }

        private static String resolve(String operand, Subject s) {
            if (operand.equals("@user._id") || operand.equals("%u")) {
                return s.principal().name().isEmpty() ? null : s.principal().name();
            }
            if (operand.startsWith("${") && operand.endsWith("}")) {
                return s.vars().get(operand.substring(2, operand.length() - 1));
            }
            return operand;
        }
    }

    /** A recursive-descent parser over a hand-rolled tokenizer; errors name the position. */
    final class Parser {
        private final String text;
        private int pos;

        Parser(String text) {
            this.text = text;
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
            return terms.size() == 1 ? terms.getFirst() : new Or(List.copyOf(terms));
        }

        private RequestPredicate term() {
            List<RequestPredicate> factors = new ArrayList<>();
            factors.add(factor());
            while (keyword("and")) {
                factors.add(factor());
            }
            return factors.size() == 1 ? factors.getFirst() : new And(List.copyOf(factors));
        }

        private RequestPredicate factor() {
            skipSpace();
            if (keyword("not")) {
                return new Not(factor());
            }
            if (peek() == '(') {
                pos++;
                RequestPredicate inner = expr();
                expect(')');
                return inner;
            }
            String name = word();
            switch (name) {
                case "true":
                    return new Constant(true);
                case "false":
                    return new Constant(false);
                default:
                    break;
            }
            expect('(');
            List<String> args = new ArrayList<>();
            skipSpace();
            if (peek() != ')') {
                args.add(argument());
                skipSpace();
                while (peek() == ',') {
                    pos++;
                    args.add(argument());
                    skipSpace();
                }
            }
            expect(')');
            return call(name, args);
        }

        private RequestPredicate call(String name, List<String> args) {
            if (args.isEmpty()) {
                throw error(name + "() needs an argument");
            }
            return switch (name) {
                case "path-prefix" -> new PathPrefix(args.stream().map(Parser::segments).toList());
                case "path" -> new PathExact(args.stream().map(Parser::segments).toList());
                case "path-template" -> {
                    if (args.size() != 1) {
                        throw error("path-template takes one template");
                    }
                    yield new PathTemplate(segments(args.getFirst()));
                }
                case "method" -> new Method(args.stream().map(a -> a.toUpperCase(Locale.ROOT)).toList());
                case "equals" -> {
                    if (args.size() != 2) {
                        throw error("equals takes two operands");
                    }
                    yield new Equals(args.get(0), args.get(1));
                }
                default -> throw error("unknown predicate " + name
                        + " (path-prefix, path, path-template, method, equals, and, or, not)");
            };
        }

        private static List<String> segments(String path) {
            if (!path.startsWith("/")) {
                throw WeftException.badRequest("predicate path must start with '/': " + path);
            }
            List<String> parts = new ArrayList<>();
            for (String p : path.split("/")) {
                if (!p.isEmpty()) {
                    parts.add(p);
                }
            }
            return List.copyOf(parts);
        }

        private String argument() {
            skipSpace();
            char c = peek();
            if (c == '\'' || c == '"') {
                int end = text.indexOf(c, pos + 1);
                if (end < 0) {
                    throw error("unterminated string");
                }
                String value = text.substring(pos + 1, end);
                pos = end + 1;
                return value;
            }
            int start = pos;
            while (pos < text.length() && ",() \t\r\n".indexOf(text.charAt(pos)) < 0) {
                pos++;
            }
            if (start == pos) {
                throw error("expected an argument");
            }
            return text.substring(start, pos);
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
            return WeftException.badRequest("predicate " + text + ": " + what + " at " + pos);
        }
    }
}
