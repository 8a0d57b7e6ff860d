package io.jtick.core.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.Recorder;

/**
 * A latency histogram in nanoseconds fed from the hot path through an HdrHistogram {@link Recorder}
 * (wait-free, no allocation per value). Readers fold what was recorded off the hot path into two
 * histograms: the <em>window</em> ({@link #snapshot()}, {@link #count()}: since start or the last
 * {@link #reset()}, what a profiling run reads) and the <em>lifetime</em> ({@link #lifetime}: since
 * the process started, never reset, what Prometheus scrapes so its counters never go backwards).
 */
public final class LatencyStats {
    private static final long HIGHEST = 3_600_000_000_000L; // one hour in ns

    private final String name;
    private final String description;
    /**
     * Made at the first value: a recorder holds three fixed-size histograms of 256 KB (one hour in ns at 3 digits),
     * and most of a service's latencies (kdb+ port, journal sync, cluster, replay) never get a value.
     */
    private volatile Recorder recorder;
    /** Off the hot path: auto-resizing, so they hold only the range recorded so far (same buckets as a fixed one). */
    private final Histogram window = new Histogram(3);
    private final Histogram lifetime = new Histogram(3);
    private Histogram interval;

    /**
     * Totals since the process started.
     *
     * @param count    values recorded
     * @param sumNanos their sum, from HdrHistogram's buckets (each value counted at its bucket's
     *                 middle: within 0.05% of the exact sum)
     */
    public record Lifetime(long count, double sumNanos) {
    }

    public LatencyStats(final String name, final String description) {
        this.name = name;
        this.description = description;
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** Records one value in nanoseconds (negative values, from clock skew, count as 0). */
    public void record(final long nanos) {
        final Recorder r = recorder;
        (r != null ? r : recorder()).recordValue(nanos < 0 ? 0 : Math.min(nanos, HIGHEST));
    }

    private synchronized Recorder recorder() {
        if (recorder == null) {
            recorder = new Recorder(HIGHEST, 3);
        }
        return recorder;
    }

    /** Folds what was recorded since the last call into the window and returns a copy of it. */
    public synchronized Histogram snapshot() {
        fold();
        return window.copy();
    }

    /** Values in the window (since start or {@link #reset()}); folds pending values first. */
    public synchronized long count() {
        fold();
        return window.getTotalCount();
    }

    /** Clears the window (the profiling runs reset between matrix rows); the lifetime keeps everything. */
    public synchronized void reset() {
        fold();
        window.reset();
    }

    /**
     * Everything recorded since the process started, sorted into the caller's buckets: {@code counts[i]}
     * (not cumulative) receives the values in ({@code upperNanos[i-1]}, {@code upperNanos[i]}], and
     * {@code counts[upperNanos.length]} those above the last bound. An HdrHistogram bucket goes where its
     * highest equivalent value falls, which is the value HdrHistogram reports for a percentile that
     * lands in it: a percentile read here and one read from the caller's buckets fall in the same bucket.
     *
     * @param upperNanos ascending upper bounds in nanoseconds
     * @param counts     at least {@code upperNanos.length + 1} slots, overwritten
     */
    public synchronized Lifetime lifetime(final double[] upperNanos, final long[] counts) {
        fold();
        java.util.Arrays.fill(counts, 0, upperNanos.length + 1, 0L);
        int b = 0;
        double sum = 0;
        for (final HistogramIterationValue v : lifetime.recordedValues()) {
            final long value = v.getValueIteratedTo();
            final long n = v.getCountAtValueIteratedTo();
            while (b < upperNanos.length && value > upperNanos[b]) {
                b++;
            }
            counts[b] += n;
            sum += (double) n * lifetime.medianEquivalentValue(value);
        }
        return new Lifetime(lifetime.getTotalCount(), sum);
    }

    private void fold() {
        final Recorder r = recorder;
        if (r == null) {
            return;
        }
        interval = r.getIntervalHistogram(interval);
        window.add(interval);
        lifetime.add(interval);
    }
}
