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
 * missing), reading fields from both ends of the document and stopping once it has them all;
 * else it answers null and the caller reads the tree.
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

    /**
     * The key read from a stored document's bytes, or null when a field's value is not plain.
     * The top-level fields are read from both ends in turn, one from the end, one from the
     * start, until every sort field is found or the two meet: a field near either end (an
     * {@code _id}, a counter or a timestamp appended last) is found after a few fields, where a
     * walk from the start alone skipped every field before it (about 0.55 us of a 460-byte
     * document, bench/results/scan-probes-1.txt). Stored documents hold no duplicate names (they
     * are written from trees), so the end a field is found from does not matter.
     */
    public byte[] ofStored(byte[] body) {
        if (topNames == null) {
            return null;
        }
        byte[][] pieces = new byte[topNames.length][];
        PrunedReader.Cursor c = new PrunedReader.Cursor(body);
        if (c.next() != '{') {
            return null;
        }
        FromEnd back = FromEnd.of(body);
        if (back == null) {
            return null;
        }
        boolean[] escaped = new boolean[1];
        int found = 0;
        // the fields not read yet lie between c.at and back.comma; the end first: a stored
        // document starts with its _id, whose sort the primary key serves
        while (found < pieces.length) {
            c.blanks();
            if (c.at >= back.comma) {
                break;
            }
            if (!back.step()) {
                return null;
            }
            int field = field(body, back.nameStart, back.nameEnd);
            if (field >= 0 && pieces[field] == null) {
                PrunedReader.Cursor value = new PrunedReader.Cursor(body);
                value.at = back.valueStart;
                pieces[field] = plain(value);
                if (pieces[field] == null) {
                    return null;
                }
                found++;
            }
            if (c.at >= back.comma || found == pieces.length) {
                break;
            }
            int end = c.fieldName(escaped);
            if (escaped[0]) {
                return null; // an escaped name may spell one of the fields
            }
            field = field(body, c.nameStart, end);
            c.blanks();
            if (field >= 0 && pieces[field] == null) {
                pieces[field] = plain(c);
                if (pieces[field] == null) {
                    return null;
                }
                found++;
            } else {
                c.skip();
            }
            c.blanks();
            if (c.at >= back.comma) {
                break;
            }
            c.at++; // the comma
        }
        for (int i = 0; i < pieces.length; i++) {
            if (pieces[i] == null) {
                pieces[i] = new byte[] {KeyEncoding.NULL}; // missing sorts as null
            }
        }
        return joined(pieces);
    }

    /**
     * The top-level fields of a stored object read backwards, from its closing brace. Outside
     * strings, the first quote met going backwards closes a string; its opening quote is the
     * first one before it not escaped (preceded by an even run of backslashes), so strings and
     * nested values are skipped as reliably as forwards. Anything unexpected (an escaped name)
     * stops it, and the caller reads the tree instead.
     */
    static final class FromEnd {
        private final byte[] b;
        /** The comma (or closing brace) after the fields not yet read from this end. */
        int comma;
        /** The last field read: its name's first byte and closing quote, and its value's first byte. */
        int nameStart;
        int nameEnd;
        int valueStart;

        private FromEnd(byte[] b, int close) {
            this.b = b;
            this.comma = close;
        }

        /** From the object's closing brace (after trailing blanks), or null when it does not end with one. */
        static FromEnd of(byte[] b) {
            int close = b.length - 1;
            while (close > 0 && isBlank(b[close])) {
                close--;
            }
            return close > 0 && b[close] == '}' ? new FromEnd(b, close) : null;
        }

        /** Reads the field before {@link #comma} (the caller knows there is one); false when it cannot. */
        boolean step() {
            int i = blanksBefore(comma - 1);
            byte x = b[i];
            int start;
            if (x == '"') {
                start = openingQuote(i);
            } else if (x == '}' || x == ']') {
                start = openingBracket(i);
            } else {
                start = i;
                while (b[start - 1] != ':' && !isBlank(b[start - 1])) {
                    start--;
                }
            }
            valueStart = start;
            i = blanksBefore(start - 1);
            if (b[i] != ':') {
                return false;
            }
            i = blanksBefore(i - 1);
            if (b[i] != '"') {
                return false;
            }
            nameEnd = i;
            int q = i - 1;
            while (b[q] != '"') {
                if (b[q] == '\\') {
                    return false; // an escaped name may spell one of the fields
                }
                q--;
            }
            nameStart = q + 1;
            i = blanksBefore(q - 1);
            if (b[i] != ',' && b[i] != '{') {
                return false;
            }
            comma = i;
            return true;
        }

        private int blanksBefore(int i) {
            while (isBlank(b[i])) {
                i--;
            }
            return i;
        }

        /** From a closing quote: the string's opening quote. */
        private int openingQuote(int close) {
            int j = close - 1;
            while (true) {
                while (b[j] != '"') {
                    j--;
                }
                int backslashes = 0;
                while (b[j - 1 - backslashes] == '\\') {
                    backslashes++; // stops at the object's opening brace at the latest
                }
                if ((backslashes & 1) == 0) {
                    return j;
                }
                j--;
            }
        }

        /** From a closing bracket: its opening one, strings inside skipped whole. */
        private int openingBracket(int close) {
            int depth = 0;
            for (int j = close; ; j--) {
                byte x = b[j];
                if (x == '"') {
                    j = openingQuote(j);
                } else if (x == '}' || x == ']') {
                    depth++;
                } else if ((x == '{' || x == '[') && --depth == 0) {
                    return j;
                }
            }
        }

        private static boolean isBlank(byte x) {
            return x == ' ' || x == '\n' || x == '\r' || x == '\t';
        }
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
