package dev.weft.query;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Finds where given top-level fields of a stored JSON object start, on its bytes and without
 * allocating: the fields are read from both ends in turn, one from the end, one from the start,
 * until every name is found or the two ends meet, so a field near either end (an {@code _id}
 * first; a counter, a timestamp or an {@code _etag} appended last) costs a few fields' skips, not
 * a walk over the whole document.
 *
 * <p>Strings are skipped by searching eight bytes at a time for their closing quote (forwards)
 * or opening quote (backwards); a quote is escaped, part of the string, when an odd run of
 * backslashes precedes it. Nested objects and arrays are skipped by counting brackets outside
 * strings. A stored document names each field once (it is written from a tree), so the end a
 * field is found from does not matter.
 *
 * <p>Invariant: {@link Reader#locate} answers true only with exact starts; it answers false (the
 * caller then reads otherwise) for anything it does not read: not an object, an escaped field
 * name (it may spell one of the names), bytes that are not the JSON the server writes. The names
 * are shared by every thread; each thread reads with a {@link Reader} of its own.
 */
public final class StoredFields {
    private final byte[][] names;
    /** Of each name of at most eight bytes: those bytes as a little-endian word, and the mask of them. */
    private final long[] words;
    private final long[] masks;

    /** For distinct {@code names}. */
    public StoredFields(List<String> names) {
        if (names.stream().distinct().count() != names.size()) {
            throw new IllegalArgumentException("the names must be distinct: " + names);
        }
        this.names = new byte[names.size()][];
        this.words = new long[names.size()];
        this.masks = new long[names.size()];
        for (int i = 0; i < this.names.length; i++) {
            byte[] name = names.get(i).getBytes(StandardCharsets.UTF_8);
            this.names[i] = name;
            for (int j = 0; j < Math.min(8, name.length); j++) {
                words[i] |= (name[j] & 0xffL) << (8 * j);
                masks[i] |= 0xffL << (8 * j);
            }
        }
    }

    /** A reader of these fields, for one thread (it keeps where the last document's fields were). */
    public Reader reader() {
        return new Reader();
    }

    /**
     * Locates the fields in one document after another. It remembers how many fields from each
     * end of the last document it had to read to find what it found there, and reads the next
     * document so first (documents of a collection mostly share a layout: a sort field third
     * from the end is then found after three fields, none read from the start); past those
     * steps, or when they do not find everything, it reads one field from each end in turn. The
     * order only decides how soon the walk ends, never what it finds.
     */
    public final class Reader {
        private final int[] starts = new int[names.length];
        private int hintBack;
        private int hintFront;
        private byte[] b;
        /** The fields not read yet lie in [front, back): front just after '{' or a comma, back at a comma or the '}'. */
        private int front;
        private int back;
        private int found;

        private Reader() {}

        /** Where the value of name i starts in the last located document, -1 when it has none. */
        public int start(int i) {
            return starts[i];
        }

        /**
         * Finds the fields of {@code body}; false when the bytes are not read this way (then the
         * starts mean nothing).
         */
        public boolean locate(byte[] body) {
            for (int i = 0; i < starts.length; i++) {
                starts[i] = -1;
            }
            b = body;
            front = blanksAfter(body, 0);
            back = body.length - 1;
            while (back > 0 && isBlank(body[back])) {
                back--;
            }
            if (front >= back || body[front] != '{' || body[back] != '}') {
                return false;
            }
            front++;
            found = 0;
            int backSteps = 0;
            int frontSteps = 0;
            int usefulBack = 0;
            int usefulFront = 0;
            while (found < starts.length) {
                boolean fromBack = backSteps < hintBack || (frontSteps >= hintFront && backSteps <= frontSteps);
                int before = found;
                int step = fromBack ? stepBack() : stepFront();
                if (step == FAILED) {
                    return false;
                }
                if (fromBack) {
                    backSteps++;
                    usefulBack = found > before ? backSteps : usefulBack;
                } else {
                    frontSteps++;
                    usefulFront = found > before ? frontSteps : usefulFront;
                }
                if (step == MET) {
                    break;
                }
            }
            hintBack = usefulBack;
            hintFront = usefulFront;
            return true;
        }

        private static final int READ = 0;
        private static final int MET = 1;
        private static final int FAILED = 2;

