package dev.weft.security.acl;

import dev.weft.core.Json;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON value of a rule ({@code readFilter}, {@code writeFilter}, {@code mergeRequest}) whose
 * string leaves may be RESTHeart's {@link Variables}, substituted per request. Only a whole
 * string value is a variable; a malformed or unknown one is refused when the rule loads, so a
 * typo cannot silently widen a filter.
 *
 * <p>A template without variables is {@link #constant()}: callers compile it once. When any
 * variable is unresolved for a request, {@link #resolve} is empty and the caller makes the
 * filter match nothing (and a {@code mergeRequest} forbid the write).
 */
final class Template {
    private final JsonNode template;
    private final boolean constant;

    private Template(JsonNode template, boolean constant) {
        this.template = template;
        this.constant = constant;
    }

    static Template of(JsonNode json, String field) {
        return new Template(json, !hasVariables(json, field));
    }

    boolean constant() {
        return constant;
    }

    /**
     * The template with its variables replaced (the template itself when constant: do not
     * mutate), or empty when one of them has no value for this request.
     */
    Optional<JsonNode> resolve(RequestPredicate.Subject s, JsonNode rule) {
        return constant ? Optional.of(template) : Optional.ofNullable(substitute(template, s, rule));
    }

    private static boolean hasVariables(JsonNode node, String field) {
        if (node.isString()) {
            if (Variables.looksLikeVariable(node.asString())) {
                Variables.check(node.asString(), field);
                return true;
            }
            return false;
        }
        boolean any = false;
        for (JsonNode child : node) {
            any |= hasVariables(child, field);
        }
        return any;
    }

    /** Null when a variable is unresolved. */
    private static JsonNode substitute(JsonNode node, RequestPredicate.Subject s, JsonNode rule) {
        if (node.isString()) {
            return Variables.looksLikeVariable(node.asString())
                    ? Variables.resolve(node.asString(), s, rule).orElse(null) : node;
        }
        if (node.isObject()) {
            ObjectNode copy = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                JsonNode value = substitute(e.getValue(), s, rule);
                if (value == null) {
                    return null;
                }
                copy.set(e.getKey(), value);
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = Json.NODES.arrayNode();
            for (JsonNode child : node) {
                JsonNode value = substitute(child, s, rule);
                if (value == null) {
                    return null;
                }
                copy.add(value);
            }
            return copy;
        }
        return node;
    }
}
