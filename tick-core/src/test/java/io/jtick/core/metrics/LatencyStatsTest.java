package io.jtick.core.metrics;

import io.jtick.core.testing.LeakCheck;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

@ExtendWith(LeakCheck.class)
class LatencyStatsTest {

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
    void shouldSummarisePercentilesForExportersAndAnswerZeroForOthers() {
        final LatencyStats s = new LatencyStats("x", "x");
        for (int v = 1; v <= 10_000; v++) {
            s.record(v);
        }
        final LatencyStats.Summary sum = s.summary();
        assertThat(sum.count()).isEqualTo(10_000);
        assertThat(sum.totalNanos()).isCloseTo(50_005_000.0, within(50_005_000.0 * 0.001));
        assertThat(sum.valueAt(0.5)).isCloseTo(5_000, within(5.0));
        assertThat(sum.valueAt(0.99)).isCloseTo(9_900, within(10.0));
        assertThat(sum.valueAt(0.999)).isCloseTo(9_990, within(10.0));
        assertThat(sum.valueAt(0.75)).as("not one of the computed quantiles").isZero();
        assertThat(sum.max()).isCloseTo(10_000L, within(10L));
    }
}
