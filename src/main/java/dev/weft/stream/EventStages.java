package dev.weft.stream;

import dev.weft.aggregate.Pipeline;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The stages of a stream after its leading {@code $match} ones ({@code $match}, {@code $project},
 * {@code $addFields}, {@code $set}, {@code $unset}), compiled by the aggregation engine and run
 * on each event a subscriber receives, after its access rule's projection: a stage only ever sees
 * what the subscriber may read. The event's {@code _id} is its resume token: a stage that would
 * change or remove it is 400, as MongoDB refuses to resume such a stream.
 */
public final class EventStages {
    private static final Set<String> ALLOWED = Set.of("$match", "$project", "$addFields", "$set", "$unset");

    private final Pipeline pipeline;

    private EventStages(Pipeline pipeline) {
        this.pipeline = pipeline;
    }

    /**
     * {@code stages} (possibly empty) compiled, after {@code bind} (variables); 400 naming a stage
     * other than the allowed ones, or one that touches {@code _id}.
     */
    static Optional<EventStages> of(ArrayNode stages, String where, QueryLimits limits, UnaryOperator<JsonNode> bind) {
        if (stages.isEmpty()) {
            return Optional.empty();
        }
        for (JsonNode stage : stages) {
            String name = stage.propertyNames().iterator().next();
            if (!ALLOWED.contains(name)) {
                throw WeftException.badRequest(where + ": stage " + name
                        + " is not supported on a change stream (only $match, $project, $addFields, $set and $unset)");
            }
            checkKeepsToken(name, stage.get(name), where);
        }
        return Optional.of(new EventStages(Pipeline.parse(bind.apply(stages), limits)));
    }

    private static void checkKeepsToken(String name, JsonNode arg, String where) {
        boolean touches = switch (name) {
            case "$unset" -> arg.isString() ? isToken(arg.stringValue())
                    : arg.isArray() && arg.valueStream().anyMatch(p -> p.isString() && isToken(p.stringValue()));
            case "$addFields", "$set" -> arg.isObject() && arg.propertyNames().stream().anyMatch(EventStages::isToken);
            case "$project" -> arg.isObject() && arg.propertyNames().stream().filter(EventStages::isToken)
                    .anyMatch(f -> !isTrue(arg.get(f)));
            default -> false;
        };
        if (touches) {
            throw WeftException.badRequest(where + ": " + name + " may not change or remove the event's _id,"
                    + " the resume token");
        }
    }

    private static boolean isToken(String path) {
        return path.equals("_id") || path.startsWith("_id.");
    }

    private static boolean isTrue(JsonNode v) {
        return v.isBoolean() ? v.booleanValue() : v.isNumber() && v.doubleValue() != 0;
    }

    /** The event paths the stages read (before any {@code $project} reshapes the event), for the access checks. */
    Set<String> readPaths() {
        return pipeline.readPaths();
    }

    /** {@code event} through the stages: the shaped event, or empty when a {@code $match} leaves it out. */
    Optional<ObjectNode> apply(ObjectNode event, long nowMs) {
        JsonNode token = event.get("_id");
        ObjectNode out = pipeline.update(event, Json.NODES.objectNode().put("$date", nowMs));
        if (out.isEmpty()) {
            return Optional.empty();
        }
        if (!token.equals(out.get("_id"))) {
            throw WeftException.badRequest("a stage changed or removed the event's _id, the resume token");
        }
        return Optional.of(out);
    }
}
