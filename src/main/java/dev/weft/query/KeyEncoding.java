package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * An order-preserving byte encoding of values: for any a, b,
 * {@code sign(memcmp(encode(a), encode(b))) == sign(Values.compare(a, b))} (up to doubles'
 * precision for integers beyond 2^53, which may tie). Index keys and document ids are stored in
 * this form, so SQL engines order and range-scan them exactly as MongoDB orders values.
 *
 * <p>Layout: one bracket byte ({@code 0x10} null and missing, {@code 0x20} number, {@code 0x30}
 * string, {@code 0x40} object, {@code 0x50} array, {@code 0x60} ObjectId, {@code 0x70} boolean,
 * {@code 0x80} date), then the body: a number as the 8 bytes of its double made sortable
 * (NaN as all zeros, below -Infinity); a string as UTF-8 with {@code 00} written {@code 00 FF},
 * ended by {@code 00 00}; an object as, per field, the value's bracket byte, the name as a
 * string, the value's body, then {@code 00}; an array as its elements' encodings then
 * {@code 00}; an ObjectId as its 12 bytes; a boolean as {@code 00}/{@code 01}; a date as its
 * epoch milliseconds with the sign bit flipped. Every encoding is prefix-free (no encoding is a
 * proper prefix of another), which is what keeps concatenated compound keys in order, and keeps
 * them in reverse order when a descending field's bytes are inverted.
 */
public final class KeyEncoding {
    static final byte NULL = 0x10;
    static final byte NUMBER = 0x20;
    static final byte STRING = 0x30;
    static final byte OBJECT = 0x40;
    static final byte ARRAY = 0x50;
    static final byte OBJECT_ID = 0x60;
    static final byte BOOLEAN = 0x70;
    static final byte DATE = (byte) 0x80;
    private static final byte END = 0x00;

    /** More keys than this from one document is refused: a cartesian blow-up of arrays. */
    static final int MAX_KEYS_PER_DOCUMENT = 10_000;

    private KeyEncoding() {}

    public static byte[] encode(JsonNode value) {
        Buffer out = new Buffer();
        write(value, out);
        return out.toByteArray();
    }

    /**
     * The keys a document contributes to an index on {@code fields}: one per array element for a
     * multikey path (MongoDB semantics), the cartesian product for compound keys, each key the
     * concatenation of the fields' encodings (a descending field's bytes inverted). A missing
     * field is encoded as null. An empty array is encoded as itself ({@code []}), which is what
     * {@link Filter#keyRanges} expects. Keys are distinct and in no particular order.
     */
    public static List<byte[]> indexKeys(JsonNode doc, List<IndexField> fields) {
        List<byte[]> keys = List.of(new byte[0]);
        for (IndexField field : fields) {
            List<byte[]> values = fieldKeys(doc, Path.of(field.path()), field.direction() < 0);
            if (keys.size() * values.size() > MAX_KEYS_PER_DOCUMENT) {
                throw dev.weft.core.WeftException.badRequest(
                        "document has too many index keys for index on " + fields + " (arrays multiply)");
            }
            List<byte[]> product = new ArrayList<>(keys.size() * values.size());
            for (byte[] prefix : keys) {
                for (byte[] value : values) {
                    product.add(concat(prefix, value));
                }
            }
            keys = product;
        }
        return keys;
    }

    /**
     * Whether {@code doc} makes an index on {@code fields} multikey: it has an array on, or at the
     * end of, an indexed path. Once any indexed document does, {@link Filter#keyRanges} must be
     * called with {@code multikey} true.
     */
    public static boolean isMultikey(JsonNode doc, List<IndexField> fields) {
        for (IndexField field : fields) {
            if (Path.of(field.path()).crossesArray(doc)) {
                return true;
            }
        }
        return false;
    }

    /** The distinct encodings of the values a document holds at one indexed path. */
    static List<byte[]> fieldKeys(JsonNode doc, Path path, boolean descending) {
        List<byte[]> keys = new ArrayList<>(1);
        path.walk(doc, leaf -> {
            if (leaf != null && leaf.isArray() && !leaf.isEmpty()) {
                for (JsonNode element : leaf) {
                    addDistinct(keys, encode(element), descending);
                }
            } else {
                addDistinct(keys, encode(leaf), descending);
            }
            return false;
        });
        return keys;
    }

