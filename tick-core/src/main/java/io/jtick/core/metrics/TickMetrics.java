package io.jtick.core.metrics;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The named latency histograms, counters and gauges an engine records into. Services export every
 * entry when Prometheus scrapes (names as in docs/metrics.md: {@code tick.tp.log}, {@code tick.tp.pub}...;
 * latencies as histograms over their lifetime, see {@link LatencyStats#lifetime}). Created at
 * start-up; lookups are not for the hot path: engines keep the returned objects in fields.
 */
public final class TickMetrics {
    private final Map<String, LatencyStats> latencies = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, AtomicLong> counters = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, LongSupplier> gauges = Collections.synchronizedMap(new LinkedHashMap<>());

    public LatencyStats latency(final String name, final String description) {
        return latencies.computeIfAbsent(name, n -> new LatencyStats(n, description));
    }

    public AtomicLong counter(final String name) {
        return counters.computeIfAbsent(name, n -> new AtomicLong());
    }

    public void gauge(final String name, final LongSupplier supplier) {
        gauges.put(name, supplier);
    }

    public Collection<LatencyStats> latencies() {
        synchronized (latencies) {
            return java.util.List.copyOf(latencies.values());
        }
    }

    public Map<String, AtomicLong> counters() {
        synchronized (counters) {
            return Map.copyOf(counters);
        }
    }

    public Map<String, LongSupplier> gauges() {
        synchronized (gauges) {
            return Map.copyOf(gauges);
        }
    }

    /** Resets every latency's window (profiling runs); the lifetime histograms Prometheus reads are kept. */
    public void resetLatencies() {
        for (final LatencyStats l : latencies()) {
            l.reset();
        }
    }
}
