package dev.weft.query;

import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * An order-preserving byte encoding of values: for any a, b,
 * {@code sign(memcmp(encode(a), encode(b))) == sign(Values.compare(a, b))} (up to doubles'
 * precision for integers beyond 2^53, which may tie). Index keys and document ids are stored in
 * this form, so SQL engines order and range-scan them exactly as MongoDB orders values.
 */
public final class KeyEncoding {
    private KeyEncoding() {}

    public static byte[] encode(JsonNode value) {
        throw new UnsupportedOperationException("stub");
    }

    /**
     * The keys a document contributes to an index on {@code fields}: one per array element for a
     * multikey path (MongoDB semantics), the cartesian product for compound keys, each key the
     * concatenation of the fields' encodings (a descending field's bytes inverted). A missing
     * field is encoded as null.
     */
    public static List<byte[]> indexKeys(JsonNode doc, List<IndexField> fields) {
        throw new UnsupportedOperationException("stub");
    }

    /** The smallest byte string greater than every key that starts with {@code prefix}. */
    public static byte[] prefixUpperBound(byte[] prefix) {
        throw new UnsupportedOperationException("stub");
    }
}
