package dev.weft.query;

import java.util.ArrayDeque;

/**
 * An upper estimate of the number of instructions RE2J compiles a pattern into, read from the
 * pattern text before RE2J sees it. RE2J's simplifier rewrites {@code x{n,m}} as n copies of
 * {@code x} and m-n optional ones, and its compiler emits every copy: nested counted repetitions
 * multiply, so the 31 characters {@code ((((a{100}){100}){100}){100})} are 10^8 instructions,
 * gigabytes of heap, before a single string is matched. This is RE2's {@code max_mem} idea,
 * measured before the blow-up rather than during it.
 *
 * <p>Counted as RE2J's compiler does: one instruction per literal character, class, escape or
 * {@code .}; one more for each {@code *}, {@code +}, {@code ?} and {@code |}; two per group;
 * {@code x{n,m}} is n copies of x and m-n copies of x plus one. Iterative (an explicit stack of
 * open groups), so a deeply nested pattern cannot overflow the thread's stack here. Malformed
 * patterns get some estimate; RE2J reports their syntax error afterwards.
 */
final class RegexProgramSize {
    /** Sizes saturate here: far above any limit, far below overflow. */
    static final long SATURATED = 1L << 50;

    private RegexProgramSize() {}

    /** One open group (or the whole pattern): its finished alternatives and the one being read. */
    private static final class Group {
        long alternatives;
        int bars;
        long concat;
        /** The size of the last atom of {@code concat}, which a following quantifier repeats. */
        long last;

        void atom(long size) {
            last = size;
            concat = add(concat, size);
        }

        void repeatLast(long repeated) {
            concat = add(concat - last, repeated);
            last = repeated;
        }

        long size() {
            return add(add(alternatives, concat), bars);
        }
    }

    static long of(String pattern) {
        ArrayDeque<Group> open = new ArrayDeque<>();
        Group group = new Group();
        int i = 0;
        int n = pattern.length();
        while (i < n) {
            char c = pattern.charAt(i);
            switch (c) {
                case '(' -> {
                    i = skipGroupFlags(pattern, i + 1);
                    if (i < n && pattern.charAt(i) == ')' && pattern.charAt(i - 1) != '(') {
                        i++; // a flags-only group such as (?i): no instruction
                        continue;
                    }
                    open.push(group);
                    group = new Group();
                    continue;
                }
                case ')' -> {
                    long size = add(group.size(), 2);
                    group = open.isEmpty() ? new Group() : open.pop();
                    group.atom(size);
                    i++;
                }
                case '|' -> {
                    group.alternatives = add(group.alternatives, group.concat);
                    group.bars++;
                    group.concat = 0;
                    group.last = 0;
                    i++;
                }
                case '*', '+', '?' -> {
                    group.repeatLast(add(group.last, 1));
                    i = skipLazy(pattern, i + 1);
                }
                case '{' -> {
                    int[] counts = new int[2];
                    int end = repeatCounts(pattern, i, counts);
                    if (end < 0) {
                        group.atom(1); // not a repetition: a literal brace
                        i++;
                    } else {
                        group.repeatLast(repeated(group.last, counts[0], counts[1]));
                        i = skipLazy(pattern, end);
                    }
                }
                case '[' -> {
                    group.atom(1);
                    i = skipClass(pattern, i);
                }
                case '\\' -> {
                    if (i + 1 < n && pattern.charAt(i + 1) == 'Q') {
                        int end = pattern.indexOf("\\E", i + 2);
                        int stop = end < 0 ? n : end;
                        for (int k = i + 2; k < stop; k++) {
                            group.atom(1);
                        }
                        i = end < 0 ? n : end + 2;
                    } else {
                        group.atom(1);
                        i = skipEscape(pattern, i);
                    }
                }
                default -> {
                    group.atom(1);
                    i++;
                }
            }
        }
        while (!open.isEmpty()) {
            long size = add(group.size(), 2);
            group = open.pop();
            group.atom(size);
        }
        return group.size();
    }

