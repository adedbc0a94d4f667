package dev.weft.security;

import dev.weft.store.Namespace;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a collection requires of documents where they enter and leave through the API, so that
 * special collections (the users collection: passwords hashed on the way in, never out) keep
 * their rules in one class instead of {@code if}s in every endpoint. The http layer reaches it
 * only through a request's {@link DocumentAccess}, at every entry (insert, replace, update and its
 * result, bulk update, ndjson ingest), every exit (document, list, export) and on every query
 * parameter; change events use {@link #readable(ObjectNode)} in the stream hub.
 * Ordinary collections get {@link #NONE}, which changes nothing and costs nothing.
 */
public interface DocumentPolicy {

    /** The {@code _id} of a document a write may create without a body to pass to {@link #stored} (PATCH with wm=upsert). */
    default void checkId(JsonNode id) {}

    /**
     * A whole document as the client sent it, before its ids are readied or the access rules
     * read it; may change it (the JSON Schema store escapes its {@code $} keys as RESTHeart does).
     */
    default ObjectNode entering(ObjectNode client) {
        return client;
    }

    /** A whole document about to be stored (insert or replace, {@code _id} already set); may change it. */
    default ObjectNode stored(ObjectNode document) {
        return document;
    }

    /** A PATCH body (operators, or a plain object meaning {@code $set}) before it is compiled. */
    default ObjectNode update(ObjectNode body) {
        return body;
    }

    /**
     * Whether {@link #updated} checks anything: only then do updates hand it the document they
     * leave behind.
     */
    default boolean checksUpdates() {
        return false;
    }

    /**
     * The document an update (PATCH, bulk PATCH) leaves behind, inside the write, before it is
     * stored; throws a {@link dev.weft.core.WeftException} to refuse the update.
     */
    default void updated(ObjectNode document) {}

    /** Stored bytes as a client may see them. */
    default byte[] readable(byte[] stored) {
        return stored;
    }

    /**
     * A document (or an event's {@code updatedFields}, whose keys are dotted paths) as a client
     * may see it; changed in place.
     */
    default ObjectNode readable(ObjectNode document) {
        return document;
    }

    /**
     * This policy for a writer that reads documents through {@code view} (changes its argument
     * in place): a policy whose refusals describe the stored document (a schema's messages)
     * must say nothing about what the view hides.
     */
    default DocumentPolicy seenThrough(UnaryOperator<ObjectNode> view) {
        return this;
    }

    /** A {@code filter} or {@code keys} parameter; 400 when it touches what must stay hidden. */
    default void checkQuery(String param, JsonNode spec) {}

    /** A field path used to sort or index by; 400 when it must stay hidden. */
    default void checkPath(String param, String path) {}

    /** The policy of each collection. */
    @FunctionalInterface
    interface Lookup {
        DocumentPolicy of(Namespace ns);

        Lookup NONE = ns -> DocumentPolicy.NONE;

        /** This lookup's policy where it has one (not {@link #NONE}), else {@code other}'s. */
        default Lookup or(Lookup other) {
            return ns -> {
                DocumentPolicy mine = of(ns);
                return mine != DocumentPolicy.NONE ? mine : other.of(ns);
            };
        }
    }

    /** Changes nothing and costs nothing. */
    DocumentPolicy NONE = new DocumentPolicy() {};
}
