package dev.weft.store.plan;

import dev.weft.query.Sort;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import tools.jackson.databind.JsonNode;

/**
 * The first {@code skip + limit} matches of an unordered read in sort order (ties by ascending
 * encoded {@code _id}), kept in a bounded heap; {@link #result} drops the skipped ones.
 */
public final class TopK {
    private record Match(byte[] id, byte[] body, JsonNode doc) {}

    private final long skip;
    private final long limit;
    private final long keep;
    private final Comparator<Match> order;
    private final PriorityQueue<Match> worstFirst;

    public TopK(Sort sort, long skip, long limit) {
        this.skip = skip;
        this.limit = limit;
        this.keep = skip + limit < 0 ? Long.MAX_VALUE : skip + limit;
        Comparator<JsonNode> bySort = sort.comparator();
        this.order = (a, b) -> {
            int c = bySort.compare(a.doc(), b.doc());
            return c != 0 ? c : Arrays.compareUnsigned(a.id(), b.id());
        };
        this.worstFirst = new PriorityQueue<>((int) Math.min(keep, 1024) + 1, order.reversed());
    }

    /** A matching document: {@code id} its encoded _id, {@code body} its stored bytes. */
    public void offer(byte[] id, byte[] body, JsonNode doc) {
        Match m = new Match(id, body, doc);
        if (worstFirst.size() < keep) {
            worstFirst.add(m);
        } else if (order.compare(m, worstFirst.peek()) < 0) {
            worstFirst.poll();
            worstFirst.add(m);
        }
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
