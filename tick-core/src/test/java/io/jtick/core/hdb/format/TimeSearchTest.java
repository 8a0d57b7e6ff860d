package io.jtick.core.hdb.format;

import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The guessed-then-galloping lower bound against a plain bisection, on evenly and unevenly spaced times. */
class TimeSearchTest {
    private static final long LONG_BASE = UnsafeApi.arrayBaseOffset(long[].class);

    /** The first index in [lo, hi) whose value is at least t, or hi: the reference. */
    private static int reference(final long[] v, final int lo, final int hi, final long t) {
        for (int i = lo; i < hi; i++) {
            if (v[i] >= t) {
                return i;
            }
        }
        return hi;
    }

    private static void checkAll(final String name, final long[] v, final SplittableRandom r) {
        for (int k = 0; k < 2_000; k++) {
            final int lo = r.nextInt(v.length + 1);
            final int hi = lo + r.nextInt(v.length - lo + 1);
            final long t;
            switch (r.nextInt(4)) {
                case 0:
                    t = v[r.nextInt(v.length)];
                    break;
                case 1:
                    t = v[r.nextInt(v.length)] + 1;
                    break;
                case 2:
                    t = r.nextBoolean() ? Long.MIN_VALUE + r.nextInt(3) : Long.MAX_VALUE - r.nextInt(3);
                    break;
                default:
                    t = v[0] + (long) ((v[v.length - 1] - (double) v[0]) * r.nextDouble());
                    break;
            }
            assertThat(TimeSearch.lowerBound(v, LONG_BASE, lo, hi, t)).as("%s [%s, %s) t=%s", name, lo, hi, t)
                .isEqualTo(reference(v, lo, hi, t));
        }
    }

    @Test
    void shouldFindTheLowerBoundOfEvenlySpacedTimes() {
        final SplittableRandom r = new SplittableRandom(1);
        final long[] v = new long[2_048];
        long t = 34_200_000_000_000L;
        for (int i = 0; i < v.length; i++) {
            t += 1 + r.nextInt(20_000_000);
            v[i] = t;
        }
        checkAll("even", v, r);
    }

    @Test
    void shouldFindTheLowerBoundOfBurstsRepeatsAndExtremes() {
        final SplittableRandom r = new SplittableRandom(2);
        final long[] bursts = new long[3_000];
        long t = 0;
        for (int i = 0; i < bursts.length; i++) {
            t += r.nextInt(10) == 0 ? 1_000_000_000L * (1 + r.nextInt(1000)) : r.nextInt(3);
            bursts[i] = t;
        }
        checkAll("bursts and equal times", bursts, r);
        final long[] same = new long[500];
        Arrays.fill(same, 42);
        checkAll("all equal", same, r);
        final long[] extremes = new long[700];
        for (int i = 0; i < extremes.length; i++) {
            extremes[i] = i < 350 ? Long.MIN_VALUE + i : Long.MAX_VALUE - (extremes.length - 1 - i);
        }
        checkAll("extremes", extremes, r);
        final long[] skewed = new long[4_096];
        for (int i = 0; i < skewed.length; i++) {
            skewed[i] = (long) i * i * i;
        }
        checkAll("skewed", skewed, r);
    }
}
