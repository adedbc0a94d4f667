package dev.weft.http;

import dev.weft.security.DocumentAccess;
import dev.weft.store.Namespace;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a client's whole document becomes one to store under the request's {@link DocumentAccess}:
 * its ids readied ({@link DocumentIds}), then the collection's policy, then (for a document that
 * replaces nothing) the permission's protected fields, {@code mergeRequest} and write filter.
 * Used by every write that takes whole documents: POST, PUT, arrays and ndjson.
 */
record NewDocuments(DocumentAccess access, int maxIdBytes) {

    static NewDocuments of(Exchange ex, Api api, Namespace ns) {
        return new NewDocuments(ex.context().access(ns), api.settings().maxIdBytes());
    }

    /** Ids and policy applied; the permission still to check against what it may replace. */
    ObjectNode prepared(JsonNode client) {
        JsonNode entering = client.isObject() ? access.entering((ObjectNode) client) : client;
        return access.toStore(DocumentIds.prepareForInsert(entering, maxIdBytes));
    }

    /** A document to insert, fully admitted. */
    ObjectNode admitted(JsonNode client) {
        return access.admitDocument(prepared(client), Optional.empty());
    }
}
