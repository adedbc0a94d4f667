package dev.weft.query;

import java.util.Arrays;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * A document's place in a {@link Sort} as bytes: the unsigned order of two keys is the sort's
 * order of the documents, except that equal keys may still be ordered by the sort (two integers
 * beyond 2^53 can share a double), so a caller that needs the exact order compares equal keys
 * with {@link Sort#comparator}. An unindexed sort then compares a row with the worst one it
 * keeps by one {@code memcmp}, and rejects most rows without building a tree.
 *
 * <p>Each field is {@link KeyEncoding}'s encoding of its {@link Sort#sortKey} (bytes inverted when
 * descending; an empty array's key below every encoding), the fields concatenated: the encodings
 * are prefix-free, so the concatenation keeps the order field by field.
 *
 * <p>{@link #readStored} reads a key straight from stored JSON into a reused buffer when every
 * field is a top-level name whose value is plain (a number, a string without escapes, true,
 * false, null, an ObjectId such as every {@code _id} Weft makes, or missing), finding the fields from both ends of the document
 * ({@link StoredFields}); else it answers false and the caller reads the tree. A scan compares
 * that buffer with the worst key it keeps and allocates nothing for a row that cannot enter.
 */
public final class SortKeys {
    /** The key of an empty array: below every bracket byte of {@link KeyEncoding} (the lowest is 0x10). */
    private static final byte EMPTY_ARRAY = 0x01;

    private final List<Path> paths;
    private final boolean[] descending;
    /** Finds the fields in stored bytes when every one is a top-level name, else null. */
    private final StoredFields stored;

    private SortKeys(Sort sort) {
        List<IndexField> fields = sort.fields();
        this.paths = fields.stream().map(f -> Path.of(f.path())).toList();
        this.descending = new boolean[fields.size()];
        boolean top = true;
        for (int i = 0; i < fields.size(); i++) {
            descending[i] = fields.get(i).direction() < 0;
            String path = fields.get(i).path();
            top &= path.indexOf('.') < 0;
        }
        top &= fields.stream().map(IndexField::path).distinct().count() == fields.size();
        this.stored = top ? new StoredFields(fields.stream().map(IndexField::path).toList()) : null;
    }

    /** The keys of {@code sort}, or null for a sort by text score (a score is set on the tree, not stored). */
    public static SortKeys of(Sort sort) {
        return sort.byTextScore() ? null : new SortKeys(sort);
    }

    /** The key of a document, or of a tree pruned to (at least) the sort's paths. */
    public byte[] of(JsonNode doc) {
        byte[][] pieces = new byte[paths.size()][];
        for (int i = 0; i < pieces.length; i++) {
            JsonNode value = Sort.sortKey(doc, paths.get(i), descending[i]);
            pieces[i] = Sort.isEmptyArrayKey(value) ? new byte[] {EMPTY_ARRAY} : KeyEncoding.encode(value);
        }
        return joined(pieces);
    }

    /**
     * The key read from a stored document's bytes, or null when a field's value is not plain:
     * {@link #readStored} into a buffer of its own.
     */
    public byte[] ofStored(byte[] body) {
        if (stored == null) {
            return null;
        }
        Scratch scratch = scratch();
        return readStored(body, scratch) ? scratch.copy() : null;
    }

    /**
     * A reader's buffer for keys read from stored bytes, reused row after row so that a row
     * whose key cannot enter a page costs no allocation. Used by one thread at a time.
     */
    public static final class Scratch {
        private byte[] key = new byte[64];
        private int length;
        private final StoredFields.Reader fields;

        private Scratch(StoredFields.Reader fields) {
            this.fields = fields;
        }

        /** The bytes of the last key read: {@code bytes()[0, length())}, overwritten by the next read. */
        public byte[] bytes() {
            return key;
        }

        public int length() {
            return length;
        }

        /** The last key read, as an array of its own. */
        public byte[] copy() {
            return Arrays.copyOf(key, length);
        }

        private void room(int more) {
            if (length + more > key.length) {
                key = Arrays.copyOf(key, Math.max(2 * key.length, length + more));
            }
        }

        private void add(byte x) {
            room(1);
            key[length++] = x;
        }
    }

    private static final java.lang.invoke.VarHandle BIG_ENDIAN_LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /**
     * The unsigned order of the key {@code a[0, aLength)} and the key {@code b}, as
     * {@link Arrays#compareUnsigned} answers it: eight bytes a step, for keys of a few words
     * (where the vectorized mismatch costs more to set up than it saves).
     */
    public static int compare(byte[] a, int aLength, byte[] b) {
        int n = Math.min(aLength, b.length);
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            long x = (long) BIG_ENDIAN_LONGS.get(a, i);
            long y = (long) BIG_ENDIAN_LONGS.get(b, i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < n; i++) {
            int c = (a[i] & 0xff) - (b[i] & 0xff);
            if (c != 0) {
                return c;
            }
        }
        return aLength - b.length;
    }

    /**
     * The number the first field of {@code key} (a key of these fields) encodes, or NaN when it
     * encodes no number (or NaN itself).
     */
    public double firstNumber(byte[] key) {
        boolean down = descending[0];
        if (key.length < 9 || (byte) (down ? ~key[0] : key[0]) != KeyEncoding.NUMBER) {
            return Double.NaN;
        }
        long v = (long) BIG_ENDIAN_LONGS.get(key, 1);
        return KeyEncoding.fromSortableDouble(down ? ~v : v);
    }

    /** A buffer for {@link #readStored}, one per reading thread. */
    public Scratch scratch() {
        return new Scratch(stored == null ? null : stored.reader());
    }

    /**
     * Reads the key of a stored document's bytes into {@code scratch}; false (the caller reads
     * the tree) when a sort field is not a top-level name, a field's value is not plain (a
     * number, a string without escapes, true, false, null, or missing), or the document is not
     * read on its bytes ({@link StoredFields}). Fields are found from both ends of the document
     * (an {@code _id} first, a counter or an {@code _etag} last cost a few skips, where a walk
     * from the start alone skipped every field before them: bench/results/scan-probes-1.txt).
     */
    public boolean readStored(byte[] body, Scratch scratch) {
        if (stored == null || !scratch.fields.locate(body)) {
            return false;
        }
        scratch.length = 0;
        for (int i = 0; i < descending.length; i++) {
            int from = scratch.length;
            int at = scratch.fields.start(i);
            if (at < 0) {
                scratch.add(KeyEncoding.NULL); // missing sorts as null
            } else if (body[at] == '-' || (body[at] >= '0' && body[at] <= '9')) {
                if (!number(body, at, scratch, descending[i])) {
                    return false;
                }
                continue; // written inverted when descending
            } else if (!plain(body, at, scratch)) {
                return false;
            }
            if (descending[i]) {
                for (int j = from; j < scratch.length; j++) {
                    scratch.key[j] = (byte) ~scratch.key[j];
                }
            }
        }
        return true;
    }

    /**
     * Appends the encoding of the number starting at {@code from} (a '-' or a digit), its bytes
     * inverted when {@code descending}; false when it is not read here (a letter follows, as in
     * -Infinity, or the bytes are no number {@link Double#parseDouble} reads). Digits are read
     * into an integer as they are passed: an integer of at most 15 digits (exact as a double)
     * needs no second pass; any other number is read by {@link Double#parseDouble}.
     */
    private static boolean number(byte[] b, int from, Scratch out, boolean descending) {
        boolean negative = b[from] == '-';
        int digitsFrom = negative ? from + 1 : from;
        int to = digitsFrom;
        long integer = 0;
        int digit;
        while (to < b.length && (digit = b[to] - '0') >= 0 && digit <= 9) {
            integer = integer * 10 + digit; // overflows only past 18 digits, which are not read as an integer
            to++;
        }
        boolean small = to - digitsFrom >= 1 && to - digitsFrom <= 15;
        if (to < b.length && isNumberByte(b[to])) { // a fraction, an exponent, or a '-' or '+' in the run
            small = false;
            while (to < b.length && isNumberByte(b[to])) {
                to++;
            }
        }
        if (to < b.length && isAsciiLetter(b[to])) {
            return false; // -Infinity and the like: as the mapper reads them
        }
        double d;
        if (small) {
            d = negative ? -integer : integer;
        } else {
            try {
                d = Double.parseDouble(new String(b, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1));
            } catch (NumberFormatException e) {
                return false;
            }
        }
        long v = KeyEncoding.sortableDouble(d);
        out.room(9);
        out.key[out.length] = descending ? (byte) ~KeyEncoding.NUMBER : KeyEncoding.NUMBER;
        BIG_ENDIAN_LONGS.set(out.key, out.length + 1, descending ? ~v : v);
        out.length += 9;
        return true;
    }

    /** {@link Character#isLetter} of a byte (a negative one, above ASCII, is no letter there either). */
    private static boolean isAsciiLetter(byte x) {
        int lower = x | 0x20;
        return lower >= 'a' && lower <= 'z';
    }

    /**
     * Appends the encoding of the plain value starting at {@code from} (a string without escapes,
     * true, false, null, or an ObjectId as Weft writes it: {@link StoredFields#isHexOid}); false
     * when it is not plain.
     */
    private static boolean plain(byte[] b, int from, Scratch out) {
        byte x = b[from];
        if (x == '"') {
            int end = StoredFields.plainStringEnd(b, from);
            if (end < 0) {
                return false;
            }
            // raw UTF-8 holds no 00 byte (JSON escapes control characters), so nothing needs KeyEncoding's 00 FF
            out.room(end - from + 2);
            out.key[out.length++] = KeyEncoding.STRING;
            System.arraycopy(b, from + 1, out.key, out.length, end - from - 1);
            out.length += end - from - 1;
            out.key[out.length++] = 0; // the terminator
            out.key[out.length++] = 0;
            return true;
        }
        if (x == '{' && StoredFields.isHexOid(b, from)) {
            // KeyEncoding's ObjectId: its bracket, then the 24 digits as 12 bytes
            out.room(13);
            out.key[out.length++] = KeyEncoding.OBJECT_ID;
            for (int i = from + StoredFields.OID_DIGITS; i < from + StoredFields.OID_DIGITS + 24; i += 2) {
                out.key[out.length++] = (byte) (StoredFields.hexDigit(b[i]) << 4 | StoredFields.hexDigit(b[i + 1]));
            }
            return true;
        }
        if (literal(b, from, "true")) {
            out.add(KeyEncoding.BOOLEAN);
            out.add((byte) 1);
            return true;
        }
        if (literal(b, from, "false")) {
            out.add(KeyEncoding.BOOLEAN);
            out.add((byte) 0);
            return true;
        }
        if (literal(b, from, "null")) {
            out.add(KeyEncoding.NULL);
            return true;
        }
        return false;
    }

    private static boolean isNumberByte(byte x) {
        return (x >= '0' && x <= '9') || x == '-' || x == '+' || x == '.' || x == 'e' || x == 'E';
    }

    /** A literal that ends where a value ends (so {@code nullx} is not {@code null}). */
    private static boolean literal(byte[] b, int at, String word) {
        int end = at + word.length();
        if (end > b.length) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if (b[at + i] != word.charAt(i)) {
                return false;
            }
        }
        return end == b.length || !Character.isLetterOrDigit(b[end]);
    }

    private byte[] joined(byte[][] pieces) {
        if (pieces.length == 1) { // most sorts: the one piece is the key (each piece is a fresh array)
            if (descending[0]) {
                KeyEncoding.invert(pieces[0]);
            }
            return pieces[0];
        }
        int length = 0;
        for (byte[] p : pieces) {
            length += p.length;
        }
        byte[] key = new byte[length];
        int at = 0;
        for (int i = 0; i < pieces.length; i++) {
            if (descending[i]) {
                KeyEncoding.invert(pieces[i]);
            }
            System.arraycopy(pieces[i], 0, key, at, pieces[i].length);
            at += pieces[i].length;
        }
        return key;
    }
}
