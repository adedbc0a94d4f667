package dev.weft.store;

/**
 * A document as stored: its JSON text in UTF-8, exactly as it is sent to clients when no
 * projection applies, so a plain read never parses or re-encodes it; with the relevance score
 * the store ranked it by when a {@code $text} read was ranked in the store (else NaN).
 */
public record StoredDocument(byte[] json, double textScore) {
    public StoredDocument(byte[] json) {
        this(json, Double.NaN);
    }
}
