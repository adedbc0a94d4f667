package dev.weft.stream;

import dev.weft.core.Json;
import dev.weft.query.Projection;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.ChangeEvent;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One change event as the matcher sees it, with everything derived from it computed at most once
 * however many subscribers look: the parsed documents before and after, the event document
 * {@code $match} stages run on, and the rendered frames. Used by the dispatcher thread only (or
 * by one replaying subscriber's thread).
 *
 * <p>Everything here is already as the collection's {@link DocumentPolicy} lets it leave the API
 * (the users collection's {@code password} removed from the documents, {@code updatedFields} and
 * {@code removedFields}): subscribers' filters, read filters and frames never see what a GET would
 * not show. {@link DocumentPolicy#NONE} costs nothing: the stored bytes are copied as they are.
 *
 * <p>The event shape is MongoDB's: {@code {_id: {_data: token}, operationType, wallTime, ns:
 * {db, coll}, documentKey: {_id}, fullDocument, updateDescription: {updatedFields,
 * removedFields}}}; a leave event is {@code {_id, operationType: "leave", cause, wallTime, ns,
 * documentKey}}.
 */
final class EventView {
    final ChangeEvent event;
    private final Json json;
    private final DocumentPolicy policy;
    private final String token;
    private JsonNode after;
    private JsonNode before;
    private ObjectNode eventNode;
    private ObjectNode beforeNode;
    private EventFrame frame;
    private EventFrame leave;

    EventView(ChangeEvent event, Json json, DocumentPolicy policy) {
        this.event = event;
        this.json = json;
        this.policy = policy;
        this.token = Tokens.encode(event.seq());
    }

    /** The collection was dropped: its streams get {@link #frame} ({@code drop}), then {@link #invalidate}, and end. */
    boolean isDrop() {
        return event.operation() == ChangeEvent.Operation.DROP;
    }

    /** The document after the change; null for a delete. */
    JsonNode after() {
        if (after == null && event.fullDocument() != null) {
            after = readable(event.fullDocument(), "event document");
        }
        return after;
    }

    /** The document before the change; null for an insert. */
    JsonNode before() {
        if (before == null && event.previousDocument() != null) {
            before = readable(event.previousDocument(), "event pre-image");
        }
        return before;
    }

    private JsonNode readable(byte[] stored, String what) {
        JsonNode doc = json.parse(stored, what);
        return doc.isObject() ? policy.readable((ObjectNode) doc) : doc;
    }

    /** The change event as a document, for {@code $match} stages. */
    ObjectNode eventNode() {
        if (eventNode == null) {
            eventNode = node(after(), Optional.empty());
        }
        return eventNode;
    }

    /** The change event with the pre-image as {@code fullDocument}: did the document match before? */
    ObjectNode beforeNode() {
        if (beforeNode == null) {
            beforeNode = node(before(), Optional.empty());
        }
        return beforeNode;
    }

    EventFrame frame() {
        if (frame == null) {
            frame = new EventFrame(token, render());
        }
        return frame;
    }

    /** The event with {@code fullDocument} projected for one subscriber (not shared). */
    EventFrame projected(Projection projection) {
        return new EventFrame(token, json.bytes(node(after(), Optional.of(projection))));
    }

    /**
     * The event as {@code stages} make it of what {@code projection} (if any) shows; null when a
     * stage's {@code $match} leaves it out. Not shared: stages are per subscriber.
     */
    EventFrame shaped(Optional<Projection> projection, EventStages stages) {
        return stages.apply(node(after(), projection), event.wallTime())
                .map(n -> new EventFrame(token, json.bytes(n)))
                .orElse(null);
    }

    /** What ends a stream after a drop: {@code {_id, operationType: "invalidate", wallTime}}. */
    EventFrame invalidate() {
        ObjectNode node = Json.NODES.objectNode();
        node.putObject("_id").put("_data", token);
        node.put("operationType", "invalidate");
        node.putObject("wallTime").put("$date", event.wallTime());
        return new EventFrame(token, json.bytes(node));
    }

    EventFrame leave() {
        if (leave == null) {
            ObjectNode node = head("leave");
            node.put("cause", operationType());
            leave = new EventFrame(token, json.bytes(node));
        }
        return leave;
    }

    private String operationType() {
        return event.operation().name().toLowerCase(Locale.ROOT);
    }

    private ObjectNode node(JsonNode doc, Optional<Projection> projection) {
        ObjectNode node = head(operationType());
        if (doc != null) {
            node.set("fullDocument", projection.isPresent() ? projection.get().apply(doc) : doc);
        }
        describe(node, projection);
        return node;
    }

    /** {@code _id}, {@code operationType}, {@code wallTime}, {@code ns}, {@code documentKey}. */
    private ObjectNode head(String operationType) {
        ObjectNode node = Json.NODES.objectNode();
        node.putObject("_id").put("_data", token);
        node.put("operationType", operationType);
        node.putObject("wallTime").put("$date", event.wallTime());
        ObjectNode ns = node.putObject("ns");
        ns.put("db", event.ns().db());
        ns.put("coll", event.ns().coll());
        if (!isDrop()) {
            node.putObject("documentKey").set("_id", event.documentKey());
        }
        return node;
    }

    /**
     * {@code updateDescription}; under a projection, only the changed fields it
     * {@link Projection#shows shows}: a changed field's name or value may be what it hides.
     */
    private void describe(ObjectNode node, Optional<Projection> projection) {
        if (event.updateDescription() == null) {
            return;
        }
        Predicate<String> shown = projection.<Predicate<String>>map(p -> p::shows).orElse(f -> true);
        ObjectNode d = node.putObject("updateDescription");
        ObjectNode updated = d.putObject("updatedFields");
        JsonNode fields = event.updateDescription().updatedFields();
        if (fields != null) {
            fields.properties().stream().filter(e -> shown.test(e.getKey())).forEach(e -> updated.set(e.getKey(), e.getValue()));
            policy.readable(updated);
        }
        var removed = d.putArray("removedFields");
        if (event.updateDescription().removedFields() != null) {
            readableNames(event.updateDescription().removedFields()).stream().filter(shown).forEach(removed::add);
        }
    }

    /**
     * The removed field paths the policy shows: it judges them as it judges {@code updatedFields},
     * whose keys are the same dotted paths.
     */
    private List<String> readableNames(List<String> paths) {
        if (policy == DocumentPolicy.NONE) {
            return paths;
        }
        ObjectNode probe = Json.NODES.objectNode();
        paths.forEach(p -> probe.putNull(p));
        Set<String> kept = Set.copyOf(policy.readable(probe).propertyNames());
        return paths.stream().filter(kept::contains).toList();
    }

    /** The shared rendering: the stored document bytes (as the policy shows them) are copied in, not re-encoded. */
    private byte[] render() {
        ObjectNode head = head(operationType());
        describe(head, Optional.empty());
        byte[] h = json.bytes(head);
        if (event.fullDocument() == null) {
            return h;
        }
        byte[] doc = policy.readable(event.fullDocument());
        ByteArrayOutputStream out = new ByteArrayOutputStream(h.length + doc.length + 16);
        out.write(h, 0, h.length - 1);
        out.writeBytes(",\"fullDocument\":".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(doc);
        out.write('}');
        return out.toByteArray();
    }
}