    /** {@code x{min,max}} ({@code max} -1 when unbounded) as RE2J's simplifier expands it. */
    static long repeated(long x, int min, int max) {
        if (max == 0) {
            return 1;
        }
        if (max < 0) {
            return add(times(x, Math.max(min, 1)), 1);
        }
        return add(times(x, min), times(add(x, 1), max - min));
    }

    /**
     * Reads {@code {n}}, {@code {n,}} or {@code {n,m}} at {@code i} into {@code counts} (max -1
     * when unbounded) and answers the index after it, or -1 when the brace is a literal.
     */
    private static int repeatCounts(String p, int i, int[] counts) {
        int j = i + 1;
        int start = j;
        while (j < p.length() && Character.isDigit(p.charAt(j))) {
            j++;
        }
        if (j == start || j >= p.length()) {
            return -1;
        }
        counts[0] = count(p, start, j);
        counts[1] = counts[0];
        if (p.charAt(j) == ',') {
            int maxStart = ++j;
            while (j < p.length() && Character.isDigit(p.charAt(j))) {
                j++;
            }
            counts[1] = j == maxStart ? -1 : count(p, maxStart, j);
        }
        return j < p.length() && p.charAt(j) == '}' ? j + 1 : -1;
    }

    /** A repeat count; RE2J refuses any above 1000, so a longer run of digits only needs to be large. */
    private static int count(String p, int from, int to) {
        return to - from > 6 ? 1_000_000 : Integer.parseInt(p, from, to, 10);
    }

    private static int skipLazy(String p, int i) {
        return i < p.length() && p.charAt(i) == '?' ? i + 1 : i;
    }

    /** After {@code (}: skips {@code ?flags:}, {@code ?P<name>}, {@code ?<name>}, answering where the body starts. */
    private static int skipGroupFlags(String p, int i) {
        if (i >= p.length() || p.charAt(i) != '?') {
            return i;
        }
        int j = i + 1;
        if (j < p.length() && (p.charAt(j) == 'P' || p.charAt(j) == '<')) {
            int close = p.indexOf('>', j);
            return close < 0 ? p.length() : close + 1;
        }
        while (j < p.length() && p.charAt(j) != ':' && p.charAt(j) != ')') {
            j++;
        }
        return j < p.length() && p.charAt(j) == ':' ? j + 1 : j;
    }

    /** Skips a character class: a {@code ]} right after {@code [} or {@code [^} is a literal, escapes and {@code [:name:]} are skipped whole. */
    private static int skipClass(String p, int i) {
        int j = i + 1;
        if (j < p.length() && p.charAt(j) == '^') {
            j++;
        }
        if (j < p.length() && p.charAt(j) == ']') {
            j++;
        }
        while (j < p.length() && p.charAt(j) != ']') {
            if (p.charAt(j) == '\\') {
                j = skipEscape(p, j);
            } else if (p.startsWith("[:", j)) {
                int close = p.indexOf(":]", j + 2);
                j = close < 0 ? j + 1 : close + 2;
            } else {
                j++;
            }
        }
        return Math.min(j + 1, p.length());
    }

    /** Skips one escape: {@code \p{Name}}, {@code \x{10FFFF}} and {@code \pL} whole, others two characters. */
    private static int skipEscape(String p, int i) {
        int j = i + 1;
        if (j >= p.length()) {
            return p.length();
        }
        char kind = p.charAt(j);
        if ((kind == 'p' || kind == 'P' || kind == 'x') && j + 1 < p.length() && p.charAt(j + 1) == '{') {
            int close = p.indexOf('}', j);
            return close < 0 ? p.length() : close + 1;
        }
        if ((kind == 'p' || kind == 'P') && j + 1 < p.length()) {
            return j + 2;
        }
        return j + 1;
    }

    private static long add(long a, long b) {
        return Math.min(a + b, SATURATED);
    }

    private static long times(long a, long b) {
        if (a == 0 || b == 0) {
            return 0;
        }
        return a > SATURATED / b ? SATURATED : Math.min(a * b, SATURATED);
    }
}
