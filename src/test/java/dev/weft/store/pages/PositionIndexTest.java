package dev.weft.store.pages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.SortPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The position index against a sorted set of positions: after any inserts and deletes, locate(n) starts at or before the n-th and counts exactly. */
class PositionIndexTest {

    private static SortPosition pos(int key, int id) {
        return new SortPosition(new byte[] {(byte) (key >>> 8), (byte) key}, new byte[] {(byte) (id >>> 8), (byte) id});
    }

    private static PositionIndex build(TreeSet<SortPosition> all, int block) {
        PositionIndex.Builder b = new PositionIndex.Builder(block);
        for (SortPosition p : all) {
            b.next(() -> p);
        }
        return b.build();
    }

    /** The n-th position, found as the index says: from its block start, offset more. */
    private static SortPosition nth(PositionIndex index, TreeSet<SortPosition> all, long n) {
        PositionIndex.Start s = index.locate(n);
        var from = s.start() == null ? all : all.tailSet(s.start(), true);
        return from.stream().skip(s.offset()).findFirst().orElse(null);
    }

    @Test
    void locatesEveryPositionAfterRandomInsertsAndDeletes() {
        Random random = new Random(7);
        TreeSet<SortPosition> all = new TreeSet<>();
        for (int i = 0; i < 2000; i++) {
            all.add(pos(random.nextInt(300), i));
        }
        PositionIndex index = build(all, 16);
        assertThat(index.size()).isEqualTo(all.size());
        assertThat(index.blocks()).isEqualTo((all.size() + 15) / 16);
        for (int round = 0; round < 1500; round++) {
            if (random.nextBoolean() && !all.isEmpty()) {
                SortPosition victim = new ArrayList<>(all).get(random.nextInt(all.size()));
                all.remove(victim);
                index.delete(victim);
            } else {
                SortPosition p = pos(random.nextInt(300), 5000 + round);
                all.add(p);
                index.insert(p);
            }
        }
        assertThat(index.broken()).isFalse();
        assertThat(index.lopsided()).isFalse();
        assertThat(index.size()).isEqualTo(all.size());
        List<SortPosition> inOrder = new ArrayList<>(all);
        for (int n = 0; n < inOrder.size(); n++) {
            assertThat(nth(index, all, n)).as("position %d", n).isEqualTo(inOrder.get(n));
            assertThat(index.locate(n).offset()).isLessThan(PositionIndex.MAX_GROWTH * 16L + 1);
        }
        assertThat(nth(index, all, inOrder.size())).isNull();
        assertThat(nth(index, all, inOrder.size() + 100)).isNull();
    }

    @Test
    void emptiedBlocksAreSkippedAndAMissedDeleteBreaksTheIndex() {
        TreeSet<SortPosition> all = new TreeSet<>();
        for (int i = 0; i < 100; i++) {
            all.add(pos(i, i));
        }
        PositionIndex index = build(all, 10);
        for (int i = 10; i < 40; i++) {
            all.remove(pos(i, i));
            index.delete(pos(i, i));
        }
        assertThat(nth(index, all, 10)).isEqualTo(pos(40, 40));
        assertThat(index.locate(10).start()).isEqualTo(pos(40, 40));
        assertThat(index.locate(10).offset()).isZero();
        index.delete(pos(15, 15));
        assertThat(index.broken()).isTrue();
    }

    @Test
    void aBlockGrownPastItsBoundIsLopsided() {
        TreeSet<SortPosition> all = new TreeSet<>();
        for (int i = 0; i < 100; i++) {
            all.add(pos(i * 10, i));
        }
        PositionIndex index = build(all, 10);
        for (int i = 0; i < PositionIndex.MAX_GROWTH * 10; i++) {
            index.insert(pos(501, 1000 + i));
        }
        assertThat(index.lopsided()).isTrue();
    }

    @Test
    void anEmptyCollectionHasOneEmptyBlock() {
        PositionIndex index = new PositionIndex.Builder(10).build();
        assertThat(index.locate(5)).isEqualTo(new PositionIndex.Start(null, 5));
        index.insert(pos(1, 1));
        assertThat(index.size()).isEqualTo(1);
    }
}
