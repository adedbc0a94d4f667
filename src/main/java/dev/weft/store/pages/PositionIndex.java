package dev.weft.store.pages;

import dev.weft.query.SortPosition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where the n-th document of one sort order is, without reading the n before it: the order cut
 * into blocks, each known by the position it starts at and how many documents it holds. Built
 * from one walk in order (a block every {@code block} documents); kept current by {@link #insert}
 * and {@link #delete}, which count a document into or out of the block its position falls in
 * (block starts never move, so a block may grow or shrink; one past {@link #MAX_GROWTH} times its
 * size asks for a rebuild, {@link #lopsided}). Counts are a Fenwick tree, so a lookup and an
 * update each cost O(log blocks).
 *
 * <p>Not thread-safe: its owner serialises access.
 */
public final class PositionIndex {
    /** A block holding this many times the built block size makes {@link #lopsided} true. */
    static final int MAX_GROWTH = 4;

    /** Start of each block in order; the first is null (it starts before every position). */
    private final SortPosition[] starts;
    private final long[] tree;
    private final long[] counts;
    private final int block;
    private long size;
    private boolean lopsided;
    private boolean broken;

    private PositionIndex(List<SortPosition> starts, List<Long> counts, int block) {
        this.starts = starts.toArray(SortPosition[]::new);
        this.counts = new long[this.starts.length];
        this.tree = new long[this.starts.length + 1];
        this.block = block;
        for (int i = 0; i < this.starts.length; i++) {
            add(i, counts.get(i));
        }
    }

    /** Where a page starts: at or after {@code start} (null: at the beginning), then {@code offset} more. */
    public record Start(SortPosition start, long offset) {}

    /** Documents counted in. */
    public long size() {
        return size;
    }

    public int blocks() {
        return starts.length;
    }

    /** True once some block has grown past {@link #MAX_GROWTH} times its built size: lookups still hold, but cost more. */
    public boolean lopsided() {
        return lopsided;
    }

    /** True when a delete found its block empty: the index missed a change and must not be used. */
    public boolean broken() {
        return broken;
    }

    /** Where the document {@code skip} documents from the start stands: the start of its block and how far into it. */
    public Start locate(long skip) {
        int j = lastBlockStartingBy(skip);
        return new Start(starts[j], skip - prefix(j));
    }

    public void insert(SortPosition p) {
        add(blockOf(p), 1);
    }

    public void delete(SortPosition p) {
        int b = blockOf(p);
        if (counts[b] == 0) {
            broken = true;
            return;
        }
        add(b, -1);
    }

    private void add(int b, long delta) {
        counts[b] += delta;
        size += delta;
        if (counts[b] > (long) MAX_GROWTH * block) {
            lopsided = true;
        }
        for (int i = b + 1; i < tree.length; i += i & -i) {
            tree[i] += delta;
        }
    }

    /** Documents in the blocks before block {@code j}. */
    private long prefix(int j) {
        long sum = 0;
        for (int i = j; i > 0; i -= i & -i) {
            sum += tree[i];
        }
        return sum;
    }

    /** The last block whose start has at most {@code skip} documents before it (a Fenwick descent). */
    private int lastBlockStartingBy(long skip) {
        int j = 0;
        long before = 0;
        for (int step = Integer.highestOneBit(Math.max(1, tree.length - 1)); step > 0; step >>= 1) {
            int next = j + step;
            if (next < tree.length && before + tree[next] <= skip) {
                j = next;
                before += tree[next];
            }
        }
        // j blocks hold at most skip documents; empty blocks after them start at the same place, take the last
        return Math.min(j, starts.length - 1);
    }

    /** The block a position falls in: the last one starting at or before it. */
    private int blockOf(SortPosition p) {
        int low = 1;
        int high = starts.length - 1;
        int found = 0;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (starts[mid].compareTo(p) <= 0) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    /** Builds an index from a walk in order, asking for a document's position only where a block starts. */
    public static final class Builder {
        private final int block;
        private final List<SortPosition> starts = new ArrayList<>();
        private final List<Long> counts = new ArrayList<>();
        private long seen;

        public Builder(int block) {
            this.block = block;
            starts.add(null);
            counts.add(0L);
        }

        /** The next document in order; {@code position} is called for one document in {@code block}. */
        public void next(Supplier<SortPosition> position) {
            if (seen > 0 && seen % block == 0) {
                starts.add(position.get());
                counts.add(0L);
            }
            counts.set(counts.size() - 1, counts.getLast() + 1);
            seen++;
        }

        public PositionIndex build() {
            return new PositionIndex(starts, counts, block);
        }
    }

    @Override
    public String toString() {
        return "PositionIndex[" + size + " in " + starts.length + " blocks " + Arrays.toString(counts).substring(0,
                Math.min(80, Arrays.toString(counts).length())) + "]";
    }
}