        /** Reads the last unread field: READ, MET when none is left, FAILED when the bytes are not read this way. */
        private int stepBack() {
            byte[] b = this.b;
            int end = blanksBefore(b, back - 1);
            if (end < front) {
                return MET; // nothing left (an empty object)
            }
            int start = valueStartBefore(b, end);
            int colon = blanksBefore(b, start - 1);
            if (start <= front || b[colon] != ':') {
                return FAILED;
            }
            int nameEnd = blanksBefore(b, colon - 1);
            if (b[nameEnd] != '"') {
                return FAILED;
            }
            int q = nameStartBefore(b, nameEnd);
            if (q < 0) {
                return FAILED; // an escaped name may spell one of the names
            }
            found(indexOf(b, q + 1, nameEnd), start);
            back = blanksBefore(b, q - 1);
            if (b[back] == '{') {
                return MET;
            }
            return b[back] == ',' ? READ : FAILED;
        }

        /** Reads the first unread field, as {@link #stepBack} does the last. */
        private int stepFront() {
            byte[] b = this.b;
            int nameStart = blanksAfter(b, front);
            if (nameStart >= back) {
                return MET;
            }
            if (b[nameStart] != '"') {
                return FAILED;
            }
            int close = plainStringEnd(b, nameStart);
            if (close < 0) {
                return FAILED; // an escaped name
            }
            int value = blanksAfter(b, close + 1);
            if (value >= back || b[value] != ':') {
                return FAILED;
            }
            value = blanksAfter(b, value + 1);
            found(indexOf(b, nameStart + 1, close), value);
            if (found == starts.length) {
                return READ; // the rest is left unread
            }
            int after = blanksAfter(b, valueEnd(b, value));
            if (after >= back) {
                return after == back ? MET : FAILED;
            }
            if (b[after] != ',') {
                return FAILED;
            }
            front = after + 1;
            return READ;
        }

        private void found(int field, int start) {
            if (field >= 0 && starts[field] < 0) {
                starts[field] = start;
                found++;
            }
        }
    }

