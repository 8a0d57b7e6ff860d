package io.jtick.parquet;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The dictionary table: ids in order of first appearance across the table's growth, the limit, reuse from chunk to chunk. */
class DistinctValuesTest {
    /** Ids as a map from value to its first row's order would give them. */
    private static int[] expected(final long[] bits, final int n) {
        final Map<Long, Integer> seen = new HashMap<>();
        final int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = seen.computeIfAbsent(bits[i], v -> seen.size());
        }
        return ids;
    }

    @Test
    void shouldGiveIdsInOrderOfFirstAppearanceWhileTheTableGrows() {
        final DistinctValues d = new DistinctValues();
        final SplittableRandom r = new SplittableRandom(7);
        for (final int distinct : new int[] {1, 100, DistinctValues.FIRST_SLOTS, 20_000}) {
            final int n = 32_768;
            final long[] bits = new long[n];
            for (int i = 0; i < n; i++) {
                // runs of equal values, and values that share low bits
                bits[i] = i > 0 && r.nextInt(4) == 0 ? bits[i - 1] : (long) r.nextInt(distinct) << 32;
            }
            final int[] ids = new int[n];
            d.clear();
            assertThat(d.ids(bits, ids, n, n)).isTrue();
            assertThat(ids).isEqualTo(expected(bits, n));
            final int[] want = expected(bits, n);
            int max = 0;
            for (final int id : want) {
                max = Math.max(max, id);
            }
            assertThat(d.size()).isEqualTo(max + 1);
            for (int i = 0; i < n; i++) {
                assertThat(d.values()[ids[i]]).isEqualTo(bits[i]);
            }
        }
    }

    @Test
    void shouldStopPastTheMostDistinctValues() {
        final DistinctValues d = new DistinctValues();
        final long[] bits = new long[1000];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = i % 300;
        }
        d.clear();
        assertThat(d.ids(bits, new int[1000], 1000, 299)).isFalse();
        d.clear();
        final int[] ids = new int[1000];
        assertThat(d.ids(bits, ids, 1000, 300)).isTrue();
        assertThat(d.size()).isEqualTo(300);
        assertThat(ids[999]).isEqualTo(999 % 300);
    }

    @Test
    void shouldForgetTheLastChunk() {
        final DistinctValues d = new DistinctValues();
        final long[] first = new long[10_000];
        for (int i = 0; i < first.length; i++) {
            first[i] = Double.doubleToRawLongBits(i * 0.01);
        }
        d.clear();
        assertThat(d.ids(first, new int[first.length], first.length, first.length)).isTrue();
        final long[] second = {Double.doubleToRawLongBits(0.02), Double.doubleToRawLongBits(99.0), Double.doubleToRawLongBits(0.02)};
        final int[] ids = new int[3];
        d.clear();
        assertThat(d.ids(second, ids, 3, 3)).isTrue();
        assertThat(ids).containsExactly(0, 1, 0);
        assertThat(d.size()).isEqualTo(2);
    }
}
