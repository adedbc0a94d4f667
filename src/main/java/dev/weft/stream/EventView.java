package dev.weft.stream;

import dev.weft.core.Json;
import dev.weft.query.Projection;
import dev.weft.store.ChangeEvent;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One change event as the matcher sees it, with everything derived from it computed at most once
 * however many subscribers look: the parsed documents before and after, the event document
 * {@code $match} stages run on, and the rendered frames. Used by the dispatcher thread only.
 *
 * <p>The event shape is MongoDB's: {@code {_id: {_data: token}, operationType, wallTime, ns:
 * {db, coll}, documentKey: {_id}, fullDocument, updateDescription: {updatedFields,
 * removedFields}}}; a leave event is {@code {_id, operationType: "leave", cause, wallTime, ns,
 * documentKey}}.
 */
final class EventView {
    final ChangeEvent event;
    private final Json json;
    private final String token;
    private JsonNode after;
    private JsonNode before;
    private ObjectNode eventNode;
    private ObjectNode beforeNode;
    private Frame frame;
    private Frame leave;

    EventView(ChangeEvent event, Json json) {
        this.event = event;
        this.json = json;
        this.token = Tokens.encode(event.seq());
    }

    /** The document after the change; null for a delete. */
    JsonNode after() {
        if (after == null && event.fullDocument() != null) {
            after = json.parse(event.fullDocument(), "event document");
        }
        return after;
    }

    /** The document before the change; null for an insert. */
    JsonNode before() {
        if (before == null && event.previousDocument() != null) {
            before = json.parse(event.previousDocument(), "event pre-image");
        }
        return before;
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

    Frame frame() {
        if (frame == null) {
            frame = new Frame(token, render());
        }
        return frame;
    }

    /** The event with {@code fullDocument} projected for one subscriber (not shared). */
    Frame projected(Projection projection) {
        return new Frame(token, json.bytes(node(after(), Optional.of(projection))));
    }

    Frame leave() {
        if (leave == null) {
            ObjectNode node = head("leave");
            node.put("cause", operationType());
            leave = new Frame(token, json.bytes(node));
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
        node.putObject("documentKey").set("_id", event.documentKey());
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
        }
        var removed = d.putArray("removedFields");
        if (event.updateDescription().removedFields() != null) {
            event.updateDescription().removedFields().stream().filter(shown).forEach(removed::add);
        }
    }

    /** The shared rendering: the stored document bytes are copied in, not re-encoded. */
    private byte[] render() {
        ObjectNode head = head(operationType());
        describe(head, Optional.empty());
        byte[] h = json.bytes(head);
        if (event.fullDocument() == null) {
            return h;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(h.length + event.fullDocument().length + 16);
        out.write(h, 0, h.length - 1);
        out.writeBytes(",\"fullDocument\":".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(event.fullDocument());
        out.write('}');
        return out.toByteArray();
    }
}
