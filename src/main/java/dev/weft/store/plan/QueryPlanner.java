package dev.weft.store.plan;

import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.KeyRange;
import dev.weft.query.Sort;
import dev.weft.query.TextSearch;
import dev.weft.query.Trigrams;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Chooses how a query reads a collection: which source (the primary key or one index), which key
 * ranges of it, and whether the source's order is the answer's order.
 *
 * <ol>
 *   <li>An index that leaves documents out (sparse, partial) is a source only when the query
 *       implies that every match is in it ({@link WrittenFilter#implies}); a hint naming one
 *       that it does not is 400.
 *   <li>A {@code hint} names the source (unknown name: 400).
 *   <li>Otherwise every source whose ranges the filter can narrow is a candidate. When the sort
 *       is served by a source (its fields, all in the same or all in the opposite direction, and
 *       not multikey) and that source is also a candidate, walk it in order.
 *   <li>An unbounded read (a streaming export) must walk a source in sort order; with no source
 *       serving the sort it is refused (400), which keeps export memory bounded.
 *   <li>Otherwise take the best candidate: a point lookup on the primary key or a unique index,
 *       else the one with the fewest keys in its ranges (counted up to a cap). If even the best
 *       has at least the cap and a source serves the sort, walking that source in order and
 *       stopping after skip+limit matches is cheaper; else the candidates are read and the top
 *       skip+limit kept in a bounded heap.
 * </ol>
 * A trigram index is never a range or an order: when the filter's {@code $regex} terms on its
 * path require literals, the lookup of their trigrams is a candidate taken where the scan or a
 * walk in sort order would be (no candidate, or the best one counts {@code cap}+ keys) if it
 * returns few documents ({@link #fewCandidates}: probed, as other candidates are), and when
 * hinted (a hinted trigram index with nothing to look up is 400, as an unknown name).
 * Every plan is a superset read: the caller evaluates the filter on each document.
 *
 * <p>Engine-independent: a store supplies its indexes and a {@link Probe} that counts keys in
 * ranges; keys are {@link dev.weft.query.KeyEncoding} bytes, compared as unsigned bytes.
 */
public final class QueryPlanner {
    private QueryPlanner() {}

    public static final String ID_INDEX = "_id_";
    public static final List<IndexField> ID_FIELDS = List.of(new IndexField("_id", 1));
    private static final int MIN_PROBE_CAP = 1000;
    private static final int MAX_PROBE_CAP = 100_000;
    /**
     * Most terms a {@code $text} search looks up (one UNION part each); a longer search reads every
     * document instead, which the search still decides (a bound on one statement's size, not a refusal).
     */
    static final int MAX_TEXT_LOOKUP_TERMS = 64;
    /** {@code trigram-probe-cap}'s default. */
    public static final long DEFAULT_TRIGRAM_PROBE_CAP = 10_000;
    /**
     * A trigram lookup is taken only when the collection holds at least this many documents per
     * estimated candidate: fetching a candidate by id costs a few sequential rows of a scan, and a
     * scan in sort order stops at the page's end, so a lookup returning more loses (measured 10×
     * slower on a regex every document matches, bench/results/engine-3-trigram.txt).
     */
    static final int DOCUMENTS_PER_TRIGRAM_CANDIDATE = 8;
    /** Every encoded key: the tags of {@link dev.weft.query.KeyEncoding} are all below 0xFF. */
    public static final KeyRange EVERY_KEY = new KeyRange(new byte[0], new byte[] {(byte) 0xFF});

    /**
     * @param index      the index read, or null for the primary key
     * @param ranges     merged key ranges in ascending key order, or null for the whole source
     * @param ordered    true when the source's order (reversed if {@code descending}) is the sort
     * @param descending walk the source from its largest key
     * @param trigrams   with a trigram {@code index}: the lookup whose documents are the candidates
     *                   (then {@code ranges} is null and the plan unordered)
     */
    public record Plan<I extends PlanIndex>(I index, List<KeyRange> ranges, boolean ordered, boolean descending,
                                            String description, Trigrams.Query trigrams) {
        public Plan(I index, List<KeyRange> ranges, boolean ordered, boolean descending, String description) {
            this(index, ranges, ordered, descending, description, null);
        }

        /** True when the plan reads less than the whole collection or walks an index for order. */
        public boolean usesIndex() {
            return ranges != null || index != null;
        }
    }

    /** Counts the keys of {@code index} (null: the primary key) in {@code ranges}, up to {@code cap}. */
    @FunctionalInterface
    public interface Probe<I extends PlanIndex> {
        long count(I index, List<KeyRange> ranges, long cap) throws SQLException;

        /**
         * The count of a SQL store: {@code ps} counts the keys of one range, with parameters (low,
         * high, at most how many); run range by range, asking each for what is left of the cap,
         * and stopped once the cap is reached.
         */
        static long countRanges(PreparedStatement ps, List<KeyRange> ranges, long cap) throws SQLException {
            long total = 0;
            for (KeyRange r : ranges) {
                ps.setBytes(1, r.low());
                ps.setBytes(2, r.high());
                ps.setLong(3, cap - total);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    total += rs.getLong(1);
                }
                if (total >= cap) {
                    break;
                }
            }
            return total;
        }
    }

    private record Candidate<I extends PlanIndex>(I index, List<KeyRange> ranges) {
        String name() {
            return index == null ? ID_INDEX : index.spec().name();
        }

        int width() {
            return index == null ? 1 : index.fields().size();
        }
    }

    /**
     * @param sort null when any order will do (count, bulk writes)
     */
    public static <I extends PlanIndex> Plan<I> plan(String coll, List<I> indexes, Filter filter, Sort sort, long skip,
                                                     long limit, Optional<String> hint, Probe<I> probe)
            throws SQLException {
        return plan(coll, indexes, filter, sort, skip, limit, hint, probe, DEFAULT_TRIGRAM_PROBE_CAP);
    }

    /**
     * @param trigramCap most postings counted to estimate a trigram lookup's candidates
     *                   ({@code trigram-probe-cap}); at or past it the lookup is not taken unhinted
     */
    public static <I extends PlanIndex> Plan<I> plan(String coll, List<I> indexes, Filter filter, Sort sort, long skip,
                                                     long limit, Optional<String> hint, Probe<I> probe, long trigramCap)
            throws SQLException {
        Optional<TextSearch> text = filter.textSearch();
        if (text.isPresent()) {
            return textPlan(indexes, text.get());
        }
        boolean unbounded = limit == Long.MAX_VALUE;
        Plan<I> byTrigrams = unbounded && sort != null ? null : trigramPlan(indexes, filter, hint);
        if (hint.isPresent()) {
            return byTrigrams != null ? byTrigrams : hinted(coll, indexes, filter, sort, unbounded, hint.get());
        }
        if (byTrigrams != null && !fewCandidates(byTrigrams, probe, trigramCap)) {
            byTrigrams = null;
        }
        indexes = indexes.stream().filter(i -> i.spec().ordered() && WrittenFilter.implies(filter, i.spec())).toList();
        List<Candidate<I>> candidates = new ArrayList<>();
        Optional<List<KeyRange>> idRanges = filter.keyRanges(ID_FIELDS, false);
        idRanges.ifPresent(r -> candidates.add(new Candidate<>(null, merge(r))));
        for (I index : indexes) {
            filter.keyRanges(index.fields(), index.multikey())
                    .ifPresent(r -> candidates.add(new Candidate<>(index, merge(r))));
        }
        Walk<I> walk = sort == null ? null : sortSource(indexes, sort);
        if (walk != null) {
            for (Candidate<I> c : candidates) {
                if (c.index() == walk.index()) {
                    return ordered(c.index(), c.ranges(), walk.descending(), "");
                }
            }
        }
        if (sort != null && unbounded) {
            if (walk == null) {
                throw WeftException.badRequest("a streaming read without a page limit needs a sort on _id or on"
                        + " the fields of an index (and that index must not be multikey): sort " + describe(sort)
                        + " is served by no index");
            }
            return ordered(walk.index(), null, walk.descending(), "");
        }
        long cap = Math.min(MAX_PROBE_CAP, Math.max(MIN_PROBE_CAP, 4 * Math.min(skip + limit, MAX_PROBE_CAP)));
        Candidate<I> best = null;
        long bestCount = -1;
        for (Candidate<I> c : candidates) {
            if (isPointLookup(c)) {
                best = c;
                bestCount = c.ranges().size();
                break;
            }
        }
        if (best == null && candidates.size() == 1 && walk == null) {
            best = candidates.getFirst();
        } else if (best == null) {
            for (Candidate<I> c : candidates) {
                long count = probe.count(c.index(), c.ranges(), cap);
                if (best == null || count < bestCount || (count == bestCount && c.width() > best.width())) {
                    best = c;
                    bestCount = count;
                }
            }
        }
        if (byTrigrams != null && (best == null || bestCount >= cap)) { // few candidates (fewCandidates): better than scanning
            return byTrigrams;
        }
        if (walk != null && (best == null || bestCount >= cap)) {
            String why = best == null ? "" : " (" + best.name() + " matches " + cap + "+ keys)";
            return ordered(walk.index(), null, walk.descending(), why);
        }
        if (best == null) {
            return new Plan<>(null, null, false, false, "COLLSCAN, sorted in memory");
        }
        return new Plan<>(best.index(), best.ranges(), false, false,
                "IXSCAN " + best.name() + " " + best.ranges().size() + " range(s), sorted in memory");
    }

    /**
     * Whether a trigram lookup returns few documents: an upper bound of its candidates (an AND
     * has at most its rarest trigram's documents, an OR the sum of its parts', plus the documents
     * too long to index) counted in the index up to {@code cap}, below the cap and below
     * 1/{@link #DOCUMENTS_PER_TRIGRAM_CANDIDATE} of the collection (whose documents are counted up
     * to that many).
     */
    static <I extends PlanIndex> boolean fewCandidates(Plan<I> lookup, Probe<I> probe, long cap) throws SQLException {
        long estimate = probe.count(lookup.index(), List.of(new KeyRange(Trigrams.OVERFLOW, Trigrams.OVERFLOW)), cap);
        if (estimate < cap) {
            estimate += estimate(lookup.trigrams(), lookup.index(), probe, cap - estimate);
        }
        if (estimate >= cap) {
            return false;
        }
        long enough = DOCUMENTS_PER_TRIGRAM_CANDIDATE * Math.max(1, estimate);
        return probe.count(null, List.of(EVERY_KEY), enough) >= enough;
    }

    private static <I extends PlanIndex> long estimate(Trigrams.Query q, I index, Probe<I> probe, long cap) throws SQLException {
        return switch (q) {
            case Trigrams.Gram g -> probe.count(index, List.of(new KeyRange(g.key(), g.key())), cap);
            case Trigrams.All a -> {
                long least = cap;
                for (Trigrams.Query part : a.parts()) {
                    least = Math.min(least, estimate(part, index, probe, least));
                }
                yield least;
            }
            case Trigrams.Any o -> {
                long sum = 0;
                for (Trigrams.Query part : o.parts()) {
                    sum += estimate(part, index, probe, cap - sum);
                    if (sum >= cap) {
                        break;
                    }
                }
                yield sum;
            }
        };
    }

    /**
     * A {@code $text} search always reads the text index, as MongoDB's: the documents holding any
     * of its words' terms (none when it has no word but stop words and negations). A search the
     * caller has not bound yet is bound here to the collection's text index; 400 when there is none.
     */
    private static <I extends PlanIndex> Plan<I> textPlan(List<I> indexes, TextSearch search) {
        I index = indexes.stream().filter(i -> i.spec().isText()).findFirst()
                .orElseThrow(() -> WeftException.badRequest(TextSearch.NO_INDEX));
        if (!search.bound()) {
            search.bind(index.spec().text());
        }
        List<byte[]> keys = search.lookupKeys();
        if (keys.size() > MAX_TEXT_LOOKUP_TERMS) {
            return new Plan<>(null, null, false, false, "COLLSCAN (" + keys.size() + " $text terms), sorted in memory");
        }
        String name = "TEXT " + index.spec().name() + " " + keys.size() + " term(s), sorted in memory";
        if (keys.isEmpty()) {
            return new Plan<>(index, List.of(), false, false, name, null);
        }
        List<Trigrams.Query> terms = keys.stream().<Trigrams.Query>map(Trigrams.Gram::new).toList();
        return new Plan<>(index, null, false, false, name, terms.size() == 1 ? terms.getFirst() : new Trigrams.Any(terms));
    }

    /**
     * A lookup in a trigram index on a path whose {@code $regex} terms require literals (the hinted
     * one, if a hint names one), or null. Its candidates hold the regexes' trigrams; the filter
     * still decides.
     */
    private static <I extends PlanIndex> Plan<I> trigramPlan(List<I> indexes, Filter filter, Optional<String> hint) {
        for (I index : indexes) {
            if (!index.spec().trigram() || hint.isPresent() && !hint.get().equals(index.spec().name())) {
                continue;
            }
            Trigrams.Query q = Trigrams.query(filter, index.fields().getFirst().path());
            if (q != null) {
                return new Plan<>(index, null, false, false,
                        "TRIGRAMS " + index.spec().name() + " " + q.size() + " trigram(s), sorted in memory", q);
            }
        }
        return null;
    }

    private static <I extends PlanIndex> Plan<I> hinted(String coll, List<I> indexes, Filter filter, Sort sort,
                                                        boolean unbounded, String hint) {
        I index = null;
        if (!hint.equals(ID_INDEX)) {
            index = indexes.stream().filter(i -> i.spec().name().equals(hint)).findFirst()
                    .orElseThrow(() -> WeftException.badRequest("hint: the collection " + coll + " has no index named " + hint));
            if (index.spec().trigram()) {
                throw WeftException.badRequest("hint: the trigram index " + hint + " has nothing to look up: no $regex on "
                        + index.fields().getFirst().path() + " that every match satisfies requires 3 characters in a row");
            }
            if (!WrittenFilter.implies(filter, index.spec())) {
                throw WeftException.badRequest("hint: the index " + hint + " leaves out documents (sparse or"
                        + " partialFilterExpression) that this filter does not rule out");
            }
        }
        List<IndexField> fields = index == null ? ID_FIELDS : index.fields();
        boolean multikey = index != null && index.multikey();
        List<KeyRange> ranges = filter.keyRanges(fields, multikey).map(QueryPlanner::merge).orElse(null);
        Boolean descending = sort == null || multikey ? null : direction(sort.fields(), fields);
        if (descending != null) {
            return ordered(index, ranges, descending, " (hint)");
        }
        if (sort != null && unbounded) {
            throw WeftException.badRequest("a streaming read without a page limit needs a sort the hinted index "
                    + hint + " serves; sort " + describe(sort) + " is not");
        }
        if (ranges == null) {
            // a whole multikey index may lack documents (an empty array has no key): read every document
            return new Plan<>(null, null, false, false, "COLLSCAN (hint " + hint + " gives no ranges), sorted in memory");
        }
        return new Plan<>(index, ranges, false, false,
                "IXSCAN " + hint + " " + ranges.size() + " range(s) (hint), sorted in memory");
    }

    private static <I extends PlanIndex> Plan<I> ordered(I index, List<KeyRange> ranges, boolean descending, String why) {
        String name = index == null ? ID_INDEX : index.spec().name();
        String what = ranges == null ? "whole" : ranges.size() + " range(s)";
        return new Plan<>(index, ranges, true, descending,
                "IXSCAN " + name + " " + what + " in " + (descending ? "reverse " : "") + "sort order" + why);
    }

    private record Walk<I>(I index, boolean descending) {}

    /** The source whose order is the sort's, or null. */
    private static <I extends PlanIndex> Walk<I> sortSource(List<I> indexes, Sort sort) {
        Boolean byId = direction(sort.fields(), ID_FIELDS);
        if (byId != null) {
            return new Walk<>(null, byId);
        }
        for (I index : indexes) {
            Boolean d = index.multikey() ? null : direction(sort.fields(), index.fields());
            if (d != null) {
                return new Walk<>(index, d);
            }
        }
        return null;
    }

    /** False when the sort is the index's order, true when it is the reverse, null otherwise. */
    public static Boolean direction(List<IndexField> sort, List<IndexField> index) {
        if (sort.size() != index.size()) {
            return null;
        }
        boolean same = true;
        boolean opposite = true;
        for (int i = 0; i < sort.size(); i++) {
            if (!sort.get(i).path().equals(index.get(i).path())) {
                return null;
            }
            same &= sort.get(i).direction() == index.get(i).direction();
            opposite &= sort.get(i).direction() != index.get(i).direction();
        }
        return same ? Boolean.FALSE : opposite ? Boolean.TRUE : null;
    }

    private static boolean isPointLookup(Candidate<?> c) {
        boolean unique = c.index() == null || (c.index().spec().unique() && !c.index().multikey());
        return unique && c.ranges().stream().allMatch(r -> Arrays.equals(r.low(), r.high()));
    }

    /** Ranges sorted by their low key, overlapping ones merged, empty ones dropped. */
    public static List<KeyRange> merge(List<KeyRange> ranges) {
        List<KeyRange> sorted = new ArrayList<>();
        for (KeyRange r : ranges) {
            if (Arrays.compareUnsigned(r.low(), r.high()) <= 0) {
                sorted.add(r);
            }
        }
        sorted.sort(Comparator.comparing(KeyRange::low, Arrays::compareUnsigned));
        List<KeyRange> merged = new ArrayList<>();
        for (KeyRange r : sorted) {
            KeyRange last = merged.isEmpty() ? null : merged.getLast();
            if (last != null && Arrays.compareUnsigned(r.low(), last.high()) <= 0) {
                if (Arrays.compareUnsigned(r.high(), last.high()) > 0) {
                    merged.set(merged.size() - 1, new KeyRange(last.low(), r.high()));
                }
            } else {
                merged.add(r);
            }
        }
        return List.copyOf(merged);
    }

    public static String describe(Sort sort) {
        StringBuilder b = new StringBuilder("{");
        for (IndexField f : sort.fields()) {
            b.append(b.length() > 1 ? ", " : "").append(f.path()).append(": ").append(f.direction());
        }
        return b.append('}').toString();
    }
}
