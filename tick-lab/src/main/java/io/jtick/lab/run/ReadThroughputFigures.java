package io.jtick.lab.run;

/**
 * What one entry of the replay experiment measured ({@code readthroughput.ReadThroughputLab}), with TimeBase's figure for
 * the same shape beside it.
 *
 * @param consumers          consumer connections, each on its own thread
 * @param streams            1: all read one stream; N: N independent streams
 * @param data               synthetic or algoseek
 * @param encoding           the partition's encoding
 * @param dayRows            rows of the day replayed
 * @param rows               rows all consumers received together
 * @param seconds            wall time, first request to last REPLAY_DONE
 * @param rowsPerSecond      total rows/s, all consumers together
 * @param perConsumer        median of the consumers' own rows/s
 * @param bytesPerSecond     bytes of UPDATE frames received per second, all together
 * @param bytesPerRow        frame bytes per row
 * @param serverCpu          replay server threads, % of one core
 * @param consumerCpu        consumer threads, % of one core
 * @param inOrder            no consumer saw time go backwards
 * @param exactlyOnce        every consumer got each of its rows once (row counter; the real day: by count)
 * @param timebase           TimeBase's total msg/s for this consumer count and stream shape, or null when it published none
 * @param timebaseRef        which TimeBase figure, on which machine
 * @param ratio              ours / TimeBase, or null
 * @param timebase2vcpu      TimeBase on a 2-vCPU server (4 consumers), for the entries with 4 consumers, or null
 * @param ratio2vcpu         ours / that figure, or null
 */
public record ReadThroughputFigures(int consumers, int streams, String data, String encoding, long dayRows, long rows, double seconds,
                            double rowsPerSecond, double perConsumer, double bytesPerSecond, double bytesPerRow, double serverCpu,
                            double consumerCpu, boolean inOrder, boolean exactlyOnce, Double timebase, String timebaseRef, Double ratio,
                            Double timebase2vcpu, Double ratio2vcpu) {
}
