package io.jtick.bench;

import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.DecodedBlockCache;
import io.jtick.core.hdb.ops.TierPolicy;
import io.jtick.core.hdb.ops.TieringJob;
import io.jtick.core.hdb.read.HistoricalDatabase;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.lab.readthroughput.LoopbackProbe;
import io.jtick.lab.profiling.ProfilingRun;
import io.jtick.lab.readthroughput.CountedDays;
import io.jtick.lab.readthroughput.ReadThroughputMeasure;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.replay.ReplayServer;
import io.jtick.core.replay.ReplaySettings;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.wire.ControlFrames;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Historical replay read throughput against its targets, in one JVM on loopback: a synthetic day of
 * {@code trade(time, sym, price, size, cond, n)} ({@code --rows}, {@code --syms}; {@code n} counts
 * rows) is written once per encoding as an HDB partition, an in-process {@link ReplayServer} serves
 * it, and {@link ReadThroughputMeasure} runs 1 and 10 consumers of that one stream (separate connections and
 * threads), each checking time order and, by {@code n}, that every row arrived exactly once. The
 * loopback limit is measured in the same run ({@link LoopbackProbe}, same socket settings and thread
 * counts) and divided by the bytes per row of the replay's frames. Each figure is the median of
 * {@code --runs} runs (the slower middle one of an even count) after warm-up replays of each
 * encoding's day and consumer count, repeated until one replay spends under 5 % of its time in the JIT
 * (at most 8); the output prints the first, cold, one of each. The process's decoded-block cache is
 * emptied before every replay, so each one decodes the compressed days it reads; with {@code
 * --decoded-cache keep} a repeated replay copies the blocks an earlier one decoded (from the second read
 * of a column on, when the cache has room for it) and measures that instead.
 *
 * <pre>
 * ./jtick bench-replay                                   # 10M rows, plain, auto/zstd:3 and parquet/zstd, 1 and 10 consumers
 * ./jtick bench-replay --rows 2000000 --runs 1           # quicker
 * ./jtick bench-replay --encodings plain,parquet/zstd --consumers 1   # a Parquet tier (moved there by the tiering job)
 * </pre>
 * Targets: one consumer at least 15M rows/s (10M from a Parquet tier), ten consumers at least 30M rows/s in total.
 */
public final class ReplayBenchmark {
    static final double ONE_CONSUMER_TARGET = 15e6;
    /** One consumer of a Parquet tier (issue 28). */
    static final double ONE_CONSUMER_PARQUET_TARGET = 10e6;
    static final double TEN_CONSUMERS_TARGET = 30e6;
    /** Warm-up ends after a replay that compiled for less than this share of its time. */
    static final double WARM_COMPILE_SHARE = 0.05;
    static final int WARM_UP_MAX = 8;
    private static final LocalDate FIRST = LocalDate.of(2026, 1, 5);

    private ReplayBenchmark() {
    }

    /** Command-line options. */
    record Options(int rows, int syms, List<String> encodings, List<Integer> consumers, int batch, int window, int runs, int threads,
                   Path dir, boolean keepDecoded) {
        static Options parse(final String[] args) {
            int rows = 10_000_000;
            int syms = 1000;
            List<String> encodings = List.of("plain", "auto/zstd:3", "parquet/zstd");
            List<Integer> consumers = List.of(1, 10);
            int batch = ReplaySettings.DEFAULT_ROWS_PER_UPDATE;
            int window = ReplaySettings.DEFAULT_WINDOW_ROWS;
            int runs = 3;
            int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
            Path dir = null;
            boolean keepDecoded = false;
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
                    case "--rows" -> rows = Integer.parseInt(v);
                    case "--syms" -> syms = Integer.parseInt(v);
                    case "--encodings" -> encodings = List.of(v.split(","));
                    case "--consumers" -> consumers = Arrays.stream(v.split(",")).map(Integer::valueOf).toList();
                    case "--batch" -> batch = Integer.parseInt(v);
                    case "--window" -> window = Integer.parseInt(v);
                    case "--runs" -> runs = Integer.parseInt(v);
                    case "--threads" -> threads = Integer.parseInt(v);
                    case "--dir" -> dir = Path.of(v);
                    case "--decoded-cache" -> keepDecoded = switch (v) {
                        case "keep" -> true;
                        case "clear" -> false;
                        default -> throw new IllegalArgumentException("--decoded-cache is clear or keep, not " + v + "\n" + usage());
                    };
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            if (encodings.stream().filter(e -> e.startsWith("parquet")).count() > 1) {
                throw new IllegalArgumentException("at most one Parquet tier per run (the tiering job moves every partition to it)");
            }
            if (rows < 1000 || syms < 1 || runs < 1 || consumers.isEmpty() || encodings.isEmpty()) {
                throw new IllegalArgumentException("need rows >= 1000, syms >= 1, runs >= 1, consumers and encodings\n" + usage());
            }
            return new Options(rows, syms, encodings, consumers, batch, window, runs, threads, dir, keepDecoded);
        }

        static String usage() {
            return "usage: ReplayBenchmark [--rows N (10000000)] [--syms N (1000)] [--encodings plain,auto/zstd:3,parquet/zstd]"
                + " [--consumers 1,10] [--batch rows/frame (8192)] [--window rows (65536)] [--runs N (3)]"
                + " [--threads replay server threads (cores)] [--dir HDB root (temp)] [--decoded-cache clear|keep (clear)]";
        }
    }

