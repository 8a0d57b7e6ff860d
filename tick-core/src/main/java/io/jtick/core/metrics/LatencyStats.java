package io.jtick.core.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A latency histogram in nanoseconds fed from the hot path through an HdrHistogram {@link Recorder}
 * (wait-free, no allocation per value). Readers ({@link #snapshot()}, {@link #summary()},
 * {@link #count()}) run off the hot path: each folds what was recorded since the last read into one
 * cumulative histogram, which holds everything since start or {@link #reset()}.
 */
public final class LatencyStats {
    private static final long HIGHEST = 3_600_000_000_000L; // one hour in ns

    private final String name;
    private final String description;
    private final Recorder recorder = new Recorder(HIGHEST, 3);
    private final Histogram cumulative = new Histogram(HIGHEST, 3);
    private Histogram interval;
    private volatile Summary summary = new Summary(0, 0, new long[0], new double[0], 0);
    private long summaryAt;

    /** A cached view of the cumulative histogram for exporters (refreshed at most every 500 ms). */
    public record Summary(long count, double totalNanos, long[] values, double[] quantiles, long max) {
        /** Value in ns at one of the quantiles computed at refresh (0.5, 0.9, 0.99, 0.999); 0 for any other quantile. */
        public double valueAt(final double q) {
            for (int i = 0; i < quantiles.length; i++) {
                if (quantiles[i] == q) {
                    return values[i];
                }
            }
            return 0;
        }
    }

    private static final double[] SUMMARY_QUANTILES = {0.5, 0.9, 0.99, 0.999};

    /** Cached summary for metric exporters; never blocks the hot path. */
    public Summary summary() {
        final long now = System.nanoTime();
        synchronized (this) {
            if (now - summaryAt > 500_000_000L || summaryAt == 0) {
                interval = recorder.getIntervalHistogram(interval);
                cumulative.add(interval);
                final long[] v = new long[SUMMARY_QUANTILES.length];
                for (int i = 0; i < v.length; i++) {
                    v[i] = cumulative.getValueAtPercentile(SUMMARY_QUANTILES[i] * 100.0);
                }
                final long count = cumulative.getTotalCount();
                summary = new Summary(count, count == 0 ? 0 : cumulative.getMean() * count, v, SUMMARY_QUANTILES,
                    cumulative.getMaxValue());
                summaryAt = now;
            }
            return summary;
        }
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
        recorder.recordValue(nanos < 0 ? 0 : Math.min(nanos, HIGHEST));
    }

    /** Folds what was recorded since the last call into the cumulative histogram and returns a copy of it. */
    public synchronized Histogram snapshot() {
        interval = recorder.getIntervalHistogram(interval);
        cumulative.add(interval);
        return cumulative.copy();
    }

    /** Number of values recorded since start or {@link #reset()}; folds pending values first. */
    public synchronized long count() {
        interval = recorder.getIntervalHistogram(interval);
        cumulative.add(interval);
        return cumulative.getTotalCount();
    }

    /** Clears everything recorded (the profiling runs reset between matrix rows). */
    public synchronized void reset() {
        interval = recorder.getIntervalHistogram(interval);
        cumulative.reset();
        summaryAt = 0;
    }
}
