package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A value a predicate compares: literal text, text with exchange attributes ({@code %u} the
 * user, {@code %U}/{@code %R} the path, {@code %m} the method, {@code %q} the query string,
 * {@code ${name}} a binding of {@code path-template} or {@code regex}), or one of RESTHeart's
 * {@link Variables} ({@code @user.array}). Parsed once when the rule loads; an operand with an
 * unresolved part resolves to empty, and no predicate is true of an empty operand.
 */
sealed interface Operand {
    Optional<JsonNode> value(RequestPredicate.Subject s);

    default Optional<String> text(RequestPredicate.Subject s) {
        return value(s).map(Variables::text);
    }

    record Variable(String name) implements Operand {
        public Optional<JsonNode> value(RequestPredicate.Subject s) {
            return Variables.resolve(name, s, Json.NODES.objectNode());
        }
    }

    /** Literal text and attributes, concatenated. */
    record Text(List<Part> parts) implements Operand {
        public Optional<JsonNode> value(RequestPredicate.Subject s) {
            StringBuilder out = new StringBuilder();
            for (Part part : parts) {
                Optional<String> t = part.resolve(s);
                if (t.isEmpty()) {
                    return Optional.empty();
                }
                out.append(t.get());
            }
            return Optional.of(Json.NODES.stringNode(out.toString()));
        }
    }

    /** {@code {a, b}}: only for {@code in}'s array. */
    record Array(List<Operand> elements) implements Operand {
        public Optional<JsonNode> value(RequestPredicate.Subject s) {
            var array = Json.NODES.arrayNode();
            for (Operand e : elements) {
                e.value(s).ifPresent(array::add);
            }
            return Optional.of(array);
        }
    }

    sealed interface Part {
        Optional<String> resolve(RequestPredicate.Subject s);
    }

    record Literal(String text) implements Part {
        public Optional<String> resolve(RequestPredicate.Subject s) {
            return Optional.of(text);
        }
    }

    record Binding(String name) implements Part {
        public Optional<String> resolve(RequestPredicate.Subject s) {
            return Optional.ofNullable(s.vars().get(name));
        }
    }

    record Attribute(char code) implements Part {
        public Optional<String> resolve(RequestPredicate.Subject s) {
            return switch (code) {
                case 'u' -> s.principal().name().isEmpty() ? Optional.empty() : Optional.of(s.principal().name());
                case 'U', 'R' -> Optional.of(s.request().path());
                case 'm' -> Optional.of(s.request().method());
                case 'q' -> Optional.of(s.request().queryString());
                default -> Optional.empty();
            };
        }
    }

    /** The operand written as {@code raw} (quotes removed); {@code where} names it in errors. */
    static Operand parse(String raw, String where) {
        if (Variables.looksLikeVariable(raw)) {
            Variables.check(raw, where);
            return new Variable(raw);
        }
        List<Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < raw.length()) {
            char c = raw.charAt(i);
            if (c == '$' && raw.startsWith("${", i)) {
                int end = raw.indexOf('}', i);
                if (end < 0) {
                    throw WeftException.badRequest(where + ": unterminated ${ in " + raw);
                }
                flush(literal, parts);
                parts.add(new Binding(raw.substring(i + 2, end)));
                i = end + 1;
            } else if (c == '%' && i + 1 < raw.length() && "uURmq%".indexOf(raw.charAt(i + 1)) >= 0) {
                if (raw.charAt(i + 1) == '%') {
                    literal.append('%');
                } else {
                    flush(literal, parts);
                    parts.add(new Attribute(raw.charAt(i + 1)));
                }
                i += 2;
            } else {
                literal.append(c);
                i++;
            }
        }
        flush(literal, parts);
        return new Text(List.copyOf(parts));
    }

    private static void flush(StringBuilder literal, List<Part> parts) {
        if (!literal.isEmpty()) {
            parts.add(new Literal(literal.toString()));
            literal.setLength(0);
        }
    }
}
