package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.TextSearch;
import dev.weft.query.RestheartEscapes;
import dev.weft.query.Variables;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's stored aggregations: a collection's {@code aggrs} property, an array of
 * {@code {"uri", "type": "pipeline", "stages": [...]}} whose stages may escape {@code $} as
 * {@code _$} and {@code .} as {@code ::}, and use the client's {@code avars}:
 * {@code {"$var": "name"}} (a dotted name reads inside an object), {@code {"$var": ["name",
 * default]}}, and the stage {@code {"$ifvar": ["name", stage]}} (or {@code ["name", stage,
 * elseStage]}), kept only when the variable is given. A client's value stays a value: it may not
 * hold an operator key ({@link Variables#checkValue}), in a {@code $match} under a field name it
 * is bound as {@code {"$eq": value}}, and whatever it names is checked with the rest of the
 * pipeline against the caller's access.
 */
public final class Definitions {
    private static final String VAR = "$var";
    private static final String IFVAR = "$ifvar";
    private static final Set<String> PIPELINE_TYPES = Set.of("pipeline", "aggregation", "aggregate", "aggregation-pipeline",
            "aggregation pipeline", "aggregationPipeline", "ap", "AGGREGATION_PIPELINE");
    /** The variables Weft gives every stored pipeline; a pipeline using one pages its results itself. */
    public static final Set<String> PAGING = Set.of("@page", "@pagesize", "@skip", "@limit");

    private Definitions() {}

    /** The stages of the aggregation {@code uri} of a collection with {@code properties}; 404 when there is none. */
    public static JsonNode stages(JsonNode properties, String uri) {
        for (ObjectNode def : definitions(properties)) {
            if (def.path("uri").isString() && def.get("uri").stringValue().equals(uri)) {
                return RestheartEscapes.undo(def.get("stages"));
            }
        }
        throw WeftException.notFound("no aggregation named " + uri);
    }

    /** Checks a collection's {@code aggrs} on PUT: 400 for a malformed definition or a pipeline that does not compile. */
    public static void validate(ObjectNode properties, QueryLimits limits) {
        Set<String> uris = new HashSet<>();
        for (ObjectNode def : definitions(properties)) {
            JsonNode uri = def.get("uri");
            if (uri == null || !uri.isString() || uri.stringValue().isEmpty() || uri.stringValue().contains("/")) {
                throw WeftException.badRequest("an aggregation's uri must be a non-empty name without '/'");
            }
            if (!uris.add(uri.stringValue())) {
                throw WeftException.badRequest("two aggregations are named " + uri.stringValue());
            }
            JsonNode type = def.get("type");
            if (type != null && !(type.isString() && PIPELINE_TYPES.contains(type.stringValue()))) {
                throw WeftException.badRequest("aggregation " + uri.stringValue() + ": type must be \"pipeline\""
                        + " (map-reduce is not supported)");
            }
            JsonNode stages = def.get("stages");
            if (stages == null || !stages.isArray()) {
                throw WeftException.badRequest("aggregation " + uri.stringValue() + " needs stages, an array");
            }
            check(RestheartEscapes.undo(stages), uri.stringValue(), limits);
        }
    }

    /**
     * Compiles each stage with its variables at their defaults: a stage whose variables have
     * none can only be checked for its name (the client's value completes it).
     */
    /** A {@code $match} whose filter has {@code $text} at its top level (where a filter may have it). */
    private static boolean isTextMatch(JsonNode stage) {
        JsonNode filter = stage.path("$match");
        return filter.has("$text") || filter.path("$and").valueStream().anyMatch(f -> f.has("$text"));
    }

    private static void check(JsonNode stages, String uri, QueryLimits limits) {
        boolean first = true;
        for (JsonNode stage : stages) {
            boolean later = !first;
            first = false;
            if (later && isTextMatch(stage)) {
                throw WeftException.badRequest("aggregation " + uri + ": " + TextSearch.NOT_FIRST_STAGE);
            }
            JsonNode s = stage;
            if (s.isObject() && s.size() == 1 && s.has(IFVAR)) {
                JsonNode args = s.get(IFVAR);
                if (!args.isArray() || args.size() < 2 || args.size() > 3 || !args.get(0).isString()) {
                    throw WeftException.badRequest("aggregation " + uri + ": $ifvar takes [name, stage] or [name, stage, else]");
                }
                s = args.get(1);
            }
            try {
                boolean match = s.isObject() && s.size() == 1 && s.has("$match");
                Pipeline.parseStoredStage(Json.NODES.arrayNode().add(bind(s, Json.NODES.objectNode(), uri, false, match, true)),
                        limits);
            } catch (UnboundWithoutDefault e) {
                if (!s.isObject() || s.size() != 1) {
                    throw WeftException.badRequest("aggregation " + uri + ": a stage must be an object with one field");
                }
                knownStage(s.propertyNames().iterator().next(), uri);
            } catch (WeftException e) {
                if (e.getMessage().startsWith("unknown pipeline stage") || !containsVar(s)) {
                    throw WeftException.badRequest("aggregation " + uri + ": " + e.getMessage());
                }
            }
        }
    }

    /** {@code stages} with {@code avars} bound and {@code $ifvar} stages kept or dropped; 400 for a missing variable. */
    public static JsonNode bind(JsonNode stages, ObjectNode avars, String uri) {
        if (!stages.isArray()) {
            throw WeftException.badRequest("aggregation " + uri + ": stages must be an array");
        }
        avars.properties().forEach(e -> Variables.checkValue(e.getValue(), e.getKey()));
        ArrayNode out = Json.NODES.arrayNode();
        for (JsonNode stage : stages) {
            JsonNode s = stage;
            if (s.isObject() && s.size() == 1 && s.has(IFVAR)) {
                JsonNode args = s.get(IFVAR);
                if (!args.isArray() || args.size() < 2 || !args.get(0).isString()) {
                    throw WeftException.badRequest("aggregation " + uri + ": $ifvar takes [name, stage] or [name, stage, else]");
                }
                if (lookup(avars, args.get(0).stringValue()) != null) {
                    s = args.get(1);
                } else if (args.size() == 3) {
                    s = args.get(2);
                } else {
                    continue;
                }
            }
            boolean match = s.isObject() && s.size() == 1 && s.has("$match");
            out.add(bind(s, avars, uri, false, match, false));
        }
        return out;
    }

    /** Whether {@code stages} use a paging variable, so their results are not paged again. */
    public static boolean pagesItself(JsonNode stages) {
        if (isVar(stages)) {
            JsonNode v = stages.get(VAR);
            String name = v.isArray() && !v.isEmpty() ? v.get(0).asString() : v.asString();
            return PAGING.contains(name);
        }
        for (JsonNode child : stages) {
            if (pagesItself(child)) {
                return true;
            }
        }
        return false;
    }

    private static final class UnboundWithoutDefault extends RuntimeException {
        UnboundWithoutDefault() {
            super(null, null, false, false);
        }
    }

    private static JsonNode bind(JsonNode node, ObjectNode avars, String uri, boolean underField, boolean filter,
                                 boolean validating) {
        if (isVar(node)) {
            JsonNode var = node.get(VAR);
            String name = var.isString() ? var.stringValue()
                    : var.isArray() && var.size() == 2 && var.get(0).isString() ? var.get(0).stringValue() : null;
            if (name == null) {
                throw WeftException.badRequest("aggregation " + uri + ": $var needs a name or [name, default]");
            }
            JsonNode value = lookup(avars, name);
            if (value == null) {
                if (var.isArray()) {
                    return var.get(1);
                }
                if (validating) {
                    throw new UnboundWithoutDefault();
                }
                throw WeftException.badRequest("aggregation " + uri + " needs the variable " + name + " in avars");
            }
            if (filter && underField) {
                ObjectNode literal = Json.NODES.objectNode();
                literal.set("$eq", value);
                return literal;
            }
            return value;
        }
        if (node.isObject()) {
            ObjectNode copy = Json.NODES.objectNode();
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                boolean expr = e.getKey().equals("$expr");
                copy.set(e.getKey(), bind(e.getValue(), avars, uri, !e.getKey().startsWith("$"), filter && !expr, validating));
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = Json.NODES.arrayNode();
            node.forEach(e -> copy.add(bind(e, avars, uri, false, filter, validating)));
            return copy;
        }
        return node;
    }

    private static JsonNode lookup(ObjectNode avars, String name) {
        JsonNode whole = avars.get(name);
        if (whole != null) {
            return whole;
        }
        JsonNode at = avars;
        for (String part : name.split("\\.")) {
            at = at == null || !at.isObject() ? null : at.get(part);
        }
        return at;
    }

    private static boolean isVar(JsonNode node) {
        return node.isObject() && node.size() == 1 && node.has(VAR);
    }

    private static boolean containsVar(JsonNode node) {
        if (isVar(node)) {
            return true;
        }
        for (JsonNode child : node) {
            if (containsVar(child)) {
                return true;
            }
        }
        return false;
    }

    private static List<ObjectNode> definitions(JsonNode properties) {
        JsonNode aggrs = properties.get("aggrs");
        if (aggrs == null || aggrs.isNull()) {
            return List.of();
        }
        if (!aggrs.isArray()) {
            throw WeftException.badRequest("aggrs must be an array of aggregation definitions");
        }
        for (JsonNode def : aggrs) {
            if (!def.isObject()) {
                throw WeftException.badRequest("each entry of aggrs must be an object {uri, type, stages}");
            }
        }
        return aggrs.valueStream().map(d -> (ObjectNode) d).toList();
    }

    private static void knownStage(String name, String uri) {
        if (!StageParser.STAGES.contains(name)) {
            throw WeftException.badRequest("aggregation " + uri + ": unknown pipeline stage " + name);
        }
    }
}
