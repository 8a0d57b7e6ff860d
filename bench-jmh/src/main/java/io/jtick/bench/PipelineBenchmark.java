package io.jtick.bench;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.metrics.LatencyStats;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.rdb.EndOfDayHandler;
import io.jtick.core.rdb.RealtimeDatabase;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The whole path on loopback in one JVM: a {@link FeedPublisher} sends trade updates to a
 * {@link TickerplantServer} (real Chronicle journal in a temp directory), which publishes them to a
 * {@link RealtimeDatabase} subscribed through a {@link TickClient}. Sends {@code --rows} rows in
 * updates of {@code --r} rows, at {@code --rate} updates/s (0: as fast as the TP takes them, frames
 * batched up to {@code --batch-bytes} per write), waits until the RDB holds every row, and prints
 * rows/s end to end and latency percentiles: the TP's and RDB's own histograms plus feed→RDB
 * (RDB receive time − the frame's feed time, which the feed sets when it sends). A warm-up of
 * {@code --warmup} rows runs first at the same rate; its latencies and time are not counted.
 *
 * <pre>
 * ./jtick bench-pipeline --rows 1000000                       # throughput, r=100
 * ./jtick bench-pipeline --rows 300000 --r 1 --rate 10000     # feed→RDB latency at 10,000 updates/s
 * </pre>
 */
public final class PipelineBenchmark {
    /** Latency histograms reported, in order. */
    static final List<String> LATENCIES = List.of("tick.tp.upd", "tick.tp.log", "tick.tp.pub", "tick.tp.flush",
        "tick.rdb.recv", "tick.rdb.upd", "bench.feed.rdb");
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};

    private PipelineBenchmark() {
    }

    /** Command-line options. */
    public record Options(long rows, int r, int rate, int ex, long warmup, int syms, int batchBytes, Path dir, boolean numbered) {
        public static Options parse(final String[] args) {
            long rows = 10_000_000;
            int r = 100;
            int rate = 0;
            int ex = 0;
            long warmup = -1;
            int syms = 100;
            int batchBytes = 64 * 1024;
            Path dir = null;
            boolean numbered = true;
            for (int i = 0; i < args.length; i++) {
                final String a = args[i];
                if ("-h".equals(a) || "--help".equals(a)) {
                    throw new IllegalArgumentException(usage());
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + a + "\n" + usage());
                }
                final String v = args[++i];
                switch (a) {
                    case "--rows":
                        rows = Long.parseLong(v);
                        break;
                    case "--r":
                        r = Integer.parseInt(v);
                        break;
                    case "--rate":
                        rate = Integer.parseInt(v);
                        break;
                    case "--ex":
                        ex = Integer.parseInt(v);
                        break;
                    case "--warmup":
                        warmup = Long.parseLong(v);
                        break;
                    case "--syms":
                        syms = Integer.parseInt(v);
                        break;
                    case "--batch-bytes":
                        batchBytes = Integer.parseInt(v);
                        break;
                    case "--dir":
                        dir = Path.of(v);
                        break;
                    case "--numbered":
                        numbered = Boolean.parseBoolean(v);
                        break;
                    default:
                        throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            if (warmup < 0) {
                warmup = rate > 0 ? Math.min(rows / 5, 10L * rate * r) : Math.min(rows / 5, 2_000_000L);
            }
            return new Options(rows, r, rate, ex, warmup, syms, batchBytes, dir, numbered).validate();
        }

        Options validate() {
            if (r < 1 || rows < r || rows % r != 0 || warmup < 0) {
                throw new IllegalArgumentException("need rows >= r >= 1 with rows a multiple of r [rows=" + rows + ", r=" + r + "]");
            }
            if (rate < 0 || ex < 0 || syms < 1 || batchBytes < 1024) {
                throw new IllegalArgumentException("rate, ex >= 0, syms >= 1, batch-bytes >= 1024");
            }
            return this;
        }

        /** Warm-up rows rounded down to whole updates. */
        long warmupRows() {
            return warmup / r * r;
        }

        static String usage() {
            return "usage: PipelineBenchmark [--rows N (10000000)] [--r rows/update (100)] [--rate updates/s (0 = max)]"
                + " [--ex extra float columns (0)] [--warmup rows (rows/5, max 2M; paced: 10 s)] [--syms N (100)]"
                + " [--batch-bytes B (65536, unpaced only)] [--dir journal dir (temp)]"
                + " [--numbered true|false (true: protocol 2, acknowledged and resendable; false: protocol 1)]";
        }
    }

    /** Latency percentiles of one histogram, nanoseconds. */
    public record Percentiles(String name, long count, long p50, long p90, long p99, long p999, long max) {
        static Percentiles of(final String name, final Histogram h) {
            return new Percentiles(name, h.getTotalCount(), h.getValueAtPercentile(PERCENTILES[0]),
                h.getValueAtPercentile(PERCENTILES[1]), h.getValueAtPercentile(PERCENTILES[2]),
                h.getValueAtPercentile(PERCENTILES[3]), h.getMaxValue());
        }
    }

    /**
     * What a run measured and what the RDB ended with.
     *
     * @param rdbRows        rows in the RDB's trade table (warm-up included)
     * @param rowsInOrder    true when the RDB's {@code size} column is exactly 0, 1, 2, ... rdbRows-1:
     *                       every row arrived exactly once, in order
     */
    public record Result(Options options, long rowsSent, double seconds, double rowsPerSecond, double updatesPerSecond,
                         long rdbRows, long duplicates, long rejected, long feedErrors, boolean rowsInOrder,
                         List<Percentiles> latencies) {
    }

    public static void main(final String[] args) throws Exception {
        final Options o;
        try {
            o = Options.parse(args);
        } catch (final IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        final Result res = run(o);
        System.out.print(table(res));
        System.out.println(json(res));
        if (!res.rowsInOrder() || res.duplicates() != 0 || res.rejected() != 0) {
            System.exit(1);
        }
    }

    /** Runs the pipeline once; the caller's thread is the feed. */
    public static Result run(final Options o) throws IOException, InterruptedException {
        final Path dir = o.dir() != null ? o.dir() : Files.createTempDirectory("jtick-pipeline");
        final boolean tempDir = o.dir() == null;
        final TickMetrics metrics = new TickMetrics();
        final SchemaRegistry schemas = SchemaRegistry.builtIn(o.ex());
        final TableSchema schema = schemas.get("trade");
        final NanoClock clock = NanoClock.SYSTEM;
        final long total = o.warmupRows() + o.rows();
        final int capacity = (int) Math.min(total, 1 << 28);
        final RealtimeDatabase rdb = new RealtimeDatabase(metrics, EndOfDayHandler.NONE, List.of(), capacity);
        final CountingListener listener = new CountingListener(rdb, metrics.latency("bench.feed.rdb",
            "feed send time to RDB receive time"));
        final TickerplantSettings settings = TickerplantSettings.defaults(dir).withPort(0);
        try (TickerplantServer server = new TickerplantServer(settings, schemas, clock, metrics).start()) {
            try (TickClient client = new TickClient(TickClient.Settings.of("127.0.0.1", server.port(), "bench-rdb"), listener,
                rdb::lastSequence, null, clock);
                 FeedPublisher feed = new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", server.port(), "bench-feed")
                     .withNumbered(o.numbered()), null)) {
                client.start();
                waitFor(client::isSubscribed, 10_000, "the RDB did not subscribe within 10 s");
                feed.connect(5_000);
                final Feed f = new Feed(o, schema, feed, clock);
                if (o.warmupRows() > 0) {
                    listener.target(o.warmupRows());
                    f.send(0, o.warmupRows());
                    listener.await(o.warmupRows(), timeoutMillis(o, o.warmupRows()), feed);
                    metrics.resetLatencies();
                }
                listener.target(total);
                final long start = System.nanoTime();
                f.send(o.warmupRows(), o.rows());
                listener.await(total, timeoutMillis(o, o.rows()), feed);
                final double seconds = (listener.doneNanos - start) / 1e9;
                final List<Percentiles> lat = new ArrayList<>();
                for (final String name : LATENCIES) {
                    lat.add(Percentiles.of(name, metrics.latency(name, name).snapshot()));
                }
                final RealtimeDatabase.Status st = rdb.status();
                final TableSegment t = rdb.table("trade");
                final long rdbRows = t == null ? 0 : t.rowCount();
                return new Result(o, total, seconds, o.rows() / seconds, o.rows() / (double) o.r() / seconds, rdbRows,
                    st.duplicates(), st.rejected(), feed.errorsReceived(), t != null && rowsInOrder(t, total), lat);
            }
        } finally {
            if (tempDir) {
                TickerplantBenchmark.deleteTree(dir);
            }
        }
    }

    private static long timeoutMillis(final Options o, final long rows) {
        final long paced = o.rate() > 0 ? rows / o.r() * 1000L / o.rate() : 0;
        return 60_000 + paced + rows / 100;
    }

    /** True when the table's size column is 0, 1, ..., expected-1. */
    static boolean rowsInOrder(final TableSegment t, final long expected) {
        if (t.rowCount() != expected) {
            return false;
        }
        final ColumnChunk chunk = new ColumnChunk();
        for (int at = 0; at < expected; at += t.chunkRows()) {
            final int n = (int) Math.min(t.chunkRows(), expected - at);
            t.read(TradeFrames.SIZE, at, n, chunk);
            for (int i = 0; i < n; i++) {
                if (chunk.longs()[chunk.offset() + i] != at + i) {
                    return false;
                }
            }
        }
        return true;
    }

    private static void waitFor(final java.util.function.BooleanSupplier cond, final long millis, final String failure) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(failure);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** The feed: builds and sends updates on the caller's thread. */
    private static final class Feed {
        private final Options o;
        private final TableSchema schema;
        private final FeedPublisher feed;
        private final NanoClock clock;
        private final byte[][] syms;
        private final UpdateEncoder encoder = new UpdateEncoder();
        private final int maxFrame;

        Feed(final Options o, final TableSchema schema, final FeedPublisher feed, final NanoClock clock) {
            this.o = o;
            this.schema = schema;
            this.feed = feed;
            this.clock = clock;
            this.syms = TradeFrames.syms(o.syms());
            this.maxFrame = TradeFrames.maxLength(schema, o.r(), syms);
        }

        /** Sends rows {@code first .. first+count-1}. */
        void send(final long first, final long count) {
            if (o.rate() > 0) {
                paced(first, count);
            } else {
                batched(first, count);
            }
        }

        /** One update per write, on a fixed schedule (no drift: each send is due at start + k × period). */
        private void paced(final long first, final long count) {
            final long period = 1_000_000_000L / o.rate();
            final long start = System.nanoTime();
            long k = 0;
            for (long row = first; row < first + count; row += o.r(), k++) {
                final long due = start + k * period;
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                writable();
                final ByteBuf buf = feed.alloc().directBuffer(maxFrame);
                final long now = clock.epochNanos();
                TradeFrames.encode(encoder, buf, schema, o.r(), row, syms, now, now);
                if (!feed.send(buf)) {
                    throw new IllegalStateException("feed send refused: " + feed.lastError());
                }
            }
        }

        /** As fast as the TP takes them: frames packed into writes of up to batch-bytes. */
        private void batched(final long first, final long count) {
            final long end = first + count;
            long row = first;
            while (row < end) {
                writable();
                final int perBatch = Math.max(1, o.batchBytes() / maxFrame);
                final ByteBuf buf = feed.alloc().directBuffer(perBatch * maxFrame);
                for (int k = 0; k < perBatch && row < end; k++, row += o.r()) {
                    final long now = clock.epochNanos();
                    TradeFrames.encode(encoder, buf, schema, o.r(), row, syms, now, now);
                }
                if (!feed.send(buf)) {
                    throw new IllegalStateException("feed send refused: " + feed.lastError());
                }
            }
        }

        private void writable() {
            if (!feed.awaitWritable(TimeUnit.SECONDS.toNanos(30))) {
                throw new IllegalStateException("feed connection not writable for 30 s [connected=" + feed.isConnected()
                    + ", lastError=" + feed.lastError() + "]");
            }
        }
    }

    /** Wraps the RDB: records feed→RDB latency and counts rows, on the subscription thread. */
    private static final class CountingListener implements TickListener {
        private final RealtimeDatabase rdb;
        private final LatencyStats feedToRdb;
        private volatile long rows;
        private volatile long doneNanos;
        private volatile long target = Long.MAX_VALUE;

        CountingListener(final RealtimeDatabase rdb, final LatencyStats feedToRdb) {
            this.rdb = rdb;
            this.feedToRdb = feedToRdb;
        }

        @Override
        public void onSubscribed(final ControlFrames.Subscribed subscribed) {
            rdb.onSubscribed(subscribed);
        }

        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
            feedToRdb.record(receiveNanos - update.feedTime());
            rdb.onUpdate(schema, update, receiveNanos);
            final long n = rows + update.rowCount();
            if (n >= target && doneNanos == 0) {
                doneNanos = System.nanoTime();
            }
            rows = n;
        }

        @Override
        public void onCatchUpDone(final long sequence) {
            rdb.onCatchUpDone(sequence);
        }

        @Override
        public void onEndOfDay(final int epochDay, final long sequence) {
            rdb.onEndOfDay(epochDay, sequence);
        }

        @Override
        public void onError(final ErrorCode code, final String message) {
            rdb.onError(code, message);
        }

        @Override
        public void onDisconnected() {
            rdb.onDisconnected();
        }

        /** Waits until {@code expected} rows have arrived; the time of arrival is {@link #doneNanos}. */
        void await(final long expected, final long timeoutMillis, final FeedPublisher feed) {
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (rows < expected) {
                if (System.nanoTime() > deadline || feed.errorsReceived() > 0) {
                    throw new IllegalStateException("RDB has " + rows + " of " + expected + " rows [feedErrors="
                        + feed.errorsReceived() + ", lastError=" + feed.lastError() + "]");
                }
                LockSupport.parkNanos(200_000);
            }
        }

        /** Set by the feed thread before it sends: the row count whose arrival time {@link #doneNanos} records. */
        void target(final long expected) {
            doneNanos = 0;
            target = expected;
        }
    }

    // ---------------------------------------------------------------- output

    static String table(final Result res) {
        final Options o = res.options();
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "jtick pipeline: feed -> TP (journal %s) -> RDB over loopback, %d cores%n",
            "chronicle", Runtime.getRuntime().availableProcessors()));
        sb.append(String.format(Locale.ROOT, "rows=%d r=%d rate=%s ex=%d warmup=%d syms=%d feed=%s%n", o.rows(), o.r(),
            o.rate() == 0 ? "max" : o.rate() + "/s", o.ex(), o.warmupRows(), o.syms(), o.numbered() ? "numbered" : "protocol-1"));
        sb.append(String.format(Locale.ROOT, "%.3f s  %,.0f rows/s  %,.0f updates/s  rdbRows=%d duplicates=%d rejected=%d"
                + " exactlyOnceInOrder=%s%n", res.seconds(), res.rowsPerSecond(), res.updatesPerSecond(), res.rdbRows(),
            res.duplicates(), res.rejected(), res.rowsInOrder()));
        sb.append(String.format(Locale.ROOT, "%-16s %10s %10s %10s %10s %10s %10s%n", "latency (us)", "count", "p50", "p90",
            "p99", "p99.9", "max"));
        for (final Percentiles p : res.latencies()) {
            sb.append(String.format(Locale.ROOT, "%-16s %10d %10.1f %10.1f %10.1f %10.1f %10.1f%n", p.name(), p.count(),
                p.p50() / 1e3, p.p90() / 1e3, p.p99() / 1e3, p.p999() / 1e3, p.max() / 1e3));
        }
        return sb.toString();
    }

    static String json(final Result res) {
        final Options o = res.options();
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("benchmark", "pipeline");
        m.put("rows", o.rows());
        m.put("r", o.r());
        m.put("rate", o.rate());
        m.put("ex", o.ex());
        m.put("numbered", o.numbered());
        m.put("warmupRows", o.warmupRows());
        m.put("cores", Runtime.getRuntime().availableProcessors());
        m.put("seconds", round(res.seconds()));
        m.put("rowsPerSec", Math.round(res.rowsPerSecond()));
        m.put("updatesPerSec", Math.round(res.updatesPerSecond()));
        m.put("rdbRows", res.rdbRows());
        m.put("duplicates", res.duplicates());
        m.put("rejected", res.rejected());
        m.put("exactlyOnceInOrder", res.rowsInOrder());
        final StringBuilder sb = new StringBuilder("{");
        for (final Map.Entry<String, Object> e : m.entrySet()) {
            sb.append('"').append(e.getKey()).append("\":");
            sb.append(e.getValue() instanceof String ? "\"" + e.getValue() + "\"" : e.getValue()).append(',');
        }
        sb.append("\"latencyMicros\":{");
        for (int i = 0; i < res.latencies().size(); i++) {
            final Percentiles p = res.latencies().get(i);
            sb.append(i == 0 ? "" : ",").append('"').append(p.name()).append("\":{")
                .append("\"count\":").append(p.count())
                .append(",\"p50\":").append(round(p.p50() / 1e3))
                .append(",\"p90\":").append(round(p.p90() / 1e3))
                .append(",\"p99\":").append(round(p.p99() / 1e3))
                .append(",\"p99.9\":").append(round(p.p999() / 1e3))
                .append(",\"max\":").append(round(p.max() / 1e3)).append('}');
        }
        return sb.append("}}").toString();
    }

    private static double round(final double v) {
        return Math.round(v * 10) / 10.0;
    }
}