    private int indexOf(byte[] b, int from, int to) {
        int length = to - from;
        // a name is followed by at least its closing quote, ':' and a value byte: read as a word when eight bytes remain
        long word = from + 8 <= b.length ? (long) LONGS.get(b, from) : 0;
        for (int i = 0; i < names.length; i++) {
            byte[] name = names[i];
            if (name.length == length
                    && (length <= 8 && from + 8 <= b.length ? (word & masks[i]) == words[i] : sameBytes(b, from, name))) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code b} holds {@code name} at {@code from} (names are short: a plain loop beats a vectorized mismatch). */
    private static boolean sameBytes(byte[] b, int from, byte[] name) {
        for (int i = 0; i < name.length; i++) {
            if (b[from + i] != name[i]) {
                return false;
            }
        }
        return true;
    }

    // --- moving over the bytes ----------------------------------------------------------------

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5c5c5c5c5c5c5c5cL;
    private static final long LOW7 = 0x7f7f7f7f7f7f7f7fL;
    private static final long COLONS = 0x3a3a3a3a3a3a3a3aL;
    /** Added to a byte's low seven bits, sets its high bit exactly when they are above 0x20 (no carry out: 0x7f + 0x5f < 0x100). */
    private static final long ABOVE_SPACE = 0x5f5f5f5f5f5f5f5fL;

    /** The high bit of exactly each zero byte of {@code v} (no false ones, so it serves a search backwards too). */
    private static long zeros(long v) {
        return ~(((v & LOW7) + LOW7) | v | LOW7);
    }

    /** The high bit of exactly each byte of {@code v} at or below a space (0x00 to 0x20). */
    private static long atMostSpace(long v) {
        return ~(((v & LOW7) + ABOVE_SPACE) | v | LOW7);
    }

    /** One compare for every byte above a space (all of a compact document's bytes outside strings but blanks). */
    static boolean isBlank(byte x) {
        return (x & 0xff) <= ' ' && (x == ' ' || x == '\n' || x == '\r' || x == '\t');
    }

    static int blanksAfter(byte[] b, int i) {
        while (i < b.length && isBlank(b[i])) {
            i++;
        }
        return i;
    }

    static int blanksBefore(byte[] b, int i) {
        while (i > 0 && isBlank(b[i])) {
            i--;
        }
        return i;
    }

    /**
     * From an opening quote: the index of the closing one when no backslash comes between, else
     * -1 (the string has escapes).
     */
    static int plainStringEnd(byte[] b, int open) {
        int i = open + 1;
        while (i + 8 <= b.length) {
            long w = (long) LONGS.get(b, i);
            long found = zeros(w ^ QUOTES) | zeros(w ^ BACKSLASHES);
            if (found != 0) {
                i += Long.numberOfTrailingZeros(found) >>> 3;
                break;
            }
            i += 8;
        }
        while (i < b.length) {
            byte x = b[i];
            if (x == '"') {
                return i;
            }
            if (x == '\\') {
                return -1;
            }
            i++;
        }
        return -1;
    }

    /** From an opening quote: the index of the closing one (a quote after an odd run of backslashes is escaped). */
    static int closingQuote(byte[] b, int open) {
        int i = open + 1;
        while (true) {
            while (i + 8 <= b.length) {
                long found = zeros((long) LONGS.get(b, i) ^ QUOTES);
                if (found != 0) {
                    i += Long.numberOfTrailingZeros(found) >>> 3;
                    break;
                }
                i += 8;
            }
            while (b[i] != '"') {
                i++; // past the end only for bytes that are not JSON: an exception, never a wrong answer
            }
            if (escapedAt(b, i)) {
                i++;
            } else {
                return i;
            }
        }
    }

    /**
     * From a field name's closing quote: its opening quote, or -1 when a backslash comes first
     * (an escaped name). Eight bytes a round, most names in one.
     */
    static int nameStartBefore(byte[] b, int close) {
        int j = close - 1;
        while (j >= 8) {
            long w = (long) LONGS.get(b, j - 7);
            long found = zeros(w ^ QUOTES) | zeros(w ^ BACKSLASHES);
            if (found != 0) {
                int k = j - 7 + ((63 - Long.numberOfLeadingZeros(found)) >>> 3);
                return b[k] == '"' ? k : -1;
            }
            j -= 8;
        }
        while (b[j] != '"') {
            if (b[j] == '\\') {
                return -1;
            }
            j--;
        }
        return j;
    }

    /** From a closing quote: the index of the opening one. */
    static int openingQuote(byte[] b, int close) {
        int j = close - 1;
        while (true) {
            while (j >= 8) {
                long found = zeros((long) LONGS.get(b, j - 7) ^ QUOTES);
                if (found != 0) {
                    j = j - 7 + ((63 - Long.numberOfLeadingZeros(found)) >>> 3);
                    break;
                }
                j -= 8;
            }
            while (b[j] != '"') {
                j--;
            }
            if (escapedAt(b, j)) {
                j--;
            } else {
                return j;
            }
        }
    }

    /** Whether the quote at {@code i} follows an odd run of backslashes (the object's '{' ends any run). */
    private static boolean escapedAt(byte[] b, int i) {
        int backslashes = 0;
        while (b[i - 1 - backslashes] == '\\') {
            backslashes++;
        }
        return (backslashes & 1) == 1;
    }

    /** From a value's last byte: its first byte. */
    static int valueStartBefore(byte[] b, int last) {
        byte x = b[last];
        if (x == '"') {
            return openingQuote(b, last);
        }
        if (x == '}' && last >= OID_LENGTH - 1 && isOid(b, last - OID_LENGTH + 1)) {
            return last - OID_LENGTH + 1;
        }
        if (x == '}' || x == ']') {
            int depth = 0;
            for (int j = last; ; j--) {
                x = b[j];
                if (x == '"') {
                    j = openingQuote(b, j);
                } else if (x == '}' || x == ']') {
                    depth++;
                } else if ((x == '{' || x == '[') && --depth == 0) {
                    return j;
                }
            }
        }
        return scalarStartBefore(b, last);
    }

    /** {@code {"$oid":"} then 24 bytes then {@code "}}: an ObjectId as Weft writes every {@code _etag} (and most {@code _id}s). */
    static final int OID_LENGTH = 35;
    /** The bytes {@code {"$oid":} as a little-endian word. */
    private static final long OID_HEAD = 0x3a2264696f24227bL;

    /**
     * Whether an ObjectId's extended JSON starts at {@code at}: {@code {"$oid":"}, 24 bytes
     * holding no quote and no backslash, {@code "}}. Its start is then {@code at} exactly, as the
     * bracket walk would find it (no quote inside the 24 bytes, and the two quotes before them
     * follow a ':' and a '{', not a backslash), in three word reads instead of that walk; the
     * last field of every stored document is such an {@code _etag}.
     */
    private static boolean isOid(byte[] b, int at) {
        if ((long) LONGS.get(b, at) != OID_HEAD || b[at + 8] != '"' || b[at + 33] != '"') {
            return false;
        }
        for (int i = at + 9; i < at + 33; i += 8) {
            long w = (long) LONGS.get(b, i);
            if ((zeros(w ^ QUOTES) | zeros(w ^ BACKSLASHES)) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code b} holds, from {@code at}, an object of one field {@code $oid} whose value is
     * a string of 24 bytes without escapes, written as Weft writes every ObjectId:
     * {@code {"$oid":"} then those bytes then {@code "}} (no blanks). Its tree is that object,
     * the string being those bytes' UTF-8.
     */
    static boolean isOidObject(byte[] b, int at) {
        return at + OID_LENGTH <= b.length && b[at + OID_LENGTH - 1] == '}' && isOid(b, at);
    }

    /** Where the 24 bytes of an {@link #isOidObject} start, from the object's start. */
    static final int OID_DIGITS = 9;

    /**
     * Whether an {@link #isOidObject} whose 24 bytes are ASCII hex digits starts at {@code at}: a
     * value whose tree {@link Values} brackets as an ObjectId, whose digits are those bytes.
     */
    static boolean isHexOid(byte[] b, int at) {
        if (!isOidObject(b, at)) {
            return false;
        }
        for (int i = at + OID_DIGITS; i < at + OID_DIGITS + 24; i++) {
            if (HEX[b[i] & 0xff] < 0) {
                return false;
            }
        }
        return true;
    }

    /** The value of each ASCII hex digit, -1 for every other byte. */
    private static final byte[] HEX = new byte[256];

    static {
        Arrays.fill(HEX, (byte) -1);
        for (int d = 0; d < 16; d++) {
            HEX["0123456789abcdef".charAt(d)] = (byte) d;
            HEX["0123456789ABCDEF".charAt(d)] = (byte) d;
        }
    }

    /** The value of an ASCII hex digit, else -1. */
    static int hexDigit(byte x) {
        return HEX[x & 0xff];
    }

    /**
     * From the last byte of a number or a literal: its first byte, just after the nearest ':' or
     * byte at or below a space before that last byte (a blank, or a control byte that no JSON holds outside
     * strings, which the caller then refuses). Eight bytes a round, so the scalars of a document
     * (mostly shorter than that) cost one word and no branch per byte.
     */
    static int scalarStartBefore(byte[] b, int last) {
        int j = last - 1; // the last byte itself is the value's
        while (j >= 8) {
            long w = (long) LONGS.get(b, j - 7);
            long found = zeros(w ^ COLONS) | atMostSpace(w);
            if (found != 0) {
                return j - 7 + ((63 - Long.numberOfLeadingZeros(found)) >>> 3) + 1;
            }
            j -= 8;
        }
        while (j >= 0 && b[j] != ':' && (b[j] & 0xff) > ' ') {
            j--;
        }
        return j + 1;
    }

    /** From a value's first byte: the index just past it. */
    static int valueEnd(byte[] b, int at) {
        byte x = b[at];
        if (x == '"') {
            return closingQuote(b, at) + 1;
        }
        if (x == '{' || x == '[') {
            int depth = 0;
            for (int i = at; ; i++) {
                x = b[i];
                if (x == '"') {
                    i = closingQuote(b, i);
                } else if (x == '{' || x == '[') {
                    depth++;
                } else if ((x == '}' || x == ']') && --depth == 0) {
                    return i + 1;
                }
            }
        }
        int i = at;
        while (i < b.length && !isValueEnd(b[i])) {
            i++;
        }
        return i;
    }

    private static boolean isValueEnd(byte x) {
        return x == ',' || x == '}' || x == ']' || isBlank(x);
    }
}
