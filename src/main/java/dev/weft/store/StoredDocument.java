package dev.weft.store;

/**
 * A document as stored: its JSON text in UTF-8, exactly as it is sent to clients when no
 * projection applies, so a plain read never parses or re-encodes it.
 */
public record StoredDocument(byte[] json) {}
