package dev.weft.query;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Turns a filter's per-field {@link Interval}s into key ranges of a (compound) index: points on
 * the leading fields multiply into key prefixes, the first non-point field adds its intervals
 * and ends the ranges, and every later field is left open by a prefix upper bound. The result
 * is sorted and merged, so a document with one key is found in one range only.
 */
final class KeyRanges {
    /** Cap on ranges from multiplying {@code $in} lists; past it later fields stay unbounded. */
    static final int MAX_RANGES = 1000;

    private KeyRanges() {}

    static Optional<List<KeyRange>> plan(Node filter, List<IndexField> fields, boolean multikey) {
        List<byte[]> prefixes = List.of(new byte[0]);
        List<KeyRange> ranges = null;
        for (IndexField field : fields) {
            List<Interval> intervals = filter.bounds(field.path(), multikey);
            if (intervals == null) {
                break;
            }
            if (intervals.isEmpty()) {
                return Optional.of(List.of());
            }
            if (field.direction() < 0) {
                intervals = intervals.stream().map(Interval::inverted).toList();
            }
            if (prefixes.size() * intervals.size() > MAX_RANGES) {
                break;
            }
            if (intervals.stream().allMatch(Interval::point)) {
                List<byte[]> longer = new ArrayList<>(prefixes.size() * intervals.size());
                for (byte[] prefix : prefixes) {
                    for (Interval point : intervals) {
                        longer.add(KeyEncoding.concat(prefix, point.low()));
                    }
                }
                prefixes = longer;
                continue;
            }
            ranges = new ArrayList<>();
            for (byte[] prefix : prefixes) {
                for (Interval interval : intervals) {
                    ranges.add(new KeyRange(KeyEncoding.concat(prefix, interval.low()),
                            KeyEncoding.prefixUpperBound(KeyEncoding.concat(prefix, interval.high()))));
                }
            }
            break;
        }
        if (ranges == null) {
            if (prefixes.size() == 1 && prefixes.get(0).length == 0) {
                return Optional.empty();
            }
            ranges = new ArrayList<>();
            for (byte[] prefix : prefixes) {
                ranges.add(new KeyRange(prefix, KeyEncoding.prefixUpperBound(prefix)));
            }
        }
        return Optional.of(merge(ranges));
    }

    private static List<KeyRange> merge(List<KeyRange> ranges) {
        ranges.sort(Comparator.comparing(KeyRange::low, Arrays::compareUnsigned));
        List<KeyRange> merged = new ArrayList<>(ranges.size());
        KeyRange current = null;
        for (KeyRange r : ranges) {
            if (current != null && Arrays.compareUnsigned(r.low(), current.high()) <= 0) {
                if (Arrays.compareUnsigned(r.high(), current.high()) > 0) {
                    current = new KeyRange(current.low(), r.high());
                }
            } else {
                if (current != null) {
                    merged.add(current);
                }
                current = r;
            }
        }
        if (current != null) {
            merged.add(current);
        }
        return List.copyOf(merged);
    }
}
