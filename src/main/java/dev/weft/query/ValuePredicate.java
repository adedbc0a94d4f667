package dev.weft.query;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;

/**
 * A test of one value reached by a path (Java null when the path reached nothing), and the index
 * intervals that hold every value passing it. Operands are checked and compiled at parse time.
 */
abstract class ValuePredicate {

    abstract boolean test(JsonNode valueOrNull);

    /** {@link #test(JsonNode)}, charged to {@code budget}: one value test, unless the test says otherwise. */
    boolean test(JsonNode valueOrNull, MatchBudget budget) {
        budget.spend(1);
        return test(valueOrNull);
    }

    /**
     * Strings the stored JSON of a document holding a value that passes must contain
     * ({@link TextCondition}); {@link TextCondition#ALWAYS} when the test implies none.
     */
    TextCondition required() {
        return TextCondition.ALWAYS;
    }

    /** Whether an array value also passes when one of its elements does. */
    boolean expands() {
        return true;
    }

    /**
     * The {@link EqualityKeys keys} that decide this test alone, each value tested costing one
     * value test: a value passes exactly when it has one of these keys. Null when the test is not
     * only that ({@link ArrayKeys} then cannot stand for it).
     */
    Set<Object> keys() {
        return null;
    }

    /**
     * Whether a {@link ReachedValues recorded walk} answers this test as the walk does: each
     * value tested costs one value test and passes by its key ({@link #keys}) or its order alone.
     */
    boolean answersFromRecord() {
        return keys() != null;
    }

    /**
     * The value tests a walk recorded in {@code reached} counts up to the first value passing
     * this test, or {@link ReachedValues#NONE}; only when {@link #answersFromRecord}.
     */
    long firstPassing(ReachedValues reached) {
        return reached.firstWithKey(keys());
    }

    /**
     * Intervals holding the index key of every value that passes, expanded as index keys are
     * (array elements; an empty array as itself); null when they would not narrow.
     */
    List<Interval> bounds() {
        return null;
    }

    /** Bounds for a path below this one (only {@code $elemMatch} on documents knows them). */
    List<Interval> boundsInside(String subPath, boolean multikey) {
        return null;
    }

    static boolean sameBracket(JsonNode value, Values.Bracket bracket) {
        return Values.sortBracket(Values.bracket(value)) == bracket;
    }

    /** Index intervals of the values equal to {@code operand}, alone or as an array element. */
    static List<Interval> equalityBounds(JsonNode operand) {
        if (operand.isArray()) {
            // An array equal to the operand is indexed by its elements: the first one is a key.
            List<Interval> b = new ArrayList<>(2);
            b.add(Interval.point(operand));
            if (!operand.isEmpty()) {
                b.add(Interval.point(operand.get(0)));
            }
            return b;
        }
        return List.of(Interval.point(operand));
    }

    /** {@code $eq} and implicit equality; {@code null} equals missing. */
    static final class Eq extends ValuePredicate {
        private final JsonNode operand;
        private final Values.Bracket bracket;
        /** The operand's {@link EqualityKeys key} alone, or null when it has none. */
        private final Set<Object> keys;

        Eq(JsonNode operand) {
            this.operand = operand;
            this.bracket = Values.sortBracket(Values.bracket(operand));
            Object key = EqualityKeys.of(operand);
            this.keys = key == null ? null : Set.of(key);
        }

        /** The operand's {@link EqualityKeys key}, or null. */
        Object key() {
            return keys == null ? null : keys.iterator().next();
        }

        @Override
        Set<Object> keys() {
            return keys;
        }

        @Override
        boolean test(JsonNode value) {
            if (!sameBracket(value, bracket)) {
                return false;
            }
            if (bracket == Values.Bracket.STRING) {
                return operand.stringValue().equals(value.stringValue());
            }
            return Values.compare(value, operand) == 0;
        }

        @Override
        List<Interval> bounds() {
            return equalityBounds(operand);
        }

        @Override
        TextCondition required() {
            return operand.isString() ? TextCondition.jsonString(operand.stringValue()) : TextCondition.ALWAYS;
        }

        @Override
        public String toString() {
            return "$eq " + operand;
        }
    }

    /**
     * {@code $in}: equal to one of the values or matching one of the patterns. Operands with an
     * {@link EqualityKeys key} are found in a hash set, in one lookup whatever their number; the
     * others (patterns, null, objects, arrays, NaN) are tried one by one.
     */
    static final class In extends ValuePredicate {
        private final ValuePredicate[] alternatives;
        private final Set<Object> keys = new HashSet<>();
        private final ValuePredicate[] unkeyed;

