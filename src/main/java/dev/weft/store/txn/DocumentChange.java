package dev.weft.store.txn;

import dev.weft.store.Namespace;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a committing transaction does to one document: the state it must still be in
 * ({@code existed}, with {@code etag}), checked under the writer before anything is applied, and
 * what it becomes ({@code after} and its stored {@code body}; null to delete it).
 */
public record DocumentChange(Namespace ns, JsonNode id, boolean existed, String etag, ObjectNode after, byte[] body) {}
