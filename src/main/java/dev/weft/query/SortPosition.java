package dev.weft.query;

import java.util.Arrays;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * Where a document stands in a sort's order, as bytes: {@code key} is the concatenation of the
 * {@link KeyEncoding} of each sort field's sort key ({@link Sort#sortKey}: the least element of an
 * array ascending, the greatest descending), a descending field's bytes inverted, and {@code id}
 * the encoding of {@code _id}. Positions compare as unsigned bytes, key first, then id ascending:
 * exactly the order the stores return (ties on the sort key broken by ascending {@code _id}, also
 * on a reverse walk). For a sort an index serves, {@code key} is that index's key of the document
 * (inverted whole when the walk is reversed), which is what lets a position bound an index scan.
 *
 * <p>An empty array's sort key, which MongoDB sorts below null, is encoded as the single byte
 * {@link #EMPTY_ARRAY}, below every bracket byte.
 */
public record SortPosition(byte[] key, byte[] id) implements Comparable<SortPosition> {
    static final byte EMPTY_ARRAY = 0x01;

    /** The position of {@code doc} under {@code sort}. */
    public static SortPosition of(JsonNode doc, Sort sort) {
        byte[] key = new byte[0];
        for (IndexField f : sort.fields()) {
            boolean descending = f.direction() < 0;
            JsonNode value = Sort.sortKey(doc, Path.of(f.path()), descending);
            byte[] encoded = Sort.isEmptyArrayKey(value) ? new byte[] {EMPTY_ARRAY} : KeyEncoding.encode(value);
            if (descending) {
                KeyEncoding.invert(encoded);
            }
            key = KeyEncoding.concat(key, encoded);
        }
        return new SortPosition(key, KeyEncoding.encode(doc.get("_id")));
    }

    @Override
    public int compareTo(SortPosition other) {
        int c = Arrays.compareUnsigned(key, other.key);
        return c != 0 ? c : Arrays.compareUnsigned(id, other.id);
    }

    /**
     * The index key range that holds every position at or after this one when an index on
     * {@code indexFields} is walked for {@code sort}, or null when that index's order is not the
     * sort's (other paths, mixed directions) or it is multikey (its keys are then not sort keys).
     */
    public KeyRange rangeFromHere(Sort sort, List<IndexField> indexFields, boolean multikey) {
        if (multikey || sort.fields().size() != indexFields.size()) {
            return null;
        }
        boolean same = true;
        boolean opposite = true;
        for (int i = 0; i < indexFields.size(); i++) {
            IndexField s = sort.fields().get(i);
            IndexField x = indexFields.get(i);
            if (!s.path().equals(x.path())) {
                return null;
            }
            same &= s.direction() == x.direction();
            opposite &= s.direction() != x.direction();
        }
        if (same) {
            return new KeyRange(key, ABOVE_EVERY_KEY);
        }
        if (opposite) {
            byte[] high = key.clone();
            KeyEncoding.invert(high);
            return new KeyRange(new byte[0], high);
        }
        return null;
    }

    /** Above the first byte of every encoding, inverted or not (bracket bytes are 0x01..0x80). */
    private static final byte[] ABOVE_EVERY_KEY = {(byte) 0xFF};

    @Override
    public boolean equals(Object o) {
        return o instanceof SortPosition p && Arrays.equals(key, p.key) && Arrays.equals(id, p.id);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(id);
    }

    @Override
    public String toString() {
        return "SortPosition[" + java.util.HexFormat.of().formatHex(key) + "/" + java.util.HexFormat.of().formatHex(id) + "]";
    }
}
