package dev.weft.query;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * A node of a compiled filter. Parsing builds the tree once; {@link #matches} then runs on every
 * candidate document without parsing, splitting paths or compiling patterns again.
 *
 * <p>{@link #bounds} is the planner's view: the encodings an index on {@code path} can hold for a
 * matching document, as a union of {@link Interval}s, or null when this node says nothing useful
 * about that path. An empty list means no document matches.
 */
abstract class Node implements Filter {

    @Override
    public final boolean matches(JsonNode document) {
        return matches(document, MatchBudget.UNLIMITED);
    }

    @Override
    public abstract boolean matches(JsonNode document, MatchBudget budget);

    List<Interval> bounds(String path, boolean multikey) {
        return null;
    }

    @Override
    public Optional<List<KeyRange>> keyRanges(List<IndexField> fields, boolean multikey) {
        return KeyRanges.plan(this, fields, multikey);
    }

    @Override
    public Set<String> paths() {
        Set<String> out = new TreeSet<>();
        addPaths(out);
        return out;
    }

    /** What a matching document's JSON text must contain; nothing for a negation or a foreign filter. */
    @Override
    public TextCondition requiredText() {
        return TextCondition.ALWAYS;
    }

    /** Nothing for a negation or a foreign filter. */
    @Override
    public TextCondition requiredStrings(String path) {
        return TextCondition.ALWAYS;
    }

    /** Adds the paths {@link #paths} reports; none for a node that reads no field. */
    void addPaths(Set<String> out) {}

    /**
     * Whether this filter's answer depends on nothing but the values at its {@link #paths}
     * (what lets a {@link DocumentHead} stand for the document); false for a text search and a
     * foreign filter.
     */
    boolean readsOnlyItsPaths() {
        return true;
    }

    static boolean allReadOnlyTheirPaths(Node[] nodes) {
        for (Node node : nodes) {
            if (!node.readsOnlyItsPaths()) {
                return false;
            }
        }
        return true;
    }

    /** A {@code $text} search: its index's fields are read once the store has bound it. */
    static final class Text extends Node {
        private final TextSearch search;

        Text(TextSearch search) {
            this.search = search;
        }

        @Override
        public boolean matches(JsonNode document, MatchBudget budget) {
            budget.spend(1);
            return search.matches(document);
        }

        @Override
        void addPaths(Set<String> out) {
            out.addAll(search.paths());
        }

        @Override
        boolean readsOnlyItsPaths() {
            return false;
        }

        @Override
        public Optional<TextSearch> textSearch() {
            return Optional.of(search);
        }

        @Override
        public String toString() {
            return search.toString();
        }
    }

    /** Matches every document. */
    static final class All extends Node {
        static final All INSTANCE = new All();

        @Override
        public boolean matches(JsonNode document, MatchBudget budget) {
            return true;
        }

        @Override
        public String toString() {
            return "{}";
        }
    }

    /** What each of {@code children} requires, in order: the operands of an $and or $or. */
    private static List<TextCondition> each(Node[] children, Function<Node, TextCondition> required) {
        List<TextCondition> all = new ArrayList<>(children.length);
        for (Node child : children) {
            all.add(required.apply(child));
        }
        return all;
    }

    /**
     * A conjunction. On a multikey index two bounds on one path are not intersected: an array can
     * satisfy {@code $gt} with one element and {@code $lt} with another. One of them is used.
     */
    static final class And extends Node {
        private final Node[] children;

        And(List<Node> children) {
            this.children = children.toArray(Node[]::new);
        }

        @Override
        boolean readsOnlyItsPaths() {
            return allReadOnlyTheirPaths(children);
        }

        @Override
        public boolean matches(JsonNode document, MatchBudget budget) {
            for (Node child : children) {
                if (!child.matches(document, budget)) {
                    return false;
                }
            }
            return true;
        }

        @Override
        List<Interval> bounds(String path, boolean multikey) {
            List<Interval> result = null;
            for (Node child : children) {
                List<Interval> b = child.bounds(path, multikey);
                if (b == null) {
                    continue;
                }
                if (result == null) {
                    result = b;
                } else if (multikey) {
                    result = narrower(result, b);
                } else {
                    result = intersect(result, b);
                }
            }
            return result;
        }

        /** Prefers bounds that are all points (they let compound keys continue), then fewer of them. */
        private static List<Interval> narrower(List<Interval> a, List<Interval> b) {
            boolean aPoints = a.stream().allMatch(Interval::point);
            boolean bPoints = b.stream().allMatch(Interval::point);
            if (aPoints != bPoints) {
                return aPoints ? a : b;
            }
            return b.size() < a.size() ? b : a;
        }

        private static List<Interval> intersect(List<Interval> a, List<Interval> b) {
            List<Interval> result = new ArrayList<>();
            for (Interval x : a) {
                for (Interval y : b) {
                    Interval both = x.intersect(y);
                    if (both != null) {
                        result.add(both);
                    }
                }
            }
            return result;
        }

        @Override
        void addPaths(Set<String> out) {
            for (Node child : children) {
                child.addPaths(out);
            }
        }

        @Override
        public TextCondition requiredText() {
            return TextCondition.and(each(children, Node::requiredText));
        }

        @Override
        public Optional<TextSearch> textSearch() {
            for (Node child : children) {
                Optional<TextSearch> t = child.textSearch();
                if (t.isPresent()) {
                    return t;
                }
            }
            return Optional.empty();
        }

        @Override
        public TextCondition requiredStrings(String path) {
            return TextCondition.and(each(children, child -> child.requiredStrings(path)));
        }

        @Override
        public String toString() {
            return "$and" + List.of(children);
        }
    }

    /** A disjunction; it narrows an index only when every branch does (the union of theirs). */
    static final class Or extends Node {
        private final Node[] children;

        Or(List<Node> children) {
            this.children = children.toArray(Node[]::new);
        }

        @Override
        boolean readsOnlyItsPaths() {
            return allReadOnlyTheirPaths(children);
        }

        @Override
        public boolean matches(JsonNode document, MatchBudget budget) {
            for (Node child : children) {
                if (child.matches(document, budget)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        List<Interval> bounds(String path, boolean multikey) {
            List<Interval> union = new ArrayList<>();
            for (Node child : children) {
                List<Interval> b = child.bounds(path, multikey);
                if (b == null) {
                    return null;
                }
                union.addAll(b);
            }
            return union;
        }

        @Override
        void addPaths(Set<String> out) {
            for (Node child : children) {
                child.addPaths(out);
            }
        }

        /** Only when every branch requires something: one of those. */
        @Override
        public TextCondition requiredText() {
            return TextCondition.or(each(children, Node::requiredText));
        }

        @Override
        public TextCondition requiredStrings(String path) {
            return TextCondition.or(each(children, child -> child.requiredStrings(path)));
        }

        @Override
        public String toString() {
            return "$or" + List.of(children);
        }
    }

    /** A negation ($nor, $not, $ne, $nin, $exists:false). It never narrows an index. */
    static final class Not extends Node {
        private final Node child;

        Not(Node child) {
            this.child = child;
        }

        @Override
        boolean readsOnlyItsPaths() {
            return child.readsOnlyItsPaths();
        }

        @Override
        public boolean matches(JsonNode document, MatchBudget budget) {
            return !child.matches(document, budget);
        }

        @Override
        void addPaths(Set<String> out) {
            child.addPaths(out);
        }

        @Override
        public String toString() {
            return "$not(" + child + ")";
        }
    }

    /**
     * A test of the values at one path: the document matches when any value reached passes. With
     * {@code expand}, a value that is an array also passes when one of its elements does
     * ({@code {a: 1}} matches {@code a: [1, 2]}); {@code $size} and {@code $elemMatch} look at
     * arrays whole, and inside a value-form {@code $elemMatch} elements are not expanded again.
     */
    static final class Field extends Node implements Path.Leaf {
        private final Path path;
        private final ValuePredicate test;
        private final boolean expand;

        Field(Path path, ValuePredicate test, boolean expand) {
            this.path = path;
            this.test = test;
            this.expand = expand && test.expands();
        }

        @Override
        public boolean matches(JsonNode document, MatchBudget budget) {
            return path.walk(document, budget.limited() ? new Budgeted(budget) : this);
        }

        @Override
        public boolean visit(JsonNode value) {
            return visit(value, MatchBudget.UNLIMITED);
        }

        private boolean visit(JsonNode value, MatchBudget budget) {
            if (test.test(value, budget)) {
                return true;
            }
            if (expand && value != null && value.isArray()) {
                if (remembered(value, budget)) {
                    Optional<ReachedValues> reached = budget.arrays().reached(value, "",
                            values -> ReachedValues.elementsOf(value, values));
                    if (reached.isPresent()) {
                        return reached.get().anyPassing(test, budget);
                    }
                }
                for (JsonNode element : value) {
                    if (test.test(element, budget)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /**
         * Whether {@code budget}'s {@link ArrayKeys} may answer for a walk of {@code array}: it
         * remembers such arrays, a record answers this test, and the test expands arrays as
         * {@link ReachedValues} records them.
         */
        private boolean remembered(JsonNode array, MatchBudget budget) {
            return expand && test.answersFromRecord() && budget.arrays().remembers(array);
        }

        /** This field's visits, charged to a budget (as are the array elements the walk steps over). */
        private final class Budgeted implements Path.Leaf {
            private final MatchBudget budget;

            Budgeted(MatchBudget budget) {
                this.budget = budget;
            }

            @Override
            public boolean visit(JsonNode value) {
                return Field.this.visit(value, budget);
            }

            @Override
            public void crossing(JsonNode array) {
                budget.spend(array.size());
            }

            /** An array of documents on the path ({@code readers.name}): looked up when remembered. */
            @Override
            public boolean across(Path path, JsonNode array, int step) {
                if (remembered(array, budget)) {
                    Optional<ReachedValues> reached = budget.arrays().reached(array, path.suffix(step),
                            values -> path.walkArray(array, step, values));
                    if (reached.isPresent()) {
                        return reached.get().anyPassing(test, budget);
                    }
                }
                return Path.Leaf.super.across(path, array, step);
            }
        }

        @Override
        List<Interval> bounds(String indexPath, boolean multikey) {
            if (path.dotted.equals(indexPath)) {
                return test.bounds();
            }
            if (indexPath.startsWith(path.dotted) && indexPath.length() > path.dotted.length()
                    && indexPath.charAt(path.dotted.length()) == '.') {
                return test.boundsInside(indexPath.substring(path.dotted.length() + 1), multikey);
            }
            return null;
        }

        @Override
        void addPaths(Set<String> out) {
            out.add(path.dotted);
        }

        @Override
        public TextCondition requiredText() {
            return test.required();
        }

        /** A regex's literals are literals of the string it matches (its text condition, cut where JSON escapes). */
        @Override
        public TextCondition requiredStrings(String indexPath) {
            return path.dotted.equals(indexPath) && test instanceof ValuePredicate.Regex ? test.required()
                    : TextCondition.ALWAYS;
        }

        @Override
        public String toString() {
            return path.dotted + ":" + test;
        }
    }

    /** Wraps a {@link Filter} that is not one of ours (it cannot narrow an index). */
    static final class Foreign extends Node {
        private final Filter filter;

        Foreign(Filter filter) {
            this.filter = filter;
        }

        @Override
        boolean readsOnlyItsPaths() {
            return false;
        }

        @Override
        public boolean matches(JsonNode document, MatchBudget budget) {
            return filter.matches(document, budget);
        }

        @Override
        void addPaths(Set<String> out) {
            out.addAll(filter.paths());
        }

        @Override
        public TextCondition requiredStrings(String path) {
            return filter.requiredStrings(path);
        }

        @Override
        public Optional<TextSearch> textSearch() {
            return filter.textSearch();
        }
    }
}
