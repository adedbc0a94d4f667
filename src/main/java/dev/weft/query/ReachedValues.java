package dev.weft.query;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * The values one walk reaches, in the order a test expanding arrays meets them, recorded by
 * walking with this as the {@link Path.Leaf}: what lets {@link ArrayKeys} answer a remembered
 * walk for any number of filters. Each value tested counts one value test; an array the walk
 * steps over counts its size. Kept: for each {@link EqualityKeys key}, the tests counted up to
 * and including its first value; the values of the ordered brackets with the tests counted up to
 * each (scanned in order for the first range asked, sorted from the second on); the tests of the
 * whole walk.
 *
 * <p>A test answered here is one whose every value tested costs one value test and whose answer
 * depends on the value alone; then the walk stops at the first value passing, having counted
 * what is kept for that value, or counts the whole walk.
 */
final class ReachedValues implements Path.Leaf {
    /** What a test asks when nothing it looks for was reached. */
    static final long NONE = Long.MAX_VALUE;

    private final Map<Object, Long> testsToFirst;
    private JsonNode[] ordered = new JsonNode[16];
    private long[] orderedTests = new long[16];
    private int orderedCount;
    private Map<Values.Bracket, SortedValues> sorted;
    /** Range lookups so far: the first scans the values, the second sorts them. */
    private int rangesAsked;
    private long tests;

    /** For a walk of about {@code values} values (an array's size): the map is not grown while recording. */
    ReachedValues(int values) {
        testsToFirst = HashMap.newHashMap(values);
    }

    /** Whether a range on an operand of {@code bracket} is answered here (its values are kept in order). */
    static boolean ordersBracket(Values.Bracket bracket) {
        return SortedValues.ORDERED.contains(bracket);
    }

    /** The elements of a leaf array, as a test expanding it tests them. */
    static void elementsOf(JsonNode array, ReachedValues values) {
        for (JsonNode element : array) {
            values.tested(element);
        }
    }

    /** Counted as {@code Node.Field} visits it: the value, then an array's elements. */
    @Override
    public boolean visit(JsonNode valueOrNull) {
        tested(valueOrNull);
        if (valueOrNull != null && valueOrNull.isArray()) {
            elementsOf(valueOrNull, this);
        }
        return false; // the whole walk is recorded
    }

    @Override
    public void crossing(JsonNode array) {
        tests += array.size();
    }

    private void tested(JsonNode valueOrNull) {
        tests++;
        Object key = EqualityKeys.of(valueOrNull);
        if (key != null) {
            testsToFirst.putIfAbsent(key, tests);
        }
        if (SortedValues.ORDERED.contains(Values.bracket(valueOrNull))) {
            if (orderedCount == ordered.length) {
                ordered = Arrays.copyOf(ordered, orderedCount * 2);
                orderedTests = Arrays.copyOf(orderedTests, orderedCount * 2);
            }
            ordered[orderedCount] = valueOrNull;
            orderedTests[orderedCount++] = tests;
        }
    }

    /**
     * Whether the walk reaches a value {@code test} passes ({@link ValuePredicate#firstPassing});
     * {@code budget} is charged what the walk counts until it stops there, or the whole walk.
     */
    boolean anyPassing(ValuePredicate test, MatchBudget budget) {
        long first = test.firstPassing(this);
        boolean found = first != NONE;
        budget.spend(found ? first : tests);
        return found;
    }

    /** The tests counted up to the first value with one of {@code keys}, or {@link #NONE}. */
    long firstWithKey(Set<Object> keys) {
        long first = NONE;
        for (Object key : keys) {
            Long at = testsToFirst.get(key);
            if (at != null && at < first) {
                first = at;
            }
        }
        return first;
    }

    /**
     * The tests counted up to the first value of {@code operand}'s bracket that compares to it
     * ({@link Values#compare}) above it ({@code above}) or below it, or equal too when
     * {@code orEqual}; {@link #NONE} when there is none.
     */
    long firstInOrder(JsonNode operand, boolean above, boolean orEqual) {
        if (sorted == null && rangesAsked++ == 0) {
            return firstInOrderScanned(operand, above, orEqual); // a sort pays from the second range on
        }
        if (sorted == null) {
            sorted = SortedValues.byBracket(Arrays.copyOf(ordered, orderedCount), Arrays.copyOf(orderedTests, orderedCount));
        }
        SortedValues values = sorted.get(Values.sortBracket(Values.bracket(operand)));
        return values == null ? NONE : values.first(operand, above, orEqual);
    }

    private long firstInOrderScanned(JsonNode operand, boolean above, boolean orEqual) {
        Values.Bracket bracket = Values.sortBracket(Values.bracket(operand));
        for (int i = 0; i < orderedCount; i++) {
            if (Values.bracket(ordered[i]) == bracket) {
                int c = Values.compare(ordered[i], operand);
                if (c == 0 ? orEqual : (c > 0) == above) {
                    return orderedTests[i];
                }
            }
        }
        return NONE;
    }

    /**
     * The values of one bracket sorted by {@link Values#compare}, with the least tests counted
     * up to any of a prefix, and of a suffix, of them: a range's values are a prefix or a suffix.
     */
    private static final class SortedValues {
        /** The brackets whose values a range test sorts here: scalars, one order each. */
        static final Set<Values.Bracket> ORDERED = EnumSet.of(Values.Bracket.NUMBER, Values.Bracket.STRING,
                Values.Bracket.OBJECT_ID, Values.Bracket.BOOLEAN, Values.Bracket.DATE);

        private final JsonNode[] values;
        private final long[] leastToHere;
        private final long[] leastFromHere;

        private SortedValues(JsonNode[] values, long[] tests) {
            this.values = values;
            int n = values.length;
            leastToHere = new long[n];
            leastFromHere = new long[n];
            for (int i = 0; i < n; i++) {
                leastToHere[i] = Math.min(tests[i], i > 0 ? leastToHere[i - 1] : NONE);
            }
            for (int i = n - 1; i >= 0; i--) {
                leastFromHere[i] = Math.min(tests[i], i < n - 1 ? leastFromHere[i + 1] : NONE);
            }
        }

        static Map<Values.Bracket, SortedValues> byBracket(JsonNode[] values, long[] tests) {
            Integer[] order = new Integer[values.length];
            Arrays.setAll(order, i -> i);
            Arrays.sort(order, (a, b) -> Values.compare(values[a], values[b]));
            Map<Values.Bracket, SortedValues> out = new EnumMap<>(Values.Bracket.class);
            for (int start = 0; start < order.length; ) {
                Values.Bracket bracket = Values.bracket(values[order[start]]);
                int end = start;
                while (end < order.length && Values.bracket(values[order[end]]) == bracket) {
                    end++;
                }
                JsonNode[] run = new JsonNode[end - start];
                long[] runTests = new long[end - start];
                for (int i = start; i < end; i++) {
                    run[i - start] = values[order[i]];
                    runTests[i - start] = tests[order[i]];
                }
                out.put(bracket, new SortedValues(run, runTests));
                start = end;
            }
            return out;
        }

        long first(JsonNode operand, boolean above, boolean orEqual) {
            // the first position whose value is above the operand (orEqual: not below it)
            int lo = 0;
            int hi = values.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                int c = Values.compare(values[mid], operand);
                if (c > 0 || (c == 0 && (above == orEqual))) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            if (above) {
                return lo < values.length ? leastFromHere[lo] : NONE;
            }
            return lo > 0 ? leastToHere[lo - 1] : NONE;
        }
    }
}
