package dev.weft.stream;

import dev.weft.aggregate.Definitions;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import dev.weft.query.QueryLimits;
import dev.weft.query.RestheartEscapes;
import dev.weft.query.Variables;
import dev.weft.store.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What one subscriber asked for: a collection, a filter, whether to be told when documents leave
 * it, where to resume, and the access rule of the subscriber (a read filter the document must
 * pass and a projection applied to it before sending).
 *
 * <p>Two kinds of filter. A named stream (RESTHeart's {@code streams} in collection metadata)
 * has {@code $match} stages over the change event ({@code operationType}, {@code fullDocument.*},
 * {@code updateDescription.*}, {@code documentKey}); an ad-hoc stream has a filter over the
 * document itself, as a GET of the collection has ({@code onDocument}).
 *
 * @param index the equality predicate the hub indexes this subscriber by, if the filter has one
 */
public record StreamQuery(Namespace ns, Filter filter, boolean onDocument, boolean leaves,
                          Optional<Filter> readFilter, Optional<Projection> projection, OptionalLong resumeAfter,
                          Optional<Equality> index, Optional<EventStages> stages) {

    /** The filter requires {@code path} (in the document) to equal a scalar; {@code key} as {@link Keys} encodes it. */
    public record Equality(String path, String key) {}

    /**
     * The named stream {@code name} of a collection whose metadata is {@code properties}, with
     * {@code avars} (a JSON object, may be empty) bound to its {@code {"$var": "x"}} as values
     * ({@link Variables}). 404 for an unknown stream, 400 for a bad definition, a missing variable
     * or a variable holding an operator.
     */
    public static StreamQuery named(Namespace ns, ObjectNode properties, String name, Optional<JsonNode> avars,
                                    QueryLimits limits) {
        ObjectNode stream = definitions(properties).stream()
                .filter(s -> s.path("uri").isString() && s.get("uri").stringValue().equals(name))
                .findFirst()
                .orElseThrow(() -> WeftException.notFound("collection " + ns + " has no stream named " + name));
        if (avars.isPresent() && !avars.get().isObject()) {
            throw WeftException.badRequest("avars must be a JSON object");
        }
        ObjectNode bound = avars.map(v -> (ObjectNode) v).orElse(Json.NODES.objectNode());
        JsonNode spec = Variables.bindInFilter(match(stream, name), bound, "stream " + name);
        Optional<EventStages> shaping = EventStages.of(shapingStages(stream), "stream " + name, limits,
                stages -> Definitions.bind(stages, bound, name));
        return of(ns, spec, false, limits).withStages(shaping);
    }

    /** An ad-hoc stream over the documents matching every one of {@code filters} (ANDed). */
    public static StreamQuery adhoc(Namespace ns, List<JsonNode> filters, QueryLimits limits) {
        JsonNode spec;
        if (filters.isEmpty()) {
            spec = Json.NODES.objectNode();
        } else if (filters.size() == 1) {
            spec = filters.getFirst();
        } else {
            ObjectNode and = Json.NODES.objectNode();
            filters.forEach(and.putArray("$and")::add);
            spec = and;
        }
        return of(ns, spec, true, limits);
    }

    /**
     * Checks the {@code streams} of collection metadata being written: an array of
     * {@code {uri, stages}} with unique names and {@code $match} stages whose filters compile
     * (with every {@code $var} taken as null). 400 naming the problem otherwise.
     */
    public static void validateDefinitions(ObjectNode properties, QueryLimits limits) {
        List<String> seen = new ArrayList<>();
        for (ObjectNode stream : definitions(properties)) {
            JsonNode uri = stream.get("uri");
            if (uri == null) {
                check(stream, "without a uri", limits); // stored as RESTHeart does, and checked, but no URL reaches it
                continue;
            }
            if (!uri.isString() || uri.stringValue().isEmpty() || uri.stringValue().contains("/")) {
                throw WeftException.badRequest("a stream's uri must be a non-empty name without '/'");
            }
            String name = uri.stringValue();
            if (seen.contains(name)) {
                throw WeftException.badRequest("two streams are named " + name);
            }
            seen.add(name);
            check(stream, name, limits);
        }
    }

    /** The stream's stages compile, with every {@code $var} taken as null. */
    private static void check(ObjectNode stream, String name, QueryLimits limits) {
        if (Filter.parse(Variables.unbound(match(stream, name)), limits).textSearch().isPresent()) {
            throw WeftException.badRequest("$text is not allowed in a change stream's filter (MongoDB's neither)");
        }
        EventStages.of(shapingStages(stream), "stream " + name, limits, Variables::unbound);
    }

    private static StreamQuery of(Namespace ns, JsonNode spec, boolean onDocument, QueryLimits limits) {
        if (!spec.isObject()) {
            throw WeftException.badRequest("a stream filter must be a JSON object");
        }
        Filter filter = Filter.parse(spec, limits);
        if (filter.textSearch().isPresent()) {
            throw WeftException.badRequest("$text is not allowed in a change stream's filter (MongoDB's neither)");
        }
        return new StreamQuery(ns, filter, onDocument, false, Optional.empty(), Optional.empty(), OptionalLong.empty(),
                equality((ObjectNode) spec, onDocument), Optional.empty());
    }

    public StreamQuery withLeaves(boolean leaves) {
        return new StreamQuery(ns, filter, onDocument, leaves, readFilter, projection, resumeAfter, index, stages);
    }

    /**
     * An ad-hoc stream's {@code stages} parameter: stages over the change event, run on each event
     * its document filter lets through (400 for anything but an array of allowed stages).
     */
    public StreamQuery withStageParam(JsonNode stages, QueryLimits limits) {
        ObjectNode holder = Json.NODES.objectNode();
        holder.set("stages", stages);
        stages(holder, "parameter");
        return withStages(EventStages.of((ArrayNode) stages, "stages", limits, s -> s));
    }

    /** {@code stages} run on each event the filter and the access rule let through, after the projection. */
    public StreamQuery withStages(Optional<EventStages> stages) {
        return new StreamQuery(ns, filter, onDocument, leaves, readFilter, projection, resumeAfter, index, stages);
    }

    /** The subscriber's access rule: events whose document fails {@code readFilter} are not sent. */
    public StreamQuery withAccess(Optional<Filter> readFilter, Optional<Projection> projection) {
        return new StreamQuery(ns, filter, onDocument, leaves, readFilter, projection, resumeAfter, index, stages);
    }

    /**
     * The document paths this query's filter reads, keyed by the path as written: an ad-hoc
     * filter's paths as they are; a named stream's {@code fullDocument.x} and
     * {@code updateDescription.updatedFields.x} as {@code x}, {@code documentKey} as {@code _id},
     * and the whole of {@code fullDocument} or {@code updateDescription} (whose field names tell
     * what changed) as the empty path, the whole document. Event fields that say nothing of the
     * document ({@code operationType}, {@code ns}, ...) are left out. Used to refuse filters
     * that would probe fields the subscriber's projection hides.
     */
    public Map<String, String> documentPaths() {
        Map<String, String> paths = new TreeMap<>();
        for (String path : filter.paths()) {
            if (onDocument) {
                paths.put(path, path);
            } else {
                eventToDocumentPath(path).ifPresent(p -> paths.put(path, p));
            }
        }
        for (String path : stages.map(EventStages::readPaths).orElse(java.util.Set.of())) {
            eventToDocumentPath(path).ifPresent(p -> paths.put(path, p));
        }
        return paths;
    }

    private static Optional<String> eventToDocumentPath(String path) {
        String updated = "updateDescription.updatedFields.";
        if (path.startsWith(updated)) {
            return Optional.of(path.substring(updated.length()));
        }
        if (path.startsWith("fullDocument.")) {
            return Optional.of(path.substring("fullDocument.".length()));
        }
        if (path.equals("fullDocument") || path.equals("updateDescription") || path.startsWith("updateDescription.")) {
            return Optional.of("");
        }
        if (path.equals("documentKey") || path.startsWith("documentKey.")) {
            return Optional.of("_id");
        }
        return Optional.empty();
    }

    /** Resume after the event whose token is {@code token} (400 when malformed). */
    public StreamQuery resumingAfter(String token, Json json) {
        return new StreamQuery(ns, filter, onDocument, leaves, readFilter, projection,
                OptionalLong.of(Tokens.decode(token, json)), index, stages);
    }

    private static List<ObjectNode> definitions(ObjectNode properties) {
        JsonNode streams = properties.get("streams");
        if (streams == null || streams.isNull()) {
            return List.of();
        }
        if (!streams.isArray()) {
            throw WeftException.badRequest("streams must be an array of {uri, stages}");
        }
        List<ObjectNode> out = new ArrayList<>();
        for (JsonNode s : streams) {
            if (!s.isObject()) {
                throw WeftException.badRequest("streams must be an array of {uri, stages}, found " + s);
            }
            out.add((ObjectNode) s);
        }
        return out;
    }

    private static ArrayNode stages(ObjectNode stream, String name) {
        JsonNode stages = stream.has("stages") ? RestheartEscapes.undo(stream.get("stages")) : null;
        if (stages == null || !stages.isArray()) {
            throw WeftException.badRequest("stream " + name + ": stages must be an array");
        }
        for (JsonNode stage : stages) {
            if (!stage.isObject() || stage.size() != 1) {
                throw WeftException.badRequest("stream " + name + ": each stage must be an object with one operator");
            }
        }
        return (ArrayNode) stages;
    }

    private static boolean isMatch(JsonNode stage) {
        return stage.has("$match");
    }

    /** The stages after the leading {@code $match} ones: they run on each event, per subscriber. */
    private static ArrayNode shapingStages(ObjectNode stream) {
        ArrayNode all = stages(stream, stream.path("uri").asString("without a uri"));
        ArrayNode rest = Json.NODES.arrayNode();
        boolean leading = true;
        for (JsonNode stage : all) {
            leading &= isMatch(stage);
            if (!leading) {
                rest.add(stage);
            }
        }
        return rest;
    }

    /** The stream's leading {@code $match} stages as one filter ({@code $and} of several): subscribers are indexed by it. */
    private static JsonNode match(ObjectNode stream, String name) {
        List<JsonNode> matches = new ArrayList<>();
        for (JsonNode stage : stages(stream, name)) {
            String op = stage.propertyNames().iterator().next();
            if (!op.equals("$match")) {
                break;
            }
            if (!stage.get(op).isObject()) {
                throw WeftException.badRequest("stream " + name + ": $match needs an object");
            }
            matches.add(stage.get(op));
        }
        if (matches.isEmpty()) {
            return Json.NODES.objectNode();
        }
        if (matches.size() == 1) {
            return matches.getFirst();
        }
        ObjectNode and = Json.NODES.objectNode();
        matches.forEach(and.putArray("$and")::add);
        return and;
    }

    /**
     * An equality the filter requires at its top level (or in a top-level {@code $and}), on a
     * document path with a string, number or boolean value: subscribers are indexed by it, so an
     * event only meets the subscribers whose value it carries.
     */
    private static Optional<Equality> equality(ObjectNode spec, boolean onDocument) {
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            String field = e.getKey();
            if (field.equals("$and") && e.getValue().isArray()) {
                for (JsonNode branch : e.getValue()) {
                    if (branch.isObject()) {
                        Optional<Equality> inner = equality((ObjectNode) branch, onDocument);
                        if (inner.isPresent()) {
                            return inner;
                        }
                    }
                }
                continue;
            }
            String path;
            if (onDocument) {
                path = field;
            } else if (field.startsWith("fullDocument.")) {
                path = field.substring("fullDocument.".length());
            } else {
                continue;
            }
            if (path.startsWith("$") || path.isEmpty()) {
                continue;
            }
            JsonNode value = e.getValue();
            if (value.isObject() && value.size() == 1 && value.has("$eq")) {
                value = value.get("$eq");
            }
            Optional<String> key = Keys.of(value);
            if (key.isPresent()) {
                return Optional.of(new Equality(path, key.get()));
            }
        }
        return Optional.empty();
    }
}
