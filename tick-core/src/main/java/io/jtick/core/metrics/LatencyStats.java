package io.jtick.core.metrics;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A latency histogram in nanoseconds fed from the hot path through an HdrHistogram {@link Recorder}
 * (wait-free, no allocation per value). Readers call {@link #snapshot()} off the hot path: it folds
 * the interval into a cumulative histogram and keeps the last interval for "recent" percentiles.
 */
public final class LatencyStats {
    private static final long HIGHEST = 3_600_000_000_000L; // one hour in ns

    private final String name;
    private final String description;
    private final Recorder recorder = new Recorder(HIGHEST, 3);
    private final Histogram cumulative = new Histogram(HIGHEST, 3);
    private Histogram interval;

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

    /** Cumulative histogram since start or {@link #reset()}; folds pending values first. */
    public synchronized long count() {
        interval = recorder.getIntervalHistogram(interval);
        cumulative.add(interval);
        return cumulative.getTotalCount();
    }

    /** Clears everything recorded (the profiling runs reset between matrix rows). */
    public synchronized void reset() {
        interval = recorder.getIntervalHistogram(interval);
        cumulative.reset();
    }
}
