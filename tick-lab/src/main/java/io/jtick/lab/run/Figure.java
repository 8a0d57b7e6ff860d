package io.jtick.lab.run;

import org.HdrHistogram.Histogram;

/**
 * One latency figure of a result row (the paper's tplog, rdbrecv, ...), in microseconds.
 *
 * @param count  values recorded while measuring
 * @param median the paper's figure
 * @param p99    99th percentile
 * @param p999   99.9th percentile
 * @param max    largest value
 */
public record Figure(long count, double median, double p99, double p999, double max) {
    /** Percentiles of a histogram in nanoseconds, as microseconds to the nanosecond; null when it is empty. */
    public static Figure of(final Histogram h) {
        if (h == null || h.getTotalCount() == 0) {
            return null;
        }
        return new Figure(h.getTotalCount(), micros(h.getValueAtPercentile(50)), micros(h.getValueAtPercentile(99)),
            micros(h.getValueAtPercentile(99.9)), micros(h.getMaxValue()));
    }

    public static double micros(final long nanos) {
        return nanos / 1000.0;
    }
}
