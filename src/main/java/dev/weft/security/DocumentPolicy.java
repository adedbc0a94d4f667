package dev.weft.security;

import dev.weft.store.Namespace;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a collection requires of documents where they enter and leave through the API, so that
 * special collections (the users collection: passwords hashed on the way in, never out) keep
 * their rules in one class instead of {@code if}s in every endpoint. The http layer calls it at
 * every entry (insert, replace, update, bulk update, ndjson ingest), every exit (document, list,
 * export; change events use {@link #readable(ObjectNode)}) and on every query parameter.
 * Ordinary collections get {@link #NONE}, which changes nothing and costs nothing.
 */
public interface DocumentPolicy {

    /** A whole document about to be stored (insert or replace, {@code _id} already set); may change it. */
    ObjectNode stored(ObjectNode document);

    /** A PATCH body (operators, or a plain object meaning {@code $set}) before it is compiled. */
    ObjectNode update(ObjectNode body);

    /** Stored bytes as a client may see them. */
    byte[] readable(byte[] stored);

    /**
     * A document (or an event's {@code updatedFields}, whose keys are dotted paths) as a client
     * may see it; changed in place.
     */
    ObjectNode readable(ObjectNode document);

    /** A {@code filter} or {@code keys} parameter; 400 when it touches what must stay hidden. */
    void checkQuery(String param, JsonNode spec);

    /** A field path used to sort or index by; 400 when it must stay hidden. */
    void checkPath(String param, String path);

    /** The policy of each collection. */
    @FunctionalInterface
    interface Lookup {
        DocumentPolicy of(Namespace ns);

        Lookup NONE = ns -> DocumentPolicy.NONE;
    }

    DocumentPolicy NONE = new DocumentPolicy() {
        @Override
        public ObjectNode stored(ObjectNode document) {
            return document;
        }

        @Override
        public ObjectNode update(ObjectNode body) {
            return body;
        }

        @Override
        public byte[] readable(byte[] stored) {
            return stored;
        }

        @Override
        public ObjectNode readable(ObjectNode document) {
            return document;
        }

        @Override
        public void checkQuery(String param, JsonNode spec) {}

        @Override
        public void checkPath(String param, String path) {}
    };
}
