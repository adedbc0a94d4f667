package dev.weft.query;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's variables in trusted definitions (a named stream's {@code $match}, the aggregations
 * to come): {@code {"$var": "x"}}, or {@code {"$var": ["x", default]}}, replaced by the client's
 * {@code avars.x}. The definition is the administrator's; the value is the client's, and it stays
 * a value: it can never add an operator to the definition (RESTHeart GHSA-wwfj-6qr7-h9hq).
 *
 * <ul>
 *   <li>a value holding an object with a key that starts with {@code $}, at any depth, is 400;
 *   <li>a value bound under a field name (where a filter takes either a value or operators) is
 *       bound as {@code {"$eq": value}}, so that whatever it is, strings that start with
 *       {@code $} included, it matches only itself.
 * </ul>
 * A default written in the definition is trusted like the definition and bound as it is.
 */
public final class Variables {
    private static final String VAR = "$var";

    private Variables() {}

    /**
     * {@code filter} with every variable bound from {@code avars}; 400 for a malformed
     * {@code $var}, a missing variable without a default, or a value carrying an operator.
     * {@code what} names the definition in error messages.
     */
    public static JsonNode bindInFilter(JsonNode filter, ObjectNode avars, String what) {
        return bind(filter, avars, what, false);
    }

    /** {@code definition} with every variable replaced by null: to check that a definition compiles. */
    public static JsonNode unbound(JsonNode definition) {
        if (isVar(definition)) {
            return Json.NODES.nullNode();
        }
        if (definition.isObject()) {
            ObjectNode copy = Json.NODES.objectNode();
            definition.properties().forEach(e -> copy.set(e.getKey(), unbound(e.getValue())));
            return copy;
        }
        if (definition.isArray()) {
            ArrayNode copy = Json.NODES.arrayNode();
            definition.forEach(e -> copy.add(unbound(e)));
            return copy;
        }
        return definition;
    }

    /** 400 when {@code value}, the client's value of variable {@code name}, holds an operator key at any depth. */
    public static void checkValue(JsonNode value, String name) {
        if (value.isObject()) {
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                if (e.getKey().startsWith("$")) {
                    throw WeftException.badRequest("avars." + name + " may not hold an operator (" + e.getKey()
                            + "): a variable is bound as a value");
                }
                checkValue(e.getValue(), name);
            }
        } else if (value.isArray()) {
            value.forEach(v -> checkValue(v, name));
        }
    }

    /** {@code underField}: {@code node} is the value of a field name, not of an operator or an array element. */
    private static JsonNode bind(JsonNode node, ObjectNode avars, String what, boolean underField) {
        if (isVar(node)) {
            return value(node.get(VAR), avars, what, underField);
        }
        if (node.isObject()) {
            ObjectNode copy = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                copy.set(e.getKey(), bind(e.getValue(), avars, what, !e.getKey().startsWith("$")));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = Json.NODES.arrayNode();
            node.forEach(e -> copy.add(bind(e, avars, what, false)));
            return copy;
        }
        return node;
    }

    private static boolean isVar(JsonNode node) {
        return node.isObject() && node.size() == 1 && node.has(VAR);
    }

    private static JsonNode value(JsonNode var, ObjectNode avars, String what, boolean underField) {
        String name = var.isString() ? var.stringValue()
                : var.isArray() && var.size() == 2 && var.get(0).isString() ? var.get(0).stringValue() : null;
        if (name == null) {
            throw WeftException.badRequest(what + ": $var needs a name or [name, default]");
        }
        JsonNode value = avars.get(name);
        if (value == null) {
            if (var.isArray()) {
                return var.get(1);
            }
            throw WeftException.badRequest(what + " needs the variable " + name + " in avars");
        }
        checkValue(value, name);
        if (!underField) {
            return value;
        }
        ObjectNode literal = Json.NODES.objectNode();
        literal.set("$eq", value);
        return literal;
    }
}
