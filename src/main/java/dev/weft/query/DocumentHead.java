package dev.weft.query;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * A document's head: a compact JSON object of its smallest top-level members, stored beside the
 * body so that a scan whose paths all start with names the head holds reads a few dozen bytes a
 * row instead of the whole document (docs/decisions/0009-document-head.md).
 *
 * <p>Invariants, on which the answers' equality rests:
 * <ul>
 *   <li>Each held member is the body's own bytes, name and value, unchanged (not re-encoded), in
 *       the body's order: any filter, sort key or group key that reads only held names gives on
 *       the head exactly what it gives on the body, at any depth under those names.</li>
 *   <li>{@link Parts#rest} has {@link #bit} set for every top-level name of the body the head
 *       does not hold (other bits may be set too: it is a 64-bit Bloom filter). A name whose bit
 *       is clear is missing from the document as it is from the head, so a query whose names'
 *       bits are all clear in {@code rest} may read the head as if it were the document; any
 *       other row is read from its body.</li>
 *   <li>Members are taken smallest first (then in document order) while the head stays within
 *       the budget ({@code document-head-bytes}); a body that is not a JSON object, or an empty
 *       budget, has no head (null): the row is then always read from its body.</li>
 * </ul>
 */
public final class DocumentHead {
    private DocumentHead() {}

    /** A head and its names-not-held filter; {@code head} null when the body has none. */
    public record Parts(byte[] head, long rest) {}

    private static final Parts NONE = new Parts(null, -1L);

    /** One top-level member: its bytes {@code [from, to)} in the body, and its decoded name. */
    private record Member(int index, int from, int to, String name) {
        int length() {
            return to - from;
        }
    }

    /** The head of {@code body} within {@code budget} bytes. */
    public static Parts of(byte[] body, int budget) {
        List<Member> members = members(body);
        if (members == null || budget < 2) {
            return NONE;
        }
        List<Member> bySize = new ArrayList<>(members);
        bySize.sort(Comparator.comparingInt(Member::length)); // stable: ties keep document order
        boolean[] held = new boolean[members.size()];
        int size = 2;
        for (Member m : bySize) {
            int more = m.length() + (size == 2 ? 0 : 1);
            if (size + more > budget) {
                break;
            }
            size += more;
            held[m.index()] = true;
        }
        byte[] head = new byte[size];
        int at = 0;
        head[at++] = '{';
        long rest = 0;
        for (Member m : members) {
            if (!held[m.index()]) {
                rest |= bit(m.name());
                continue;
            }
            if (at > 1) {
                head[at++] = ',';
            }
            System.arraycopy(body, m.from(), head, at, m.length());
            at += m.length();
        }
        head[at] = '}';
        return new Parts(head, rest);
    }

    /**
     * The parts of a head worth storing: only a head of at most a quarter of its body. A head is
     * stored beside the body, so every byte of it is walked by scans that read bodies; it pays
     * only where it spares most of the row: measured on 1M rows, a 39 or 150 B head of a 1,155 B
     * YCSB body (3%, 13%) was 22% and 9% cheaper to read than the body, a 133 B head of a 431 B
     * seed-000 body (31%) no cheaper, while it made that table 28% larger and the 1M regex and
     * sort that read bodies 10-18% and 4-17% slower (bench/results/scan-head-1-row-cost.txt,
     * engine-26-big-heads.txt). A body whose head would be larger has none (read whole).
     */
    public static Parts stored(byte[] body, int budget) {
        Parts parts = of(body, budget);
        return parts.head() != null && parts.head().length > body.length / MIN_BODY_PER_HEAD_BYTE ? NONE : parts;
    }

    /** How many body bytes at least a stored head's every byte must spare ({@link #stored}). */
    static final int MIN_BODY_PER_HEAD_BYTE = 4;

    /** The bit of {@link Parts#rest} that stands for the top-level name {@code name}. */
    public static long bit(String name) {
        long h = name.hashCode() * 0x9E3779B97F4A7C15L; // String.hashCode is specified: stable across runs
        return 1L << (h >>> 58);
    }

    /** The bits of {@code names} together. */
    public static long bits(Set<String> names) {
        long mask = 0;
        for (String name : names) {
            mask |= bit(name);
        }
        return mask;
    }

    /**
     * The top-level names a filter and sort read, or empty when their answer may depend on more
     * than the values at their paths (a {@code $text} search, a sort by text score, a filter
     * Weft did not compile), so that the head cannot stand for the document.
     */
    public static Optional<Set<String>> namesRead(Filter filter, Sort sort) {
        if (!(filter instanceof Node node) || !node.readsOnlyItsPaths()) {
            return Optional.empty();
        }
        Set<String> names = new TreeSet<>();
        for (String path : filter.paths()) {
            names.add(topName(path));
        }
        if (sort != null) {
            if (sort.byTextScore()) {
                return Optional.empty();
            }
            for (IndexField field : sort.fields()) {
                names.add(topName(field.path()));
            }
        }
        return Optional.of(names);
    }

    /** The first name of a dotted path. */
    public static String topName(String path) {
        int dot = path.indexOf('.');
        return dot < 0 ? path : path.substring(0, dot);
    }

    /** The top-level members of a JSON object's bytes, or null when they are not one. */
    private static List<Member> members(byte[] b) {
        try {
            int i = StoredFields.blanksAfter(b, 0);
            if (i >= b.length || b[i] != '{') {
                return null;
            }
            List<Member> out = new ArrayList<>();
            i = StoredFields.blanksAfter(b, i + 1);
            if (i < b.length && b[i] == '}') {
                return out;
            }
            while (true) {
                if (b[i] != '"') {
                    return null;
                }
                int close = StoredFields.closingQuote(b, i);
                String name = name(b, i + 1, close);
                int value = StoredFields.blanksAfter(b, close + 1);
                if (b[value] != ':') {
                    return null;
                }
                value = StoredFields.blanksAfter(b, value + 1);
                int end = StoredFields.valueEnd(b, value);
                out.add(new Member(out.size(), i, end, name));
                i = StoredFields.blanksAfter(b, end);
                if (b[i] == '}') {
                    return StoredFields.blanksAfter(b, i + 1) == b.length ? out : null;
                }
                if (b[i] != ',') {
                    return null;
                }
                i = StoredFields.blanksAfter(b, i + 1);
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return null; // not JSON: no head, the body is read as before
        }
    }

    /** The name whose JSON string content lies in {@code [from, to)}, its escapes decoded. */
    static String name(byte[] b, int from, int to) {
        int slash = -1;
        for (int i = from; i < to; i++) {
            if (b[i] == '\\') {
                slash = i;
                break;
            }
        }
        if (slash < 0) {
            return new String(b, from, to - from, StandardCharsets.UTF_8);
        }
        StringBuilder out = new StringBuilder(new String(b, from, slash - from, StandardCharsets.UTF_8));
        int i = slash;
        while (i < to) {
            if (b[i] != '\\') {
                int next = i;
                while (next < to && b[next] != '\\') {
                    next++;
                }
                out.append(new String(b, i, next - i, StandardCharsets.UTF_8));
                i = next;
                continue;
            }
            char e = (char) b[i + 1];
            switch (e) {
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    out.append((char) Integer.parseInt(new String(b, i + 2, 4, StandardCharsets.US_ASCII), 16));
                    i += 4;
                }
                default -> out.append(e); // \" \\ \/
            }
            i += 2;
        }
        return out.toString();
    }
}
