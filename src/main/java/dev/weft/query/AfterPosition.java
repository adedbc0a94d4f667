package dev.weft.query;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A filter that also requires a document to come after {@code position} in {@code sort}'s order
 * (or at it, when {@code inclusive}): how a keyset cursor continues a walk, and how a deep page
 * starts at a known position. Every document is still checked in memory, so the answer is exact
 * whatever plan reads it; {@link #keyRanges} lets a walk of the index (or primary key) that
 * serves the sort start at the position instead of at the beginning.
 */
public record AfterPosition(Filter inner, Sort sort, SortPosition position, boolean inclusive) implements Filter {

    @Override
    public boolean matches(JsonNode document) {
        return reached(document) && inner.matches(document);
    }

    @Override
    public boolean matches(JsonNode document, MatchBudget budget) {
        return reached(document) && inner.matches(document, budget);
    }

    private boolean reached(JsonNode document) {
        int c = SortPosition.of(document, sort).compareTo(position);
        return inclusive ? c >= 0 : c > 0;
    }

    @Override
    public Optional<List<KeyRange>> keyRanges(List<IndexField> fields, boolean multikey) {
        Optional<List<KeyRange>> theirs = inner.keyRanges(fields, multikey);
        KeyRange ours = position.rangeFromHere(sort, fields, multikey);
        if (ours == null) {
            return theirs;
        }
        if (theirs.isEmpty()) {
            return Optional.of(List.of(ours));
        }
        List<KeyRange> both = new ArrayList<>();
        for (KeyRange r : theirs.get()) {
            byte[] low = max(r.low(), ours.low());
            byte[] high = min(r.high(), ours.high());
            if (Arrays.compareUnsigned(low, high) <= 0) {
                both.add(new KeyRange(low, high));
            }
        }
        return Optional.of(both);
    }

    private static byte[] max(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b) >= 0 ? a : b;
    }

    private static byte[] min(byte[] a, byte[] b) {
        return Arrays.compareUnsigned(a, b) <= 0 ? a : b;
    }

    /** The inner filter's paths and what the position compares: the sort's paths and {@code _id}. */
    @Override
    public Set<String> paths() {
        Set<String> paths = new java.util.HashSet<>(inner.paths());
        sort.fields().forEach(f -> paths.add(f.path()));
        paths.add("_id");
        return paths;
    }

    /** The inner filter's: a match after the position is a match of it. */
    @Override
    public TextCondition requiredStrings(String path) {
        return inner.requiredStrings(path);
    }

    @Override
    public java.util.Optional<TextSearch> textSearch() {
        return inner.textSearch();
    }
}
