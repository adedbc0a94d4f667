package dev.weft.security.acl;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.weft.security.AccessRequest;
import dev.weft.security.Principal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The {@code predicate} of an access rule: the Undertow predicate language RESTHeart uses, with
 * RESTHeart's own predicates, compiled once when rules load ({@link PredicateParser}) and
 * evaluated on every request. The grammar and the list of predicates are in docs/security.md.
 *
 * <p>Paths are compared segment by segment on decoded segments, so {@code path-prefix('/db/coll')}
 * matches {@code /db/coll} and {@code /db/coll/x} but never {@code /db/collection}, and an
 * encoded slash cannot forge a segment boundary. Invariant: evaluation has no side effects beyond
 * the per-request binding map and never throws except to decline the memory path; a predicate
 * that cannot be parsed is refused at load time (400 naming the position), never guessed.
 */
sealed interface RequestPredicate {

    /**
     * What a predicate sees of a request. {@code vars} collects {@code path-template} and
     * {@code regex} bindings.
     */
    record Subject(Principal principal, AccessRequest request, long nowMillis, Map<String, String> vars) {
        Subject(Principal principal, AccessRequest request) {
            this(principal, request, System.currentTimeMillis(), new HashMap<>(4));
        }

        Subject(String method, List<String> segments, Principal principal) {
            this(principal, AccessRequest.of(method, segments));
        }

        String method() {
            return request.method();
        }

        List<String> segments() {
            return request.segments();
        }
    }

    boolean test(Subject s);

    static RequestPredicate parse(String text) {
        return new PredicateParser(text, PredicateParser.DEFAULT_MAX_REGEX).parseAll();
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

    /** {@code path-suffix}: the request's segments end with one of the suffixes. */
    record PathSuffix(List<List<String>> suffixes) implements RequestPredicate {
        public boolean test(Subject s) {
            List<String> seg = s.segments();
            for (List<String> suffix : suffixes) {
                if (seg.size() >= suffix.size() && seg.subList(seg.size() - suffix.size(), seg.size()).equals(suffix)) {
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

    /** {@code equals}: every operand resolves, to the same text. */
    record Equals(List<Operand> operands) implements RequestPredicate {
        public boolean test(Subject s) {
            Optional<String> first = operands.getFirst().text(s);
            if (first.isEmpty()) {
                return false;
            }
            for (Operand o : operands.subList(1, operands.size())) {
                if (!o.text(s).equals(first)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** {@code contains(value, search)}: the value resolves and contains one of the search texts. */
    record Contains(Operand value, List<String> search) implements RequestPredicate {
        public boolean test(Subject s) {
            Optional<String> v = value.text(s);
            return v.isPresent() && search.stream().anyMatch(v.get()::contains);
        }
    }

    /** {@code exists(value)}: the value resolves to a non-empty text. */
    record Exists(Operand value) implements RequestPredicate {
        public boolean test(Subject s) {
            return value.text(s).filter(t -> !t.isEmpty()).isPresent();
        }
    }

    /** {@code regex}: RE2 (linear time); groups bind {@code ${0}}, {@code ${1}}, ... */
    record Regex(Pattern pattern, Operand value, boolean fullMatch) implements RequestPredicate {
        public boolean test(Subject s) {
            Optional<String> v = value.text(s);
            if (v.isEmpty()) {
                return false;
            }
            Matcher m = pattern.matcher(v.get());
            if (!(fullMatch ? m.matches() : m.find())) {
                return false;
            }
            for (int g = 0; g <= m.groupCount(); g++) {
                if (m.group(g) != null) {
                    s.vars().put(Integer.toString(g), m.group(g));
                }
            }
            return true;
        }
    }

    /** {@code in(value, array)}: the value resolves and equals an element of the array (an unresolved array has none). */
    record In(Operand value, Operand array) implements RequestPredicate {
        public boolean test(Subject s) {
            Optional<String> v = value.text(s);
            Optional<JsonNode> a = array.value(s);
            if (v.isEmpty() || a.isEmpty() || !a.get().isArray()) {
                return false;
            }
            for (JsonNode element : a.get()) {
                if (!element.isNull() && Variables.text(element).equals(v.get())) {
                    return true;
                }
            }
            return false;
        }
    }

    /** RESTHeart's {@code qparams-contain}, {@code -blacklist}, {@code -whitelist}, {@code -size}. */
    record QParams(Kind kind, Set<String> names, int size) implements RequestPredicate {
        enum Kind { CONTAIN, BLACKLIST, WHITELIST, SIZE }

        public boolean test(Subject s) {
            Set<String> given = s.request().paramNames();
            return switch (kind) {
                case CONTAIN -> given.containsAll(names);
                case BLACKLIST -> given.stream().noneMatch(names::contains);
                case WHITELIST -> names.containsAll(given);
                case SIZE -> given.size() == size;
            };
        }
    }

    /**
     * RESTHeart's {@code bson-request-contains}, {@code -whitelist}, {@code -blacklist} on the JSON
     * body (an object, or every object of an array; keys dotted; an update's operators are looked
     * through). Without a JSON body none of them holds, as in RESTHeart.
     */
    record BodyKeys(Kind kind, Set<String> keys) implements RequestPredicate {
        enum Kind { CONTAINS, WHITELIST, BLACKLIST }

        public boolean test(Subject s) {
            Optional<JsonNode> body = s.request().jsonBody();
            if (body.isEmpty()) {
                return false;
            }
            return switch (kind) {
                case CONTAINS -> BodyPaths.containsAll(body.get(), keys);
                case WHITELIST -> BodyPaths.onlyWhitelisted(body.get(), keys);
                case BLACKLIST -> !BodyPaths.containsAny(body.get(), keys);
            };
        }
    }

    /** RESTHeart 9's {@code bson-request-prop-equals}, {@code -array-contains}, {@code -array-is-subset}. */
    record BodyValue(Kind kind, String key, List<Operand> values) implements RequestPredicate {
        enum Kind { PROP_EQUALS, ARRAY_CONTAINS, ARRAY_IS_SUBSET }

        public boolean test(Subject s) {
            Optional<JsonNode> found = s.request().jsonBody().filter(JsonNode::isObject)
                    .flatMap(b -> Variables.at(b, key));
            if (found.isEmpty()) {
                return false;
            }
            List<String> expected = values.stream().map(v -> v.text(s)).flatMap(Optional::stream).toList();
            if (expected.size() != values.size()) {
                return false;
            }
            if (kind == Kind.PROP_EQUALS) {
                return Variables.text(found.get()).equals(expected.getFirst());
            }
            if (!found.get().isArray()) {
                return false;
            }
            List<String> actual = new java.util.ArrayList<>();
            found.get().forEach(e -> actual.add(Variables.text(e)));
            return kind == Kind.ARRAY_CONTAINS ? actual.containsAll(expected) : expected.containsAll(actual);
        }
    }
}
