package io.jtick.core.metrics;

import io.jtick.core.testing.LeakCheck;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

@ExtendWith(LeakCheck.class)
class LatencyStatsTest {
    private static final double[] BOUNDS = {1_000, 2_000, 5_000, 10_000};

    @Test
    void shouldKeepEveryValueSinceStartAcrossReadsUntilReset() {
        final LatencyStats s = new LatencyStats("tick.tp.log", "journal write");
        for (int v = 1; v <= 1000; v++) {
            s.record(v * 1000L);
        }
        assertThat(s.count()).isEqualTo(1000);
        s.record(-5);
        final Histogram h = s.snapshot();
        assertThat(h.getTotalCount()).as("values folded by count() stay").isEqualTo(1001);
        assertThat(h.getMinValue()).as("a negative value counts as 0").isZero();
        assertThat(h.getValueAtPercentile(50)).isCloseTo(500_000L, within(1_000L));
        s.record(Long.MAX_VALUE);
        assertThat(s.snapshot().getMaxValue()).as("capped at one hour").isCloseTo(3_600_000_000_000L, within(3_600_000_000L));
        s.reset();
        assertThat(s.count()).isZero();
        assertThat(s.name()).isEqualTo("tick.tp.log");
        assertThat(s.description()).isEqualTo("journal write");
    }

    @Test
    void shouldReadAsEmptyBeforeItsFirstValue() {
        final LatencyStats s = new LatencyStats("tick.tp.kdb.call", "never called");
        assertThat(s.count()).isZero();
        assertThat(s.snapshot().getTotalCount()).isZero();
        s.reset();
        final long[] counts = new long[BOUNDS.length + 1];
        final LatencyStats.Lifetime none = s.lifetime(BOUNDS, counts);
        assertThat(none.count()).isZero();
        assertThat(counts).containsOnly(0L);
        s.record(1_500);
        assertThat(s.lifetime(BOUNDS, counts).count()).isEqualTo(1);
        assertThat(counts).containsExactly(0, 1, 0, 0, 0);
    }

    @Test
    void shouldKeepTheLifetimeThroughAReset() {
        final LatencyStats stats = new LatencyStats("tick.test", "test");
        stats.record(1_500);
        stats.record(1_500);
        assertThat(stats.count()).isEqualTo(2);
        stats.record(3_000); // pending in the recorder when the reset comes
        stats.reset();
        stats.record(7_000);

        assertThat(stats.count()).isEqualTo(1);
        assertThat(stats.snapshot().getMaxValue()).isBetween(7_000L, 7_010L);
        final long[] counts = new long[BOUNDS.length + 1];
        final LatencyStats.Lifetime life = stats.lifetime(BOUNDS, counts);
        assertThat(life.count()).isEqualTo(4);
        assertThat(counts).containsExactly(0, 2, 1, 1, 0);
    }

    @Test
    void shouldSortValuesIntoUpperInclusiveBucketsWithOverflowLast() {
        final LatencyStats stats = new LatencyStats("tick.test", "test");
        for (final long v : new long[] {0, -5, 1_000, 1_001, 2_000, 9_999, 10_000, 10_050, 3_600_000_000_000L * 2}) {
            stats.record(v);
        }
        final long[] counts = new long[BOUNDS.length + 1];
        final LatencyStats.Lifetime life = stats.lifetime(BOUNDS, counts);
        // 0, -5 (as 0) and 1000 in the first; 1001 and 2000 in the second (exact below 2048); none in the third; 9999 (its
        // HdrHistogram bucket is 9992..9999) in the fourth; 10000 (bucket 10000..10007, reported as 10007), 10050 and the
        // two hours (clamped to one) above the last bound
        assertThat(counts).containsExactly(3, 2, 0, 1, 3);
        assertThat(life.count()).isEqualTo(9);
    }

    @Test
    void shouldSumWithinHdrHistogramPrecision() {
        final LatencyStats stats = new LatencyStats("tick.test", "test");
        final Random random = new Random(13);
        double exact = 0;
        for (int i = 0; i < 100_000; i++) {
            final long v = (long) Math.exp(7 + 3 * random.nextDouble());
            exact += v;
            stats.record(v);
        }
        final LatencyStats.Lifetime life = stats.lifetime(BOUNDS, new long[BOUNDS.length + 1]);
        assertThat(life.sumNanos()).isCloseTo(exact, within(exact * 0.0005));
    }

    /** The property docs/metrics.md states: a percentile HdrHistogram reports lies in the bucket where the rank falls. */
    @Test
    void shouldPutEveryPercentileInTheBucketItsRankFallsIn() {
        final double[] bounds = new double[193];
        for (int k = 0; k < bounds.length; k++) {
            bounds[k] = 1e9 * Math.pow(2, (k - 160) / 8.0);
        }
        final LatencyStats stats = new LatencyStats("tick.test", "test");
        final Random random = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            stats.record((long) Math.exp(6 + 8 * random.nextDouble() * random.nextDouble()));
        }
        final long[] counts = new long[bounds.length + 1];
        final LatencyStats.Lifetime life = stats.lifetime(bounds, counts);
        final Histogram h = stats.snapshot();
        for (final double q : new double[] {0.5, 0.9, 0.99, 0.999, 0.9999}) {
            final long rank = Math.max(1, Math.round(q * life.count()));
            long cumulative = 0;
            int bucket = 0;
            while (cumulative + counts[bucket] < rank) {
                cumulative += counts[bucket++];
            }
            final long value = h.getValueAtPercentile(q * 100);
            assertThat((double) value).as("p%s", q * 100).isLessThanOrEqualTo(bounds[bucket]);
            if (bucket > 0) {
                assertThat((double) value).as("p%s", q * 100).isGreaterThan(bounds[bucket - 1]);
            }
        }
    }
}
