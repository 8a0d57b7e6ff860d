package io.jtick.core.replay;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class TimeSortTest {
    private final TimeSort sort = new TimeSort();

    /** The reference: positions ordered by time, equal times in input order (a stable sort). */
    private static int[] stable(final long[] times, final int n) {
        return IntStream.range(0, n).boxed().sorted(Comparator.comparingLong(i -> times[i])).mapToInt(Integer::intValue).toArray();
    }

    private void check(final long[] times) {
        final int[] got = sort.sort(times, times.length);
        final int[] want = stable(times, times.length);
        if (got == null) {
            assertArrayEquals(IntStream.range(0, times.length).toArray(), want);
            return;
        }
        assertArrayEquals(want, Arrays.copyOf(got, times.length));
        // the times in that order, as the sort writes them from its keys
        final long[] sorted = new long[times.length];
        final int[] again = sort.sort(times, times.length, sorted);
        assertArrayEquals(want, Arrays.copyOf(again, times.length));
        assertArrayEquals(Arrays.stream(want).mapToLong(i -> times[i]).toArray(), sorted);
    }

    /** A window as a replay loads it: sorted runs (one per sym) concatenated, times spread over a span. */
    private static long[] runs(final SplittableRandom rnd, final int syms, final int perSym, final long base, final long span) {
        final long[] t = new long[syms * perSym];
        for (int s = 0; s < syms; s++) {
            final long[] run = new long[perSym];
            for (int i = 0; i < perSym; i++) {
                run[i] = base + rnd.nextLong(span);
            }
            Arrays.sort(run);
            System.arraycopy(run, 0, t, s * perSym, perSym);
        }
        return t;
    }

    @Test
    void shouldOrderConcatenatedRunsStably() {
        final SplittableRandom rnd = new SplittableRandom(7);
        check(runs(rnd, 1000, 65, 1_767_000_000_000_000_000L, 150_000_000_000L));
        check(runs(rnd, 3, 5, 0, 10));
        check(runs(rnd, 50, 1, 5, 2));
    }

    @Test
    void shouldKeepInputOrderOfRowsSharingATimestamp() {
        final SplittableRandom rnd = new SplittableRandom(11);
        // most rows on a few timestamps: crowded buckets take the comparison sort
        check(runs(rnd, 200, 300, 1_000, 4));
        final long[] same = new long[10_000];
        Arrays.fill(same, 42);
        same[0] = 43;
        check(same);
    }

    @Test
    void shouldOrderABurstOfRowsWithinOneSpacing() {
        final SplittableRandom rnd = new SplittableRandom(17);
        final long[] t = runs(rnd, 500, 60, 0, 1L << 40);
        // half the syms tick at two times 1 ns apart, around the middle of the window: thousands of rows in one spacing
        for (int s = 0; s < 500; s += 2) {
            for (int i = 0; i < 60; i++) {
                t[s * 60 + i] = (1L << 39) + (i < 30 ? 0 : 1);
            }
        }
        check(t);
    }

    @Test
    void shouldSortWindowsSpanningMoreThanThePackedKeyHolds() {
        final SplittableRandom rnd = new SplittableRandom(13);
        check(runs(rnd, 100, 100, Long.MIN_VALUE / 2, Long.MAX_VALUE));
    }

    @Test
    void shouldReturnNullForSortedInput() {
        assertNull(sort.sort(new long[] {1, 2, 2, 3}, 4));
    }
}
