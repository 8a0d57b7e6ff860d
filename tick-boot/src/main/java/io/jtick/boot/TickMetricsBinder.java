package io.jtick.boot;

import io.jtick.core.metrics.TickMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Exposes a core {@link TickMetrics} without touching the hot path: the core records into
 * HdrHistogram recorders and atomics; everything here is read when Prometheus scrapes. Counters and
 * gauges become Micrometer meters; latencies become Prometheus histograms
 * ({@link LatencyHistogramCollector}: {@code tick_tp_log_seconds_bucket/_count/_sum}) registered in
 * the {@link PrometheusRegistry} behind the Micrometer Prometheus registry, since Micrometer cannot
 * build buckets from a histogram it did not record. Names may carry tags after a '|':
 * {@code tick.tp.errors|code=malformed-frame}, {@code tick.query|service=hdb}. It also exports what
 * Netty's shared allocators hold ({@code netty_allocator_memory_used{allocator_type, memory_type="direct"}}, bytes):
 * the direct memory of every socket buffer, kept for reuse after the connections that used it are gone.
 */
public final class TickMetricsBinder implements MeterBinder {
    private final TickMetrics metrics;
    private final Set<PrometheusRegistry> registered = Collections.newSetFromMap(new IdentityHashMap<>());

    public TickMetricsBinder(final TickMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public void bindTo(final MeterRegistry registry) {
        // the histograms carry the registry's common tags (management.metrics.tags.*) like every meter: read them off a meter
        final Gauge latencies = Gauge.builder("tick.latencies", metrics, m -> m.latencies().size())
            .description("latency histograms this process exports")
            .register(registry);
        registerHistograms(registry, latencies.getId().getTags());
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
        // the channels' allocator (adaptive by default) and the pooled one jtick's own code asks for by name
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider allocator) {
            new NettyAllocatorMetrics(allocator).bindTo(registry);
        }
        if (ByteBufAllocator.DEFAULT != PooledByteBufAllocator.DEFAULT) {
            new NettyAllocatorMetrics(PooledByteBufAllocator.DEFAULT).bindTo(registry);
        }
    }

    /** The latency histograms go to every Prometheus registry reachable from {@code registry}, once each. */
    private void registerHistograms(final MeterRegistry registry, final List<Tag> commonTags) {
        if (registry instanceof PrometheusMeterRegistry prometheus) {
            synchronized (registered) {
                if (registered.add(prometheus.getPrometheusRegistry())) {
                    prometheus.getPrometheusRegistry().register(new LatencyHistogramCollector(metrics, commonTags));
                }
            }
        } else if (registry instanceof CompositeMeterRegistry composite) {
            composite.getRegistries().forEach(r -> registerHistograms(r, commonTags));
        }
    }

    static String[] split(final String key) {
        final int bar = key.indexOf('|');
        return bar < 0 ? new String[] {key, ""} : new String[] {key.substring(0, bar), key.substring(bar + 1)};
    }

    static Tags tags(final String spec) {
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
