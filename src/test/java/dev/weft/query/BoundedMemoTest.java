package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoundedMemoTest {
    @Test
    void derivesEachKeyOnceWhileKept() {
        BoundedMemo<String, String> memo = new BoundedMemo<>(8);
        List<String> derived = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            assertThat(memo.get("a", k -> { derived.add(k); return k.toUpperCase(); })).isEqualTo("A");
            assertThat(memo.get("b", k -> { derived.add(k); return k.toUpperCase(); })).isEqualTo("B");
        }
        assertThat(derived).containsExactly("a", "b");
    }

    @Test
    void startsOverPastItsBound() {
        BoundedMemo<Integer, Integer> memo = new BoundedMemo<>(4);
        for (int i = 0; i < 100; i++) {
            assertThat(memo.get(i, k -> k * 2)).isEqualTo(i * 2);
            assertThat(memo.size()).isLessThanOrEqualTo(4);
        }
        List<Integer> derived = new ArrayList<>();
        memo.get(0, k -> { derived.add(k); return 0; }); // dropped when it started over
        assertThat(derived).containsExactly(0);
    }

    @Test
    void keepsNoAbsentValue() {
        BoundedMemo<String, String> memo = new BoundedMemo<>(4);
        List<String> derived = new ArrayList<>();
        memo.get("x", k -> { derived.add(k); return null; });
        memo.get("x", k -> { derived.add(k); return null; });
        assertThat(derived).containsExactly("x", "x");
        assertThat(memo.size()).isZero();
    }

    @Test
    void refusesANonPositiveBound() {
        assertThatThrownBy(() -> new BoundedMemo<String, String>(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
