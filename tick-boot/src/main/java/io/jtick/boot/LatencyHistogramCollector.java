package io.jtick.boot;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.micrometer.core.instrument.Tag;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every core latency as a Prometheus histogram, built from its HdrHistogram when Prometheus scrapes:
 * {@code tick.tp.log} becomes {@code tick_tp_log_seconds_bucket{le=…}}, {@code _count} and {@code _sum}
 * over the process's lifetime ({@link LatencyStats#lifetime}: a profiling run's reset does not touch
 * them, so they only grow). Bucket bounds are 2<sup>k/8</sup> seconds for k = -160…32 (0.95 µs to
 * 16 s, eight per octave, the boundaries of a native histogram of schema 3), so a
 * {@code histogram_quantile} is within a factor 2<sup>1/8</sup> (±9.05%) of the percentile
 * HdrHistogram reports (docs/metrics.md derives the bound). Tags after a '|' in the core name
 * ({@code tick.query|service=hdb}) become labels, after the registry's common tags
 * ({@code application}); one name with several tag sets is one family.
 */
final class LatencyHistogramCollector implements MultiCollector {
    /** Bounds per octave: the bucket ratio is 2^(1/PER_OCTAVE). */
    static final int PER_OCTAVE = 8;
    private static final int LOWEST = -20 * PER_OCTAVE;
    private static final int HIGHEST = 4 * PER_OCTAVE;
    /** Upper bounds in seconds, +Inf last. */
    static final double[] UPPER_SECONDS = new double[HIGHEST - LOWEST + 2];
    private static final double[] UPPER_NANOS = new double[HIGHEST - LOWEST + 1];

    static {
        for (int k = LOWEST; k <= HIGHEST; k++) {
            UPPER_SECONDS[k - LOWEST] = Math.pow(2, (double) k / PER_OCTAVE);
            UPPER_NANOS[k - LOWEST] = UPPER_SECONDS[k - LOWEST] * 1e9;
        }
        UPPER_SECONDS[UPPER_SECONDS.length - 1] = Double.POSITIVE_INFINITY;
    }

    private final TickMetrics metrics;
    private final Labels common;

    /** @param commonTags labels every histogram carries (the Micrometer registry's common tags) */
    LatencyHistogramCollector(final TickMetrics metrics, final List<Tag> commonTags) {
        this.metrics = metrics;
        final Labels.Builder b = Labels.builder();
        commonTags.forEach(t -> b.label(t.getKey(), t.getValue()));
        this.common = b.build();
    }

    @Override
    public MetricSnapshots collect() {
        final Map<String, HistogramSnapshot.Builder> families = new LinkedHashMap<>();
        for (final LatencyStats stats : metrics.latencies()) {
            final String[] nameAndTags = TickMetricsBinder.split(stats.name());
            final long[] counts = new long[UPPER_SECONDS.length];
            final LatencyStats.Lifetime life = stats.lifetime(UPPER_NANOS, counts);
            final Labels.Builder own = Labels.builder();
            TickMetricsBinder.tags(nameAndTags[1]).forEach(t -> own.label(t.getKey(), t.getValue()));
            final Labels labels = common.merge(own.build());
            final String name = nameAndTags[0].replace('.', '_') + "_seconds";
            families.computeIfAbsent(name, n -> HistogramSnapshot.builder().name(n).help(stats.description()).unit(Unit.SECONDS))
                .dataPoint(HistogramDataPointSnapshot.builder()
                    .classicHistogramBuckets(ClassicHistogramBuckets.of(UPPER_SECONDS, counts))
                    .sum(life.sumNanos() / 1e9)
                    .labels(labels)
                    .build());
        }
        final MetricSnapshots.Builder out = MetricSnapshots.builder();
        families.values().forEach(f -> out.metricSnapshot(f.build()));
        return out.build();
    }
}