    private static void addDistinct(List<byte[]> keys, byte[] key, boolean descending) {
        if (descending) {
            invert(key);
        }
        for (byte[] k : keys) {
            if (Arrays.equals(k, key)) {
                return;
            }
        }
        keys.add(key);
    }

    /** The smallest byte string greater than every key that starts with {@code prefix}. */
    public static byte[] prefixUpperBound(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] bound = Arrays.copyOf(prefix, i + 1);
                bound[i]++;
                return bound;
            }
        }
        throw new IllegalArgumentException("no byte string is above every key starting with " + Arrays.toString(prefix));
    }

    /** Inverts every byte in place: reverses the order of a prefix-free set of encodings. */
    static void invert(byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) ~bytes[i];
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** The bracket byte that starts every encoding of a value of this bracket. */
    static byte bracketByte(Values.Bracket bracket) {
        return switch (bracket) {
            case MISSING, NULL -> NULL;
            case NUMBER -> NUMBER;
            case STRING -> STRING;
            case OBJECT -> OBJECT;
            case ARRAY -> ARRAY;
            case OBJECT_ID -> OBJECT_ID;
            case BOOLEAN -> BOOLEAN;
            case DATE -> DATE;
        };
    }

    /** A string's bracket byte and escaped UTF-8 without the terminator: the prefix of every longer string. */
    static byte[] stringPrefix(String s) {
        Buffer out = new Buffer();
        out.write(STRING);
        writeStringBytes(s, out);
        return out.toByteArray();
    }

    private static void write(JsonNode value, Buffer out) {
        Values.Bracket bracket = Values.bracket(value);
        out.write(bracketByte(bracket));
        writeBody(bracket, value, out);
    }

    private static void writeBody(Values.Bracket bracket, JsonNode value, Buffer out) {
        switch (bracket) {
            case MISSING, NULL -> { }
            case NUMBER -> writeLong(sortableDouble(value.doubleValue()), out);
            case STRING -> writeString(value.asString(), out);
            case OBJECT -> {
                for (Map.Entry<String, JsonNode> e : value.properties()) {
                    Values.Bracket b = Values.bracket(e.getValue());
                    out.write(bracketByte(b));
                    writeString(e.getKey(), out);
                    writeBody(b, e.getValue(), out);
                }
                out.write(END);
            }
            case ARRAY -> {
                for (JsonNode element : value) {
                    write(element, out);
                }
                out.write(END);
            }
            case OBJECT_ID -> {
                String hex = Values.objectIdHex(value);
                for (int i = 0; i < 24; i += 2) {
                    out.write((byte) (Character.digit(hex.charAt(i), 16) << 4 | Character.digit(hex.charAt(i + 1), 16)));
                }
            }
            case BOOLEAN -> out.write((byte) (value.booleanValue() ? 1 : 0));
            case DATE -> writeLong(Values.dateMillis(value) ^ Long.MIN_VALUE, out);
        }
    }

    /** Bits of a double whose unsigned order is the numeric order; -0.0 is 0.0, NaN is lowest. */
    static long sortableDouble(double d) {
        if (Double.isNaN(d)) {
            return 0L;
        }
        if (d == 0.0) {
            d = 0.0;
        }
        long bits = Double.doubleToRawLongBits(d);
        return bits < 0 ? ~bits : bits ^ Long.MIN_VALUE;
    }

    /** The double whose {@link #sortableDouble} is {@code v} (NaN for NaN's, 0). */
    static double fromSortableDouble(long v) {
        if (v == 0L) {
            return Double.NaN;
        }
        return Double.longBitsToDouble(v < 0 ? v ^ Long.MIN_VALUE : ~v);
    }

    private static void writeLong(long v, Buffer out) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            out.write((byte) (v >>> shift));
        }
    }

    private static void writeString(String s, Buffer out) {
        writeStringBytes(s, out);
        out.write(END);
        out.write(END);
    }

    private static void writeStringBytes(String s, Buffer out) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        for (byte b : utf8) {
            out.write(b);
            if (b == 0) {
                out.write((byte) 0xFF);
            }
        }
    }

    /** An unsynchronized growable byte array (ByteArrayOutputStream locks on every write). */
    private static final class Buffer {
        private byte[] bytes = new byte[32];
        private int size;

        void write(byte b) {
            if (size == bytes.length) {
                bytes = Arrays.copyOf(bytes, size * 2);
            }
            bytes[size++] = b;
        }

        byte[] toByteArray() {
            return Arrays.copyOf(bytes, size);
        }
    }
}