    /** One line of the result: an encoding and a consumer count, the median run. */
    record Line(String encoding, int consumers, ReadThroughputMeasure.Result median, double loopbackBytesPerSecond, List<Double> allRuns,
                double coldRowsPerSecond) {
        double loopbackRows() {
            return median.bytesPerRow() == 0 ? 0 : loopbackBytesPerSecond / median.bytesPerRow();
        }
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
        final List<Line> lines = run(o);
        System.out.print(table(o, lines));
        final boolean checked = lines.stream()
            .allMatch(l -> l.median().inOrder() && l.median().exactlyOnce() && l.median().problem() == null);
        System.exit(checked ? 0 : 1);
    }

    /** The day written plain, then moved by the tiering job to a Parquet tier ({@code parquet/zstd}, ...), as the HDB's job would. */
    private static void toParquet(final Path root, final LocalDate date, final MemorySegment day, final String tier) throws IOException {
        CountedDays.write(root, date, day, "plain");
        try (HistoricalDatabase hdb = new HistoricalDatabase(root, new TickMetrics())) {
            hdb.reload();
            final TieringJob.Report r = new TieringJob(hdb, new TierPolicy(List.of(TierPolicy.Tier.parse("parquet", -1, tier, Map.of(),
                Map.of()))), PartitionWriter.DEFAULT_BLOCK_BYTES).run(date.plusDays(1));
            if (!r.failed().isEmpty() || r.moved().isEmpty()) {
                throw new IOException("moving " + date + " to " + tier + " failed: " + r.failed());
            }
        }
    }

