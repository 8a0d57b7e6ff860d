package io.jtick.lab.readthroughput;

import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One measurement of replay read throughput: N consumers, each a {@link TickClient} on its own
 * connection and its own event-loop thread, send their requests at once to a replay port and read to
 * the end, checking as they go that time never goes backwards and, by the row counter column, that
 * every row arrives exactly once. Wall time runs from the first request to the last REPLAY_DONE.
 * CPU is thread CPU time ({@code ThreadMXBean}) over that wall time, in % of one core: the replay
 * server's threads ({@code hdb-replay-*}) and the consumers' threads apart.
 */
public final class ReadThroughputMeasure {
    private ReadThroughputMeasure() {
    }

    /**
     * What one measurement found.
     *
     * @param consumers      consumer connections
     * @param rows           rows all consumers received together
     * @param bytes          bytes of UPDATE frames they received together
     * @param seconds        wall time, first request to last REPLAY_DONE
     * @param rowsPerSecond  rows / seconds, all consumers together
     * @param perConsumer    each consumer's rows / its own time to REPLAY_DONE
     * @param bytesPerSecond bytes / seconds
     * @param bytesPerRow    bytes / rows
     * @param serverCpu      replay server threads' CPU, % of one core
     * @param consumerCpu    consumer threads' CPU, % of one core
     * @param inOrder        no consumer saw a time go backwards
     * @param exactlyOnce    every consumer got each row it asked for exactly once (row counter)
     * @param problem        what went wrong (a consumer's error, a timeout), or null
     */
    public record Result(int consumers, long rows, long bytes, double seconds, double rowsPerSecond, double[] perConsumer,
                         double bytesPerSecond, double bytesPerRow, double serverCpu, double consumerCpu, boolean inOrder,
                         boolean exactlyOnce, String problem) {
        /** Median of the consumers' own rates. */
        public double perConsumerMedian() {
            final double[] p = perConsumer.clone();
            Arrays.sort(p);
            return p.length == 0 ? 0 : p.length % 2 == 1 ? p[p.length / 2] : (p[p.length / 2 - 1] + p[p.length / 2]) / 2;
        }
    }

    /**
     * Runs the consumers.
     *
     * @param port         the replay port (127.0.0.1)
     * @param requests     one request per consumer
     * @param expectedRows rows each consumer must receive (same index as requests)
     * @param counterRange the row counter's values lie in {@code [0, counterRange)}; 0 = the table has no row counter
     *                     (exactly once is then checked by count only)
     * @param timeoutMillis longest the whole measurement may take
     */
    public static Result run(final int port, final List<ControlFrames.Replay> requests, final long[] expectedRows, final int counterRange,
                             final long timeoutMillis) throws InterruptedException {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
        final int n = requests.size();
        final CountDownLatch done = new CountDownLatch(n);
        final List<Checker> checkers = new ArrayList<>();
        final List<TickClient> clients = new ArrayList<>();
        final long server0 = cpu(threads, "hdb-replay");
        final long consumers0 = cpu(threads, "replay-consumer");
        final long start = System.nanoTime();
        try {
            for (int i = 0; i < n; i++) {
                final Checker c = new Checker(counterRange, done);
                checkers.add(c);
                final TickClient client = TickClient.replay(TickClient.Settings.of("127.0.0.1", port, "replay-consumer-" + (i + 1)),
                    requests.get(i), c, null, NanoClock.SYSTEM);
                clients.add(client);
                client.start();
            }
            final boolean finished = done.await(timeoutMillis, TimeUnit.MILLISECONDS);
            final long end = System.nanoTime();
            final long serverCpu = cpu(threads, "hdb-replay") - server0;
            final long consumerCpu = cpu(threads, "replay-consumer") - consumers0;
            long rows = 0;
            long bytes = 0;
            boolean inOrder = true;
            boolean once = true;
            String problem = finished ? null : "not every consumer finished within " + timeoutMillis + " ms";
            final double[] per = new double[n];
            for (int i = 0; i < n; i++) {
                final Checker c = checkers.get(i);
                rows += c.rows;
                bytes += c.bytes;
                inOrder &= c.backwards == 0;
                once &= c.duplicates == 0 && c.rows == expectedRows[i] && (counterRange == 0 || c.seen.cardinality() == expectedRows[i]);
                per[i] = c.endNanos > start ? c.rows * 1e9 / (c.endNanos - start) : 0;
                if (problem == null && c.problem != null) {
                    problem = "consumer " + (i + 1) + ": " + c.problem;
                }
            }
            final double seconds = (end - start) / 1e9;
            return new Result(n, rows, bytes, seconds, rows / seconds, per, bytes / seconds, rows == 0 ? 0 : (double) bytes / rows,
                serverCpu / (end - start + 0.0) * 100, consumerCpu / (end - start + 0.0) * 100, inOrder, once, problem);
        } finally {
            for (final TickClient c : clients) {
                c.close();
            }
        }
    }

    /** CPU time of the live threads whose name starts with {@code prefix} (those that ended are not counted). */
    private static long cpu(final ThreadMXBean threads, final String prefix) {
        long sum = 0;
        for (final ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (t != null && (t.getThreadName().startsWith(prefix) || t.getThreadName().startsWith("tick-client-" + prefix))) {
                final long c = threads.getThreadCpuTime(t.getThreadId());
                sum += Math.max(0, c);
            }
        }
        return sum;
    }

    /** One consumer's checks: time order, each row counter seen once, rows and bytes. */
    private static final class Checker implements TickListener {
        private final BitSet seen;
        private final int counterRange;
        private final CountDownLatch done;
        private int counterColumn = -1;
        private long last = Long.MIN_VALUE;
        long rows;
        long bytes;
        long backwards;
        long duplicates;
        volatile long endNanos;
        volatile String problem;
        private boolean ended;

        Checker(final int counterRange, final CountDownLatch done) {
            this.seen = new BitSet(counterRange);
            this.counterRange = counterRange;
            this.done = done;
        }

        @Override
        public void onSubscribed(final ControlFrames.Subscribed s) {
            final TableSchema schema = s.schemas().values().iterator().next();
            counterColumn = counterRange > 0 ? schema.indexOf(CountedDays.COUNTER) : -1;
            if (counterRange > 0 && counterColumn < 0) {
                problem = "no row counter column [table=" + schema.name() + "]";
            }
        }

        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder u, final long receiveNanos) {
            final int n = u.rowCount();
            final int nc = counterColumn;
            long prev = last;
            for (int r = 0; r < n; r++) {
                final long t = u.timestamp(r);
                if (t < prev) {
                    backwards++;
                }
                prev = t;
                if (nc >= 0) {
                    final long k = u.int64(nc, r);
                    if (k < 0 || k >= counterRange || seen.get((int) k)) {
                        duplicates++;
                    } else {
                        seen.set((int) k);
                    }
                }
            }
            last = prev;
            rows += n;
            bytes += u.frameLength();
        }

        @Override
        public void onReplayDone(final ControlFrames.ReplayDone d) {
            if (d.status() != ControlFrames.REPLAY_COMPLETE) {
                problem = "replay " + d.statusName() + ": " + d.message();
            }
            end();
        }

        @Override
        public void onError(final ErrorCode code, final String message) {
            problem = code.tag() + ": " + message;
        }

        @Override
        public void onDisconnected() {
            if (problem == null && endNanos == 0) {
                problem = "disconnected before REPLAY_DONE";
            }
            end();
        }

        private void end() {
            if (!ended) {
                ended = true;
                endNanos = System.nanoTime();
                done.countDown();
            }
        }
    }
}