        In(List<ValuePredicate> alternatives) {
            this.alternatives = alternatives.toArray(ValuePredicate[]::new);
            List<ValuePredicate> rest = new ArrayList<>();
            for (ValuePredicate alternative : alternatives) {
                Object key = alternative instanceof Eq eq ? eq.key() : null;
                if (key != null) {
                    keys.add(key);
                } else {
                    rest.add(alternative);
                }
            }
            this.unkeyed = rest.toArray(ValuePredicate[]::new);
        }

        @Override
        boolean test(JsonNode value) {
            if (!keys.isEmpty()) {
                Object key = EqualityKeys.of(value);
                if (key != null && keys.contains(key)) {
                    return true;
                }
            }
            for (ValuePredicate alternative : unkeyed) {
                if (alternative.test(value)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        boolean test(JsonNode value, MatchBudget budget) {
            budget.spend(1 + unkeyed.length);
            return test(value);
        }

        @Override
        Set<Object> keys() {
            return unkeyed.length == 0 && !keys.isEmpty() ? keys : null;
        }

        @Override
        List<Interval> bounds() {
            List<Interval> union = new ArrayList<>();
            for (ValuePredicate alternative : alternatives) {
                union.addAll(alternative.bounds());
            }
            return union;
        }

        @Override
        TextCondition required() {
            List<TextCondition> any = new ArrayList<>();
            for (ValuePredicate alternative : alternatives) {
                any.add(alternative.required());
            }
            return TextCondition.or(any);
        }

        @Override
        public String toString() {
            return "$in " + List.of(alternatives);
        }
    }

    /** {@code $gt $gte $lt $lte}: only values of the operand's type bracket compare. */
    static final class Compare extends ValuePredicate {
        enum Op { GT, GTE, LT, LTE }

        private final Op op;
        private final JsonNode operand;
        private final Values.Bracket bracket;

        Compare(Op op, JsonNode operand) {
            this.op = op;
            this.operand = operand;
            this.bracket = Values.sortBracket(Values.bracket(operand));
        }

        @Override
        boolean test(JsonNode value) {
            if (!sameBracket(value, bracket)) {
                return false;
            }
            int c = Values.compare(value, operand);
            return switch (op) {
                case GT -> c > 0;
                case GTE -> c >= 0;
                case LT -> c < 0;
                case LTE -> c <= 0;
            };
        }

        /** On a scalar operand (one order per bracket; objects and arrays are walked). */
        @Override
        boolean answersFromRecord() {
            return ReachedValues.ordersBracket(bracket);
        }

        @Override
        long firstPassing(ReachedValues reached) {
            return reached.firstInOrder(operand, op == Op.GT || op == Op.GTE, op == Op.GTE || op == Op.LTE);
        }

        @Override
        List<Interval> bounds() {
            if (bracket == Values.Bracket.NULL) {
                return op == Op.GTE || op == Op.LTE ? List.of(Interval.point(operand)) : List.of();
            }
            if (bracket == Values.Bracket.ARRAY) {
                return null; // whole arrays are not index keys; their elements are
            }
            return List.of(op == Op.GT || op == Op.GTE ? Interval.atLeast(operand) : Interval.atMost(operand));
        }

        @Override
        public String toString() {
            return "$" + op.name().toLowerCase() + " " + operand;
        }
    }

    /** {@code $regex}: strings only, on RE2J (linear time whatever the pattern). */
    static final class Regex extends ValuePredicate {
        private final String pattern;
        private final Predicate<String> matcher;
        private final String literalPrefix;
        private final java.util.function.Supplier<TextCondition> literals;
        private volatile TextCondition required;

        Regex(String pattern, Predicate<String> matcher, String literalPrefix,
              java.util.function.Supplier<TextCondition> literals) {
            this.pattern = pattern;
            this.matcher = matcher;
            this.literalPrefix = literalPrefix;
            this.literals = literals;
        }

        /** Read from the pattern when first asked (most filters are never pushed into SQL). */
        @Override
        TextCondition required() {
            TextCondition r = required;
            if (r == null) {
                r = literals.get();
                required = r;
            }
            return r;
        }

        Predicate<String> matcher() {
            return matcher;
        }

        @Override
        boolean test(JsonNode value) {
            return value != null && value.isString() && matcher.test(value.stringValue());
        }

        @Override
        boolean test(JsonNode value, MatchBudget budget) {
            budget.spend(1 + (value != null && value.isString() ? value.stringValue().length() >> 6 : 0));
            return test(value);
        }

        @Override
        List<Interval> bounds() {
            return List.of(literalPrefix.isEmpty()
                    ? Interval.bracket(Values.Bracket.STRING)
                    : Interval.prefix(KeyEncoding.stringPrefix(literalPrefix)));
        }

        @Override
        public String toString() {
            return "$regex " + pattern;
        }
    }

    /** {@code $exists: true}; {@code false} is its negation. */
    static final class Exists extends ValuePredicate {
        static final Exists INSTANCE = new Exists();

        @Override
        boolean test(JsonNode value) {
            return value != null;
        }

        @Override
        boolean expands() {
            return false;
        }

        @Override
        public String toString() {
            return "$exists";
        }
    }

    /** {@code $type}, by any of several type names. */
    static final class Type extends ValuePredicate {
        private final BsonType[] types;

        Type(List<BsonType> types) {
            this.types = types.toArray(BsonType[]::new);
        }

        @Override
        boolean test(JsonNode value) {
            if (value == null) {
                return false;
            }
            for (BsonType t : types) {
                if (t.matches(value)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        List<Interval> bounds() {
            List<Interval> union = new ArrayList<>();
            for (BsonType t : types) {
                Values.Bracket b = t.bracket();
                if (b == null || b == Values.Bracket.ARRAY) {
                    return null;
                }
                union.add(Interval.bracket(b));
            }
            return union;
        }

        @Override
        public String toString() {
            return "$type " + List.of(types);
        }
    }

    /** {@code $size}: an array of exactly this many elements. */
    static final class Size extends ValuePredicate {
        private final int size;

        Size(int size) {
            this.size = size;
        }

        @Override
        boolean test(JsonNode value) {
            return value != null && value.isArray() && value.size() == size;
        }

        @Override
        boolean expands() {
            return false;
        }

        @Override
        public String toString() {
            return "$size " + size;
        }
    }

    /** {@code $mod: [divisor, remainder]}, on the value truncated to an integer as MongoDB does. */
    static final class Mod extends ValuePredicate {
        private final long divisor;
        private final long remainder;

        Mod(long divisor, long remainder) {
            this.divisor = divisor;
            this.remainder = remainder;
        }

        @Override
        boolean test(JsonNode value) {
            if (value == null || !value.isNumber()) {
                return false;
            }
            if (value.isIntegralNumber() && value.canConvertToLong()) {
                return value.longValue() % divisor == remainder;
            }
            double d = value.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return false;
            }
            return (long) d % divisor == remainder;
        }

        @Override
        List<Interval> bounds() {
            return List.of(Interval.bracket(Values.Bracket.NUMBER));
        }

        @Override
        public String toString() {
            return "$mod [" + divisor + ", " + remainder + "]";
        }
    }

    /**
     * {@code $elemMatch}: an array with one element passing every condition. In the document form
     * ({@code {$elemMatch: {b: 1}}}) the element must be a document and the conditions are a
     * filter on it; in the value form ({@code {$elemMatch: {$gt: 1}}}) they test the element.
     */
    static final class ElemMatch extends ValuePredicate {
        private final Node condition;
        private final boolean documentForm;

        ElemMatch(Node condition, boolean documentForm) {
            this.condition = condition;
            this.documentForm = documentForm;
        }

        @Override
        boolean test(JsonNode value) {
            return test(value, MatchBudget.UNLIMITED);
        }

        @Override
        boolean test(JsonNode value, MatchBudget budget) {
            budget.spend(1);
            if (value == null || !value.isArray()) {
                return false;
            }
            for (JsonNode element : value) {
                if ((!documentForm || element.isObject()) && condition.matches(element, budget)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        TextCondition required() {
            return condition.requiredText();
        }

        /** Whether one element passes the conditions (also what {@code $pull} removes). */
        boolean matchesElement(JsonNode element) {
            return (!documentForm || element.isObject()) && condition.matches(element);
        }

        @Override
        boolean expands() {
            return false;
        }

        @Override
        List<Interval> bounds() {
            // The index keys of a path are its arrays' elements; every condition tests the same
            // element, so bounds on it may be intersected even on a multikey index.
            return documentForm ? null : condition.bounds(Path.SELF.dotted, false);
        }

        @Override
        List<Interval> boundsInside(String subPath, boolean multikey) {
            return documentForm ? condition.bounds(subPath, multikey) : null;
        }

        @Override
        public String toString() {
            return "$elemMatch " + condition;
        }
    }
}