    static List<Line> run(final Options o) throws IOException, InterruptedException {
        final Path root = o.dir() != null ? o.dir() : Files.createTempDirectory("jtick-replay-bench");
        final List<Line> lines = new ArrayList<>();
        try {
            System.err.printf(Locale.ROOT, "building a synthetic day: %,d rows, %d syms%n", o.rows(), o.syms());
            final MemorySegment day = CountedDays.synthetic(FIRST, o.rows(), o.syms(), 42);
            // a Parquet tier first, alone under the root: the tiering job moves every partition there
            for (final boolean parquet : new boolean[] {true, false}) {
                for (int e = 0; e < o.encodings().size(); e++) {
                    final String encoding = o.encodings().get(e);
                    if (encoding.startsWith("parquet") != parquet) {
                        continue;
                    }
                    final long t0 = System.nanoTime();
                    if (parquet) {
                        toParquet(root, FIRST.plusDays(e), day, encoding);
                    } else {
                        CountedDays.write(root, FIRST.plusDays(e), day, encoding);
                    }
                    System.err.printf(Locale.ROOT, "wrote %s as %s in %.1f s%n", FIRST.plusDays(e), encoding,
                        (System.nanoTime() - t0) / 1e9);
                }
            }
            final TickMetrics metrics = new TickMetrics();
            try (HistoricalDatabase hdb = new HistoricalDatabase(root, metrics)) {
                hdb.reload();
                final ReplaySettings settings = new ReplaySettings("127.0.0.1", 0, o.threads(), o.batch(), 1 << 20, o.window(),
                    ReplaySettings.DEFAULT_SHARED_FRAMES, 1 << 20, 4 << 20, 1_000_000L, java.time.ZoneId.of("America/New_York"),
                    root.resolve(".replay"), ReplaySettings.DEFAULT_STALL_MILLIS);
                try (ReplayServer server = new ReplayServer(hdb, settings, metrics).start()) {
                    // untimed replays of each encoding's day first, so every timed run finds its code compiled, as in an HDB that
                    // has replayed before: the per-frame and per-block code runs only ~1,000-2,000 times a replay, so one replay
                    // leaves it to the JIT's profiling tier and its optimised compilation landed in the first timed runs, taking
                    // one of two cores (JFR: 0.7-1.5 s of compilation in the first timed run of each encoding). Each encoding
                    // and consumer count is replayed until a replay compiles little (warmUp); the first, cold, replay is printed.
                    // the loopback limit of each consumer count first: run just before a timed run, its 2.5 s of socket traffic
                    // made that run slower (plain, 1 consumer: 9.3-13.8M rows/s after it, 19.8-20.4M without it, same build)
                    final double[] loopbacks = new double[o.consumers().size()];
                    for (int c = 0; c < o.consumers().size(); c++) {
                        loopbacks[c] = LoopbackProbe.bytesPerSecond(o.consumers().get(c), o.threads(), 500, 2000);
                    }
                    final double[][] cold = new double[o.encodings().size()][o.consumers().size()];
                    for (int e = 0; e < o.encodings().size(); e++) {
                        for (int c = 0; c < o.consumers().size(); c++) {
                            final int n = o.consumers().get(c);
                            cold[e][c] = warmUp(o, server.port(), FIRST.plusDays(e), n, o.encodings().get(e));
                        }
                    }
                    for (int e = 0; e < o.encodings().size(); e++) {
                        for (int c = 0; c < o.consumers().size(); c++) {
                            final int n = o.consumers().get(c);
                            final List<ReadThroughputMeasure.Result> runs = new ArrayList<>();
                            for (int r = 0; r < o.runs(); r++) {
                                // rows the server read and encoded per row of the day: 1 when every consumer stayed on the
                                // shared stream, more for each consumer that fell behind its ring and read on its own
                                final long encoded0 = metrics.counter("tick.hdb.replay.encoded.rows").get();
                                final long detached0 = metrics.counter("tick.hdb.replay.detached").get();
                                final long compiled0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
                                final long hits0 = DecodedBlockCache.shared().hits();
                                final long gc0 = gcMillis();
                                final ReadThroughputMeasure.Result res = measure(o, server.port(), FIRST.plusDays(e), n);
                                System.err.printf(Locale.ROOT, "%s x%d run %d: %,.0f rows/s, encoded %.2f x the day's rows,"
                                    + " %d detached, %.2f s compiling and %d ms in GC pauses in %.2f s, %d decoded blocks copied from the"
                                    + " cache%s%n",
                                    o.encodings().get(e), n, r + 1, res.rowsPerSecond(),
                                    (metrics.counter("tick.hdb.replay.encoded.rows").get() - encoded0) / (double) o.rows(),
                                    metrics.counter("tick.hdb.replay.detached").get() - detached0,
                                    (ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - compiled0) / 1e3,
                                    gcMillis() - gc0, res.seconds(),
                                    DecodedBlockCache.shared().hits() - hits0,
                                    res.problem() == null ? "" : " (" + res.problem() + ")");
                                runs.add(res);
                            }
                            final double loopback = loopbacks[c];
                            final List<ReadThroughputMeasure.Result> sorted = new ArrayList<>(runs);
                            sorted.sort(Comparator.comparingDouble(ReadThroughputMeasure.Result::rowsPerSecond));
                            // the lower middle of an even count: median of 2 runs is the slower one, not the faster
                            lines.add(new Line(o.encodings().get(e), n, sorted.get((sorted.size() - 1) / 2), loopback,
                                runs.stream().map(ReadThroughputMeasure.Result::rowsPerSecond).toList(), cold[e][c]));
                        }
                    }
                }
            }
            return lines;
        } finally {
            if (o.dir() == null) {
                TickerplantBenchmark.deleteTree(root);
            }
        }
    }

    /**
     * Replays until one replay spent under {@value #WARM_COMPILE_SHARE} of its time compiling (the JIT's total compilation time,
     * all compiler threads), at most {@value #WARM_UP_MAX} times; returns the first (cold) replay's rows/s.
     */
    private static double warmUp(final Options o, final int port, final LocalDate date, final int consumers, final String encoding)
        throws InterruptedException {
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        double cold = 0;
        for (int i = 1; i <= WARM_UP_MAX; i++) {
            final long compiled0 = jit.getTotalCompilationTime();
            final ReadThroughputMeasure.Result warm = measure(o, port, date, consumers);
            final double compileSeconds = (jit.getTotalCompilationTime() - compiled0) / 1e3;
            cold = i == 1 ? warm.rowsPerSecond() : cold;
            System.err.printf(Locale.ROOT, "warm-up %s x%d replay %d: %,.0f rows/s, %.2f s compiling in %.2f s%n", encoding, consumers, i,
                warm.rowsPerSecond(), compileSeconds, warm.seconds());
            if (compileSeconds < WARM_COMPILE_SHARE * warm.seconds()) {
                break;
            }
        }
        return cold;
    }

    /** Milliseconds the collectors have spent so far (G1: its pauses; the concurrent cycles' threads are not in it). */
    private static long gcMillis() {
        long ms = 0;
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }

