package io.jtick.lab.readthroughput;

import java.util.Map;

/**
 * TimeBase's published read-throughput figures (../shared/reference/other-anchors.md, "TimeBase —
 * historical read throughput"), in messages per second, all consumers together: a single stream of
 * 44-byte messages (Bloomberg L1) on one i7-13850HX (20 cores) to 1, 5 and 10 consumers; independent
 * streams of 36-byte bars to 4 and 16 remote consumers over 25 Gbit from a 64-vCPU server; and the
 * same server limited to 2 vCPUs, 4 consumers. Other consumer counts have no published figure.
 */
public final class TimeBaseFigures {
    /** Where the figures come from. */
    public static final String SOURCE = "../shared/reference/other-anchors.md (TimeBase historical read throughput)";
    private static final Map<Integer, Double> ONE_STREAM = Map.of(1, 1.03e6, 5, 5.16e6, 10, 6.73e6);
    private static final Map<Integer, Double> INDEPENDENT = Map.of(4, 18.5e6, 16, 48.9e6);
    private static final double TWO_VCPU_FOUR_CONSUMERS = 6.3e6;

    private TimeBaseFigures() {
    }

    /** TimeBase's total msg/s for {@code consumers} consumers of one stream ({@code streams} 1) or independent streams, or null. */
    public static Double total(final int consumers, final int streams) {
        return streams == 1 ? ONE_STREAM.get(consumers) : streams == consumers ? INDEPENDENT.get(consumers) : null;
    }

    /** Which figure and machine {@link #total} is. */
    public static String ref(final int consumers, final int streams) {
        if (total(consumers, streams) == null) {
            return null;
        }
        return streams == 1 ? "single stream, " + consumers + " consumer(s), 44-byte messages, i7-13850HX 20 cores"
            : "independent streams, " + consumers + " remote consumers, 36-byte bars, 64-vCPU server, 25 Gbit";
    }

    /** TimeBase's server limited to 2 vCPUs: 6.3M msg/s with 4 consumers (the figure nearest this machine's size); null otherwise. */
    public static Double twoVcpu(final int consumers) {
        return consumers == 4 ? TWO_VCPU_FOUR_CONSUMERS : null;
    }
}
