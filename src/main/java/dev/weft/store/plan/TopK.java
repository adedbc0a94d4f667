package dev.weft.store.plan;

import dev.weft.core.WeftException;
import dev.weft.query.BoundedMemo;
import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.query.SortKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import tools.jackson.databind.JsonNode;

/**
 * The first {@code skip + limit} matches of an unordered read in sort order (ties by ascending
 * encoded {@code _id}), kept in a bounded heap; {@link #result} drops the skipped ones. The
 * stored bytes it keeps are bounded too ({@code max-sort-bytes}): a deep page of large
 * documents is a 400 naming the setting, not a heap that grows with the page number.
 *
 * <p>Matches are ordered by their {@link SortKeys} bytes, the sort's comparator deciding only
 * between equal keys, so a reader can ask {@link #wants} with a key read from the stored bytes
 * and drop a row that cannot enter before evaluating its filter or building its tree. A sort by
 * text score (set on each tree) has no keys and compares trees.
 */
public final class TopK {
    /** {@code key}: the sort key, null for a sort by text score. */
    private record Match(byte[] id, byte[] body, byte[] key, JsonNode doc) {}

    private final long skip;
    private final long limit;
    private final long keep;
    private final Comparator<Match> order;
    private final SortKeys keys;
    private final PriorityQueue<Match> worstFirst;
    private final long maxBytes;
    private long bytes;

    /** Most sorts whose orderings are kept; past it they are derived again. */
    static final int MAX_ORDERINGS = 1024;
    /** What each sort asked for before compares by (both immutable): derived once per sort, not per query. */
    private static final BoundedMemo<Sort, Ordering> ORDERINGS = new BoundedMemo<>(MAX_ORDERINGS);

    /** A sort's comparator on trees and its stored keys (null for a sort by text score). */
    private record Ordering(Comparator<JsonNode> bySort, SortKeys keys) {
        static Ordering of(Sort sort) {
            return new Ordering(sort.comparator(), SortKeys.of(sort));
        }
    }

    public TopK(Sort sort, long skip, long limit, long maxBytes) {
        this.skip = skip;
        this.maxBytes = maxBytes;
        this.limit = limit;
        this.keep = skip + limit < 0 ? Long.MAX_VALUE : skip + limit;
        int chars = 0;
        for (IndexField f : sort.fields()) {
            chars += f.path().length();
        }
        Ordering ordering = ORDERINGS.get(sort, chars, Ordering::of);
        Comparator<JsonNode> bySort = ordering.bySort();
        this.keys = ordering.keys();
        this.order = (a, b) -> {
            int c = a.key() == null ? 0 : Arrays.compareUnsigned(a.key(), b.key());
            if (c == 0) {
                c = bySort.compare(a.doc(), b.doc());
            }
            return c != 0 ? c : Arrays.compareUnsigned(a.id(), b.id());
        };
        this.worstFirst = new PriorityQueue<>((int) Math.min(keep, 1024) + 1, order.reversed());
    }

    /** The keys its matches are ordered by (null for a sort by text score). */
    public SortKeys keys() {
        return keys;
    }

    /**
     * Whether a row whose sort key is {@code key[0, length)} may still enter (false: it would be
     * dropped whatever its filter says), for a key of {@link #keys} (read into a reused buffer:
     * {@link SortKeys.Scratch}).
     */
    public boolean wants(byte[] key, int length) {
        if (worstFirst.size() < keep) {
            return true;
        }
        byte[] worst = worstFirst.peek().key();
        return SortKeys.compare(key, length, worst) <= 0;
    }

    /**
     * The number a row's first sort key must not be strictly worse than to enter (descending:
     * less than it, ascending: greater), once {@code skip + limit} matches are kept and the worst
     * one's first key is a number (not NaN); else NaN (every row may enter as far as this says).
     * Matches are ordered by their keys first, and a number's key is its double
     * ({@link KeyEncoding}), so a row whose number's double is strictly worse ranks below the
     * worst kept match whatever its other keys.
     */
    public double firstNumber() {
        if (keys == null || worstFirst.size() < keep) {
            return Double.NaN;
        }
        return keys.firstNumber(worstFirst.peek().key());
    }

    /**
     * A matching document: {@code id} its encoded _id, {@code body} its stored bytes, {@code doc}
     * its tree (pruned to the sort's paths at least).
     */
    public void offer(byte[] id, byte[] body, JsonNode doc) {
        offer(id, body, null, doc);
    }

    /** {@link #offer(byte[], byte[], JsonNode)} with the key when already read ({@link SortKeys#readStored}), else null. */
    public void offer(byte[] id, byte[] body, byte[] key, JsonNode doc) {
        Match m = new Match(id, body, key != null || keys == null ? key : keys.of(doc), doc);
        if (worstFirst.size() < keep) {
            add(m);
        } else if (order.compare(m, worstFirst.peek()) < 0) {
            bytes -= size(worstFirst.poll());
            add(m);
        }
    }

    /** Offers every match {@code other} kept (a part of the same read, scanned apart). */
    public void offerAll(TopK other) {
        for (Match m : other.worstFirst) {
            offer(m.id(), m.body(), m.key(), m.doc());
        }
    }

    private void add(Match m) {
        bytes += size(m);
        if (bytes > maxBytes) {
            throw WeftException.badRequest("this sort is served by no index, so its first skip+limit = " + keep
                    + " matches are kept in memory, and they hold more than max-sort-bytes (" + maxBytes
                    + " bytes); sort on an indexed field, narrow the filter or ask for an earlier page");
        }
        worstFirst.add(m);
    }

    private static long size(Match m) {
        return m.body().length + m.id().length;
    }

    /** The kept bodies in order, the first {@code skip} left out. */
    public List<byte[]> result() {
        List<Match> sorted = new ArrayList<>(worstFirst);
        sorted.sort(order);
        List<byte[]> out = new ArrayList<>();
        for (int i = (int) Math.min(skip, sorted.size()); i < sorted.size() && out.size() < limit; i++) {
            out.add(sorted.get(i).body());
        }
        return out;
    }
}
