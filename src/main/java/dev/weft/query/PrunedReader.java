package dev.weft.query;

import dev.weft.core.Json;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Reads a stored JSON document in one pass over its bytes, building only the parts a
 * {@link PathTrie} names and skipping the rest without tokenizing it: a skipped string is a
 * search for its closing quote, a skipped object or array a count of brackets outside strings,
 * and a field name is compared as bytes with the trie's names. The small tree it returns answers
 * every path of the trie exactly as the whole document would, so the in-memory evaluator (the
 * reference) runs on it unchanged.
 *
 * <p>Kept values are made here when they are plain (a string without escapes, an integer of up
 * to 18 digits, true, false, null), and by the mapper from their bytes otherwise (floats,
 * escaped strings, objects and arrays kept whole), so every number and string comes out as the
 * mapper reads it. The bytes are stored documents, JSON the server wrote.
 */
public final class PrunedReader {
    private final JsonMapper mapper;
    private final JsonNodeFactory nodes;
    private final PathTrie trie;

    public PrunedReader(Json json, PathTrie trie) {
        this.mapper = json.mapper();
        this.nodes = mapper.getNodeFactory();
        this.trie = trie;
    }

    /** The document pruned to the trie's paths. */
    public JsonNode read(byte[] body) {
        if (trie.whole()) {
            return mapper.readTree(body);
        }
        Cursor c = new Cursor(body);
        c.blanks();
        return value(c, trie);
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5c5c5c5c5c5c5c5cL;

    /**
     * The high bit of each zero byte of {@code v} set (and of no byte before the first zero one:
     * so the lowest set bit marks the first zero byte, which is all the search needs).
     */
    private static long zeroByte(long v) {
        return (v - 0x0101010101010101L) & ~v & 0x8080808080808080L;
    }

    /** A position in the bytes of one document (also walked by {@link SortKeys}). */
    static final class Cursor {
        final byte[] b;
        int at;

        Cursor(byte[] b) {
            this.b = b;
        }

        void blanks() {
            while (at < b.length && (b[at] == ' ' || b[at] == '\n' || b[at] == '\r' || b[at] == '\t')) {
                at++;
            }
        }

        /** The next byte after blanks, consumed. */
        byte next() {
            blanks();
            return b[at++];
        }

        /** At an opening bracket: moves past it; true, and past the closing one too, when the container is empty. */
        boolean opensEmpty(char close) {
            at++;
            if (next() == close) {
                return true;
            }
            at--;
            return false;
        }

        /** From an opening quote: the index of the closing one; {@code escaped[0]} says whether a backslash came between. */
        int stringEnd(boolean[] escaped) {
            int i = at + 1;
            // eight bytes at a time up to the first quote or backslash among them
            while (i + 8 <= b.length) {
                long word = (long) LONGS.get(b, i);
                long found = zeroByte(word ^ QUOTES) | zeroByte(word ^ BACKSLASHES);
                if (found != 0) {
                    i += Long.numberOfTrailingZeros(found) >>> 3;
                    break;
                }
                i += 8;
            }
            while (true) {
                byte x = b[i];
                if (x == '"') {
                    return i;
                }
                if (x == '\\') {
                    escaped[0] = true;
                    i += 2;
                } else {
                    i++;
                }
            }
        }

        /** Where the last {@link #fieldName} starts (after its opening quote). */
        int nameStart;

        /**
         * At a field name (after blanks): moves past it and its ':'; returns the index of its
         * closing quote ({@link #nameStart} is its first byte), {@code escaped[0]} set when a
         * backslash is in it.
         */
        int fieldName(boolean[] escaped) {
            blanks();
            escaped[0] = false;
            int end = stringEnd(escaped);
            nameStart = at + 1;
            at = end + 1;
            next(); // ':'
            return end;
        }

        /**
         * From an opening quote: the index of the closing one, for a string skipped unread. Only
         * quotes are searched for (one test per eight bytes, where {@link #stringEnd} makes two);
         * a quote after an odd run of backslashes is escaped, part of the string.
         */
        int closingQuote() {
            return StoredFields.closingQuote(b, at);
        }

        /** Moves past the value starting here (after blanks). */
        void skip() {
            blanks();
            byte x = b[at];
            if (x == '"') {
                at = closingQuote() + 1;
            } else if (x == '{' || x == '[') {
                int depth = 0;
                do {
                    x = b[at];
                    if (x == '"') {
                        at = closingQuote();
                    } else if (x == '{' || x == '[') {
                        depth++;
                    } else if (x == '}' || x == ']') {
                        depth--;
                    }
                    at++;
                } while (depth > 0);
            } else {
                while (at < b.length && !isEnd(b[at])) {
                    at++;
                }
            }
        }

        private static boolean isEnd(byte x) {
            return x == ',' || x == '}' || x == ']' || x == ' ' || x == '\n' || x == '\r' || x == '\t';
        }
    }

    private JsonNode value(Cursor c, PathTrie node) {
        c.blanks();
        if (node.whole()) {
            return whole(c);
        }
        byte x = c.b[c.at];
        if (x == '{') {
            ObjectNode o = nodes.objectNode();
            if (c.opensEmpty('}')) {
                return o;
            }
            boolean[] escaped = new boolean[1];
            while (true) {
                int end = c.fieldName(escaped);
                int from = c.nameStart;
                if (escaped[0]) {
                    String name = name(c.b, from - 1, end + 1);
                    PathTrie child = node.child(name);
                    if (child == null) {
                        c.skip();
                    } else {
                        o.set(name, value(c, child));
                    }
                } else {
                    int child = node.childIndex(c.b, from, end);
                    if (child < 0) {
                        c.skip();
                    } else {
                        o.set(node.childName(child), value(c, node.childAt(child)));
                    }
                }
                // A stored document names each field once (it is written from a parsed tree): once
                // it has every top-level field the trie names, the rest of it is left unread.
                if (node == trie && o.size() == trie.fieldCount() || c.next() == '}') {
                    return o;
                }
            }
        }
        if (x == '[') {
            ArrayNode a = nodes.arrayNode();
            if (c.opensEmpty(']')) {
                return a;
            }
            for (int i = 0; ; i++) {
                a.add(value(c, node.element(i)));
                if (c.next() == ']') {
                    return a;
                }
            }
        }
        return whole(c);
    }

    /** A field name with escapes, as the mapper reads the string between {@code from} and {@code to} (its quotes). */
    private String name(byte[] b, int from, int to) {
        return mapper.readTree(b, from, to - from).stringValue();
    }

    /**
     * Objects and arrays nested at most this deep inside a kept value are built here; deeper
     * ones are left to the mapper (which also enforces max-nesting-depth), so this recursion is
     * bounded whatever a document holds.
     */
    static final int MAX_BUILT_DEPTH = 16;

    /** The value at the cursor, entire, the cursor moved past it. */
    private JsonNode whole(Cursor c) {
        return whole(c, 0);
    }

    /**
     * {@link #whole(Cursor)} for a value {@code depth} containers inside a kept one. A container
     * is built here, node by node, as the mapper builds it (an {@code _id}'s {@code {"$oid":..}}
     * once cost a parser, its buffers and a deserialization context from the mapper per row).
     */
    private JsonNode whole(Cursor c, int depth) {
        byte[] b = c.b;
        int from = c.at;
        byte x = b[from];
        if (x == '{' && StoredFields.isOidObject(b, from)) { // an _id, an _etag: no field name to read
            c.at = from + StoredFields.OID_LENGTH;
            ObjectNode oid = nodes.objectNode();
            oid.set("$oid", nodes.stringNode(new String(b, from + StoredFields.OID_DIGITS, 24, StandardCharsets.UTF_8)));
            return oid;
        }
        if ((x == '{' || x == '[') && depth < MAX_BUILT_DEPTH) {
            return x == '{' ? object(c, depth) : array(c, depth);
        }
        if (x == '"') {
            boolean[] escaped = new boolean[1];
            int end = c.stringEnd(escaped);
            c.at = end + 1;
            return escaped[0] ? mapper.readTree(b, from, end + 1 - from)
                    : nodes.stringNode(new String(b, from + 1, end - from - 1, StandardCharsets.UTF_8));
        }
        c.skip();
        int to = c.at;
        if (x == 't' && to - from == 4) {
            return nodes.booleanNode(true);
        }
        if (x == 'f' && to - from == 5) {
            return nodes.booleanNode(false);
        }
        if (x == 'n' && to - from == 4) {
            return nodes.nullNode();
        }
        JsonNode integer = integer(b, from, to);
        return integer != null ? integer : mapper.readTree(b, from, to - from);
    }

    /** The object at the cursor, every field kept: the cursor moved past it. */
    private ObjectNode object(Cursor c, int depth) {
        ObjectNode o = nodes.objectNode();
        if (c.opensEmpty('}')) {
            return o;
        }
        boolean[] escaped = new boolean[1];
        do {
            int end = c.fieldName(escaped);
            String name = escaped[0] ? name(c.b, c.nameStart - 1, end + 1)
                    : new String(c.b, c.nameStart, end - c.nameStart, StandardCharsets.UTF_8);
            c.blanks();
            o.set(name, whole(c, depth + 1));
        } while (c.next() != '}');
        return o;
    }

    /** The array at the cursor, every element kept: the cursor moved past it. */
    private ArrayNode array(Cursor c, int depth) {
        ArrayNode a = nodes.arrayNode();
        if (c.opensEmpty(']')) {
            return a;
        }
        do {
            c.blanks();
            a.add(whole(c, depth + 1));
        } while (c.next() != ']');
        return a;
    }

    /** An integer of up to 18 digits as the mapper makes it (an int when it fits), else null. */
    private JsonNode integer(byte[] b, int from, int to) {
        long v = integer18(b, from, to);
        if (v == NOT_PLAIN_INTEGER) {
            return null;
        }
        return v == (int) v ? nodes.numberNode((int) v) : nodes.numberNode(v);
    }

    /** What {@link #plainInteger} answers for anything but an integer of up to 18 digits (it has 19). */
    public static final long NOT_PLAIN_INTEGER = Long.MIN_VALUE;

    private static long integer18(byte[] b, int from, int to) {
        int i = from;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        int digits = to - i;
        if (digits < 1 || digits > 18 || (b[i] == '0' && digits > 1)) {
            return NOT_PLAIN_INTEGER;
        }
        long v = 0;
        for (; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                return NOT_PLAIN_INTEGER;
            }
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }

    // --- values read in place, for evaluations on the stored bytes (aggregate/StoredGroup) ---------

    /**
     * The value starting at {@code at} (a {@link TopFields} start) as a plain integer (up to 18
     * digits: what the reader makes an int or a long of), else {@link #NOT_PLAIN_INTEGER}.
     */
    public static long plainInteger(byte[] b, int at) {
        Cursor c = new Cursor(b);
        c.at = at;
        c.skip();
        return integer18(b, at, c.at);
    }

    /**
     * When the value starting at {@code at} is a string without escapes, the index of its closing
     * quote (its UTF-8 bytes are those between), else -1.
     */
    public static int plainStringEnd(byte[] b, int at) {
        return b[at] == '"' ? StoredFields.plainStringEnd(b, at) : -1;
    }

    /** The value starting at {@code at}, entire, as {@link #read} makes it. */
    public JsonNode valueAt(byte[] b, int at) {
        Cursor c = new Cursor(b);
        c.at = at;
        return whole(c);
    }

    /**
     * Finds where given top-level fields of a stored document start, on its bytes: from both
     * ends, in the order the last document needed ({@link StoredFields}); for a document that walk
     * does not read (an escaped field name), one pass from the start that decodes escaped names
     * and compares the others as bytes, skipping every other value unread, stopping once each
     * name is found (a stored document names each field once). Used by one thread.
     */
    public final class TopFields {
        private final String[] names;
        private final byte[][] utf8;
        private final StoredFields.Reader bothEnds;

        public TopFields(java.util.List<String> names) {
            this.names = names.toArray(String[]::new);
            this.utf8 = new byte[this.names.length][];
            for (int i = 0; i < this.names.length; i++) {
                utf8[i] = this.names[i].getBytes(StandardCharsets.UTF_8);
            }
            this.bothEnds = new StoredFields(names).reader();
        }

        /** Fills {@code starts[i]} with where the value of name i starts in {@code body}, -1 when it has none. */
        public void locate(byte[] body, int[] starts) {
            if (bothEnds.locate(body)) {
                for (int i = 0; i < starts.length; i++) {
                    starts[i] = bothEnds.start(i);
                }
                return;
            }
            java.util.Arrays.fill(starts, -1);
            Cursor c = new Cursor(body);
            if (c.next() != '{' || c.next() == '}') {
                return;
            }
            c.at--;
            boolean[] escaped = new boolean[1];
            int found = 0;
            while (true) {
                int end = c.fieldName(escaped);
                int i = escaped[0] ? indexOf(name(body, c.nameStart - 1, end + 1)) : indexOf(body, c.nameStart, end);
                c.blanks();
                if (i >= 0 && starts[i] < 0) {
                    starts[i] = c.at;
                    if (++found == names.length) {
                        return;
                    }
                }
                c.skip();
                if (c.next() == '}') {
                    return;
                }
            }
        }

        private int indexOf(byte[] b, int from, int to) {
            for (int i = 0; i < utf8.length; i++) {
                if (java.util.Arrays.equals(utf8[i], 0, utf8[i].length, b, from, to)) {
                    return i;
                }
            }
            return -1;
        }

        private int indexOf(String name) {
            return java.util.Arrays.asList(names).indexOf(name);
        }
    }
}
