package io.jtick.bench.pipeline;

import org.HdrHistogram.Histogram;

/** Latency percentiles of one histogram, nanoseconds. */
record Percentiles(String name, long count, long p50, long p90, long p99, long p999, long max) {
    static Percentiles of(final String name, final Histogram h) {
        return new Percentiles(name, h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
            h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }
}
