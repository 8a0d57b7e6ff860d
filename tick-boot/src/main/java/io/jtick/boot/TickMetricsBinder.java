package io.jtick.boot;

import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Exposes a core {@link TickMetrics} through Micrometer without touching the hot path: the core
 * records into HdrHistogram recorders and atomics; this binder reads them when Prometheus scrapes.
 * A latency {@code tick.tp.log} becomes {@code tick_tp_log_seconds_count/_sum} (a FunctionTimer),
 * {@code tick_tp_log_percentile_seconds{quantile="0.5|0.9|0.99|0.999"}} and {@code tick_tp_log_max_seconds}.
 * Latency, counter and gauge names may carry tags after a '|': {@code tick.tp.errors|code=malformed-frame},
 * {@code tick.query|service=hdb}.
 */
public final class TickMetricsBinder implements MeterBinder {
    private static final double[] QUANTILES = {0.5, 0.9, 0.99, 0.999};

    private final TickMetrics metrics;

    public TickMetricsBinder(final TickMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void bindTo(final MeterRegistry registry) {
        for (final LatencyStats stats : metrics.latencies()) {
            final String[] nameAndTags = split(stats.name());
            final Tags tags = tags(nameAndTags[1]);
            FunctionTimer.builder(nameAndTags[0], stats, s -> s.summary().count(), s -> s.summary().totalNanos(), TimeUnit.NANOSECONDS)
                .tags(tags)
                .description(stats.description())
                .register(registry);
            for (final double q : QUANTILES) {
                TimeGauge.builder(nameAndTags[0] + ".percentile", stats, TimeUnit.NANOSECONDS, s -> s.summary().valueAt(q))
                    .tags(tags)
                    .tag("quantile", Double.toString(q))
                    .description(stats.description() + " (percentile since start or last reset)")
                    .register(registry);
            }
            TimeGauge.builder(nameAndTags[0] + ".max", stats, TimeUnit.NANOSECONDS, s -> s.summary().max())
                .tags(tags)
                .description(stats.description() + " (max since start or last reset)")
                .register(registry);
        }
        for (final Map.Entry<String, AtomicLong> c : metrics.counters().entrySet()) {
            final String[] nameAndTags = split(c.getKey());
            FunctionCounter.builder(nameAndTags[0], c.getValue(), AtomicLong::get)
                .tags(tags(nameAndTags[1]))
                .register(registry);
        }
        for (final Map.Entry<String, LongSupplier> g : metrics.gauges().entrySet()) {
            final String[] nameAndTags = split(g.getKey());
            Gauge.builder(nameAndTags[0], g.getValue(), s -> s.getAsLong())
                .tags(tags(nameAndTags[1]))
                .register(registry);
        }
    }

    private static String[] split(final String key) {
        final int bar = key.indexOf('|');
        return bar < 0 ? new String[] {key, ""} : new String[] {key.substring(0, bar), key.substring(bar + 1)};
    }

    private static Tags tags(final String spec) {
        Tags tags = Tags.empty();
        if (spec.isEmpty()) {
            return tags;
        }
        for (final String kv : spec.split(",")) {
            final int eq = kv.indexOf('=');
            tags = tags.and(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return tags;
    }
}
