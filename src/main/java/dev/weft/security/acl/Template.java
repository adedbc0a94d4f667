package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.security.Principal;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON value of a rule ({@code readFilter}, {@code writeFilter}, {@code mergeRequest}) whose
 * string leaves may be variables, substituted per request: {@code "@user._id"} (the user name),
 * {@code "@user.roles"} (an array of role names), {@code "@now"} ({@code {"$date": millis}}).
 * Only a whole string value is a variable; other {@code @user.*} names are refused when the rule
 * loads, so a typo cannot silently widen a filter.
 *
 * <p>A template without variables is {@link #constant()}: callers compile it once. For anonymous
 * requests {@code @user._id} is the empty string (rules for {@code $unauthenticated} should not
 * use it).
 */
final class Template {
    static final String USER_ID = "@user._id";
    static final String USER_ROLES = "@user.roles";
    static final String NOW = "@now";

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

    /** The template with its variables replaced (the template itself when constant: do not mutate). */
    JsonNode resolve(Principal principal, long nowMillis) {
        return constant ? template : substitute(template, principal, nowMillis);
    }

    private static boolean hasVariables(JsonNode node, String field) {
        if (node.isString()) {
            String s = node.asString();
            if (s.equals(USER_ID) || s.equals(USER_ROLES) || s.equals(NOW)) {
                return true;
            }
            if (s.startsWith("@user.") || s.startsWith("@now")) {
                throw WeftException.badRequest(field + ": unknown variable " + s + " (" + USER_ID + ", " + USER_ROLES
                        + ", " + NOW + ")");
            }
            return false;
        }
        boolean any = false;
        for (JsonNode child : node) {
            any |= hasVariables(child, field);
        }
        return any;
    }

    private static JsonNode substitute(JsonNode node, Principal principal, long nowMillis) {
        if (node.isString()) {
            return switch (node.asString()) {
                case USER_ID -> Json.NODES.stringNode(principal.name());
                case USER_ROLES -> {
                    ArrayNode roles = Json.NODES.arrayNode();
                    principal.roles().stream().sorted().forEach(roles::add);
                    yield roles;
                }
                case NOW -> Json.NODES.objectNode().put("$date", nowMillis);
                default -> node;
            };
        }
        if (node.isObject()) {
            ObjectNode copy = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                copy.set(e.getKey(), substitute(e.getValue(), principal, nowMillis));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = Json.NODES.arrayNode();
            node.forEach(child -> copy.add(substitute(child, principal, nowMillis)));
            return copy;
        }
        return node;
    }
}
