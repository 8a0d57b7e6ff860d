package io.jtick.core.table;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class IntSortTest {
    @Test
    void shouldLeaveEmptyAndSingleArraysAsTheyAre() {
        final int[] empty = {};
        final int[] one = {7};

        IntSort.sort(empty, Integer::compare);
        IntSort.sort(one, Integer::compare);

        assertThat(empty).isEmpty();
        assertThat(one).containsExactly(7);
    }

    @Test
    void shouldSortShortArraysByInsertion() {
        final int[] a = {5, 3, 9, 1, 3};

        IntSort.sort(a, Integer::compare);

        assertThat(a).containsExactly(1, 3, 3, 5, 9);
    }

    @Test
    void shouldSortUnderTheComparatorGiven() {
        final int[] a = IntStream.range(0, 100).toArray();

        IntSort.sort(a, (x, y) -> Integer.compare(y, x));

        assertThat(a).isEqualTo(IntStream.range(0, 100).map(i -> 99 - i).toArray());
    }

    @Test
    void shouldBeStableForEqualKeysAtEverySize() {
        final SplittableRandom random = new SplittableRandom(26);
        for (final int n : new int[] {2, 15, 16, 17, 100, 1_000, 4_097}) {
            final int[] keys = random.ints(n, 0, 7).toArray();
            final int[] rows = IntStream.range(0, n).toArray();

            IntSort.sort(rows, (x, y) -> Integer.compare(keys[x], keys[y]));

            final Integer[] expected = IntStream.range(0, n).boxed().toArray(Integer[]::new);
            Arrays.sort(expected, Comparator.comparingInt(i -> keys[i])); // stable too
            assertThat(rows).as("n=" + n).isEqualTo(Arrays.stream(expected).mapToInt(Integer::intValue).toArray());
        }
    }

    @Test
    void shouldKeepAnAlreadySortedArray() {
        final int[] a = IntStream.range(0, 64).toArray();

        IntSort.sort(a, Integer::compare);

        assertThat(a).isEqualTo(IntStream.range(0, 64).toArray());
    }
}