    /**
     * One replay of {@code date} to {@code consumers}; unless {@code --decoded-cache keep}, the process's decoded-block cache is
     * emptied first, so that a compressed day is decoded by this replay, not copied from the blocks an earlier one left there.
     */
    private static ReadThroughputMeasure.Result measure(final Options o, final int port, final LocalDate date, final int consumers)
        throws InterruptedException {
        if (!o.keepDecoded()) {
            ColumnFile.clearDecodedCache();
        }
        final int rows = o.rows();
        final ControlFrames.Replay r = ControlFrames.Replay.of(List.of("trade"), (int) date.toEpochDay(), (int) date.toEpochDay());
        final List<ControlFrames.Replay> requests = new ArrayList<>();
        final long[] expected = new long[consumers];
        for (int i = 0; i < consumers; i++) {
            requests.add(r);
            expected[i] = rows;
        }
        return ReadThroughputMeasure.run(port, requests, expected, rows, 600_000);
    }

    static String table(final Options o, final List<Line> lines) {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "jtick replay read throughput: %,d rows x %d syms, one stream, %d cores, %d replay threads,"
                + " batch %d rows, window %d rows; median of %d runs%n", o.rows(), o.syms(), Runtime.getRuntime().availableProcessors(),
            o.threads(), o.batch(), o.window(), o.runs()));
        sb.append(o.keepDecoded() ? "decoded-block cache kept between replays: repeated replays of a compressed day copy the blocks"
            + " an earlier one decoded\n" : "decoded-block cache emptied before every replay: each one decodes the compressed days it"
            + " reads (--decoded-cache keep: repeats served from it)\n");
        sb.append(String.format(Locale.ROOT, "%-12s %5s %14s %14s %9s %7s %10s %10s %11s %14s %8s %7s %6s %s%n", "encoding", "cons",
            "rows/s total", "rows/s each", "MB/s", "B/row", "srv cpu%", "cons cpu%", "cpu ns/row", "loopback rows/s", "of limit",
            "order", "once", "target"));
        for (final Line l : lines) {
            final ReadThroughputMeasure.Result m = l.median();
            final double one = l.encoding().startsWith("parquet") ? ONE_CONSUMER_PARQUET_TARGET : ONE_CONSUMER_TARGET;
            final double target = l.consumers() == 1 ? one : l.consumers() == 10 ? TEN_CONSUMERS_TARGET : 0;
            final String verdict = target == 0 ? "-" : (m.rowsPerSecond() >= target ? "met" : "MISSED") + String.format(Locale.ROOT,
                " (>= %.0fM)", target / 1e6);
            final double cpuNanosPerRow = m.rowsPerSecond() == 0 ? 0 : (m.serverCpu() + m.consumerCpu()) / 100 * 1e9 / m.rowsPerSecond();
            sb.append(String.format(Locale.ROOT, "%-12s %5d %,14.0f %,14.0f %9.1f %7.1f %10.0f %10.0f %11.1f %,14.0f %7.0f%% %7s %6s %s%n",
                l.encoding(), l.consumers(), m.rowsPerSecond(), m.perConsumerMedian(), m.bytesPerSecond() / 1e6, m.bytesPerRow(),
                m.serverCpu(), m.consumerCpu(), cpuNanosPerRow, l.loopbackRows(),
                l.loopbackRows() == 0 ? 0 : m.rowsPerSecond() / l.loopbackRows() * 100, m.inOrder() ? "ok" : "BAD",
                m.exactlyOnce() ? "ok" : "BAD", verdict));
        }
        sb.append(String.format(Locale.ROOT, "runs (rows/s): %s%n", lines.stream().map(l -> l.encoding() + " x" + l.consumers() + " "
            + l.allRuns().stream().map(v -> String.format(Locale.ROOT, "%.2fM", v / 1e6)).toList()).toList()));
        sb.append(String.format(Locale.ROOT, "first warm-up replay of each (the very first is the process's cold start; JIT"
            + " compiling; not in the median): %s%n", lines.stream().map(l -> String.format(Locale.ROOT, "%s x%d %.2fM", l.encoding(),
            l.consumers(), l.coldRowsPerSecond() / 1e6)).toList()));
        sb.append(String.format(Locale.ROOT, "load average (1, 5, 15 min) at the end: %s on %d cores; cpu ns/row = (replay server"
            + " + consumer threads' CPU time) / rows: what one row costs whatever else the machine runs%n", ProfilingRun.loadAverage(),
            Runtime.getRuntime().availableProcessors()));
        sb.append("loopback rows/s = loopback bytes/s (same connections and threads, one 256 KiB buffer written again and again)"
            + " / bytes per row of the replay's frames\n");
        sb.append("TimeBase (../shared/reference/other-anchors.md): 1 consumer 1.03M msg/s, 10 consumers 6.73M msg/s total, 44-byte"
            + " messages, 20 cores (i7-13850HX)\n");
        return sb.toString();
    }
}
