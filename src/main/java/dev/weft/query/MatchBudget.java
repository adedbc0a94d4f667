package dev.weft.query;

/**
 * A cap on the work one evaluation of filters may do, in value tests: each value a path reaches
 * and a test looks at (an array's elements each count), each array element a path steps over,
 * each {@code $in} operand that is not hashed, and one more per 64 characters a {@code $regex}
 * reads. Past the cap, {@link Filter#matches(tools.jackson.databind.JsonNode, MatchBudget)}
 * throws {@link Exceeded}. Not thread-safe: one budget per evaluating thread, {@link #reset}
 * before each unit of work it caps (the change-stream dispatcher: per event and subscriber).
 */
public final class MatchBudget {
    /** No cap: what {@link Filter#matches(tools.jackson.databind.JsonNode)} runs with. Shared; never written. */
    public static final MatchBudget UNLIMITED = new MatchBudget(false);

    /** Thrown when a budget runs out; one instance, without a stack trace (it is control flow). */
    public static final class Exceeded extends RuntimeException {
        private Exceeded() {
            super("match budget exceeded", null, false, false);
        }
    }

    private static final Exceeded EXCEEDED = new Exceeded();

    private final boolean limited;
    private final ArrayKeys arrays;
    private long left;

    private MatchBudget(boolean limited, ArrayKeys arrays) {
        this.limited = limited;
        this.arrays = arrays;
    }

    private MatchBudget(boolean limited) {
        this(limited, ArrayKeys.NONE);
    }

    /** A budget of {@code limit} value tests. */
    public static MatchBudget of(long limit) {
        return of(limit, ArrayKeys.NONE);
    }

    /**
     * A budget of {@code limit} value tests whose evaluations look large arrays' elements up in
     * {@code arrays} (shared with the owner's other budgets; the same answers and tests as a walk).
     */
    public static MatchBudget of(long limit, ArrayKeys arrays) {
        MatchBudget b = new MatchBudget(true, arrays);
        b.left = limit;
        return b;
    }

    /** The arrays this budget's evaluations remember ({@link ArrayKeys#NONE} for none). */
    ArrayKeys arrays() {
        return arrays;
    }

    /** Starts over with {@code limit} value tests. */
    public void reset(long limit) {
        left = limit;
    }

    boolean limited() {
        return limited;
    }

    /** Counts {@code tests} value tests; {@link Exceeded} when the budget is spent. */
    void spend(long tests) {
        if (limited && (left -= tests) < 0) {
            throw EXCEEDED;
        }
    }
}
