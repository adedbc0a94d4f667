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
 * <p>{@link #ofStored} reads a key straight from stored JSON when every field is a top-level
 * name whose value is plain (a number, a string without escapes, true, false, null, or
 * missing), stopping once it has them all; else it answers null and the caller reads the tree.
 */
public final class SortKeys {
    /** The key of an empty array: below every bracket byte of {@link KeyEncoding} (the lowest is 0x10). */
    private static final byte EMPTY_ARRAY = 0x01;

    private final List<Path> paths;
    private final boolean[] descending;
    /** The fields' names as UTF-8 when every one is a top-level name, else null. */
    private final byte[][] topNames;

    private SortKeys(Sort sort) {
        List<IndexField> fields = sort.fields();
        this.paths = fields.stream().map(f -> Path.of(f.path())).toList();
        this.descending = new boolean[fields.size()];
        byte[][] names = new byte[fields.size()][];
        boolean top = true;
        for (int i = 0; i < fields.size(); i++) {
            descending[i] = fields.get(i).direction() < 0;
            String path = fields.get(i).path();
            top &= path.indexOf('.') < 0;
            names[i] = path.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        this.topNames = top ? names : null;
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

    /** The key read from a stored document's bytes, or null when a field's value is not plain. */
    public byte[] ofStored(byte[] body) {
        if (topNames == null) {
            return null;
        }
        byte[][] pieces = new byte[topNames.length][];
        PrunedReader.Cursor c = new PrunedReader.Cursor(body);
        if (c.next() != '{') {
            return null;
        }
        int found = 0;
        if (c.next() != '}') {
            c.at--;
            boolean[] escaped = new boolean[1];
            while (true) {
                int end = c.fieldName(escaped);
                if (escaped[0]) {
                    return null; // an escaped name may spell one of the fields
                }
                int field = field(body, c.nameStart, end);
                if (field >= 0 && pieces[field] == null) {
                    c.blanks();
                    pieces[field] = plain(c);
                    if (pieces[field] == null) {
                        return null;
                    }
                    if (++found == pieces.length) {
                        break;
                    }
                } else {
                    c.skip();
                }
                if (c.next() == '}') {
                    break;
                }
            }
        }
        for (int i = 0; i < pieces.length; i++) {
            if (pieces[i] == null) {
                pieces[i] = new byte[] {KeyEncoding.NULL}; // missing sorts as null
            }
        }
        return joined(pieces);
    }

    private int field(byte[] b, int from, int to) {
        for (int i = 0; i < topNames.length; i++) {
            byte[] name = topNames[i];
            if (name.length == to - from && (to == from || b[from] == name[0])
                    && Arrays.equals(b, from, to, name, 0, name.length)) {
                return i;
            }
        }
        return -1;
    }

    /** The encoding of the plain value at the cursor (moved past it), or null when it is not plain. */
    private static byte[] plain(PrunedReader.Cursor c) {
        byte[] b = c.b;
        int from = c.at;
        byte x = b[from];
        if (x == '"') {
            boolean[] escaped = new boolean[1];
            int end = c.stringEnd(escaped);
            if (escaped[0]) {
                return null;
            }
            c.at = end + 1;
            // raw UTF-8 holds no 00 byte (JSON escapes control characters), so nothing needs KeyEncoding's 00 FF
            byte[] out = new byte[end - from + 2];
            out[0] = KeyEncoding.STRING;
            System.arraycopy(b, from + 1, out, 1, end - from - 1);
            return out; // the last two bytes stay 00 00, the terminator
        }
        if (literal(b, from, "true")) {
            c.at = from + 4;
            return new byte[] {KeyEncoding.BOOLEAN, 1};
        }
        if (literal(b, from, "false")) {
            c.at = from + 5;
            return new byte[] {KeyEncoding.BOOLEAN, 0};
        }
        if (literal(b, from, "null")) {
            c.at = from + 4;
            return new byte[] {KeyEncoding.NULL};
        }
        if (x == '-' || (x >= '0' && x <= '9')) {
            int to = from;
            while (to < b.length && isNumberByte(b[to])) {
                to++;
            }
            if (to < b.length && Character.isLetter(b[to])) {
                return null; // -Infinity and the like: as the mapper reads them
            }
            c.at = to;
            long integer = smallInteger(b, from, to);
            if (integer != Long.MIN_VALUE) {
                return number(integer);
            }
            try {
                return number(Double.parseDouble(new String(b, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1)));
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    /**
     * An integer of at most 15 digits (exact as a double), or {@link Long#MIN_VALUE} for any
     * other number, which {@link Double#parseDouble} reads.
     */
    private static long smallInteger(byte[] b, int from, int to) {
        int i = b[from] == '-' ? from + 1 : from;
        if (to - i < 1 || to - i > 15) {
            return Long.MIN_VALUE;
        }
        long v = 0;
        for (; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return Long.MIN_VALUE;
            }
            v = v * 10 + d;
        }
        return b[from] == '-' ? -v : v;
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

    private static byte[] number(double d) {
        byte[] out = new byte[9];
        out[0] = KeyEncoding.NUMBER;
        long v = KeyEncoding.sortableDouble(d);
        for (int i = 0; i < 8; i++) {
            out[1 + i] = (byte) (v >>> (56 - 8 * i));
        }
        return out;
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
