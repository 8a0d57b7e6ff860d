package io.jtick.bench;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The RDB's resident memory per trade row, measured on the real service: starts a tickerplant in
 * this JVM (real Chronicle journal) and {@code rdb-service} as its own process with the JVM options
 * given ({@code ./jtick bench-rdb-memory} passes the memory {@code ./jtick up} gives the RDB), feeds
 * trade rows through the tickerplant ({@code --r} rows per update over {@code --syms} syms) and, at
 * each checkpoint of {@code --rows}, waits until the RDB holds every row sent, lets it settle
 * and reads its resident set ({@code VmRSS} of {@code /proc/<pid>/status}) and its
 * {@code /api/status} (the table's heap bytes). Prints, per checkpoint: rows, RSS, RSS growth per
 * row since the RDB was subscribed and empty, the table's own bytes per row, and the raw column
 * bytes per row (29 for trade) for comparison.
 *
 * <pre>
 * ./jtick bench-rdb-memory                                  # 10M and 100M rows
 * ./jtick bench-rdb-memory --rows 10000000 --r 1000
 * </pre>
 */
public final class RdbMemoryBenchmark {
    private static final Pattern TABLE = Pattern.compile("\"trade\":\\{\"rows\":(\\d+),\"bytes\":(\\d+)");
    /** Rows as an RDB without the memory block reports them ({@code "tables":{"trade":n}}), for comparing builds. */
    private static final Pattern ROWS = Pattern.compile("\"tables\":\\{[^}]*\"trade\":(\\d+)");
    private static final Pattern HEAP = Pattern.compile("\"heapUsedBytes\":(\\d+),\"heapCommittedBytes\":(\\d+),\"heapMaxBytes\":(\\d+)");

    /** Most rows the feed runs ahead of the RDB. */
    private static final long MAX_AHEAD = 500_000;

    private RdbMemoryBenchmark() {
    }

    /** Command-line options. */
    record Options(List<Long> checkpoints, int r, int syms, String java, Path rdbJar, List<String> rdbJvm, Path dir, long settleMillis) {
        static Options parse(final String[] args) {
            List<Long> rows = List.of(10_000_000L, 100_000_000L);
            int r = 1000;
            int syms = 1000;
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Path jar = null;
            final List<String> jvm = new ArrayList<>();
            Path dir = null;
            long settle = 3000;
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
                    case "--rows" -> {
                        final List<Long> l = new ArrayList<>();
                        for (final String x : v.split(",")) {
                            l.add(Long.parseLong(x.trim().replace("_", "")));
                        }
                        rows = List.copyOf(l);
                    }
                    case "--r" -> r = Integer.parseInt(v);
                    case "--syms" -> syms = Integer.parseInt(v);
                    case "--java" -> java = v;
                    case "--rdb-jar" -> jar = Path.of(v);
                    case "--rdb-jvm" -> {
                        for (final String x : v.trim().split("\\s+")) {
                            if (!x.isEmpty()) {
                                jvm.add(x);
                            }
                        }
                    }
                    case "--dir" -> dir = Path.of(v);
                    case "--settle-ms" -> settle = Long.parseLong(v);
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            if (jar == null || !Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("--rdb-jar must name the rdb-service jar [rdbJar=" + jar + "]\n" + usage());
            }
            long last = 0;
            for (final long c : rows) {
                if (c <= last || c % r != 0 || c > Integer.MAX_VALUE - 65_536) {
                    throw new IllegalArgumentException("checkpoints must ascend, be multiples of r and fit a table [rows=" + rows
                        + ", r=" + r + "]");
                }
                last = c;
            }
            if (r < 1 || syms < 1) {
                throw new IllegalArgumentException("r and syms must be positive [r=" + r + ", syms=" + syms + "]");
            }
            return new Options(rows, r, syms, java, jar, List.copyOf(jvm), dir, settle);
        }

        static String usage() {
            return "usage: RdbMemoryBenchmark --rdb-jar rdb-service.jar [--rdb-jvm \"-Xmx6g ...\"] [--java bin/java]"
                + " [--rows 10000000,100000000] [--r rows/update (1000)] [--syms N (1000)] [--dir journal dir (temp)]"
                + " [--settle-ms 3000]";
        }
    }

    /** One checkpoint. */
    record Point(long rows, long rssBytes, long tableBytes, long heapUsed, long heapCommitted, long heapMax, double seconds) {
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
        System.exit(run(o) ? 0 : 1);
    }

    static boolean run(final Options o) throws IOException, InterruptedException {
        final Path dir = o.dir() != null ? o.dir() : Files.createTempDirectory("jtick-rdb-memory");
        final SchemaRegistry schemas = SchemaRegistry.builtIn(0);
        final TableSchema trade = schemas.get("trade");
        final TickerplantSettings settings = TickerplantSettings.defaults(dir.resolve("journal")).withPort(0);
        final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Process rdb = null;
        try (TickerplantServer server = new TickerplantServer(settings, schemas, NanoClock.SYSTEM, new TickMetrics()).start()) {
            final int port = freePort();
            final List<String> cmd = new ArrayList<>();
            cmd.add(o.java());
            cmd.addAll(o.rdbJvm());
            cmd.addAll(List.of("-jar", o.rdbJar().toString(), "--server.address=127.0.0.1", "--server.port=" + port,
                "--tick.rdb.tp-host=127.0.0.1", "--tick.rdb.tp-port=" + server.port(), "--tick.rdb.hdb.root=",
                "--tick.rdb.journal-root=", "--tick.rdb.pg-port=0", "--tick.rdb.kdb-port=0", "--logging.level.root=WARN"));
            final Path log = dir.resolve("rdb-service.log");
            System.err.println("rdb-memory: starting " + String.join(" ", cmd) + " (log " + log + ")");
            rdb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            final String status = "http://127.0.0.1:" + port + "/api/status";
            final Process p = rdb;
            waitFor(() -> {
                final String s = get(http, status);
                return s != null && s.contains("\"subscribed\":true");
            }, 120_000, "the RDB did not subscribe within 120 s (see " + log + ")", p);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(o.settleMillis()));
            final long rss0 = rss(rdb.pid());
            System.err.printf(Locale.ROOT, "rdb-memory: RDB pid %d subscribed, RSS %.1f MB before any row%n", rdb.pid(), rss0 / 1e6);
            final List<Point> points = new ArrayList<>();
            try (FeedPublisher feed = new FeedPublisher("127.0.0.1", server.port(), "rdb-memory-feed", null)) {
                feed.connect(5_000);
                final byte[][] syms = TradeFrames.syms(o.syms());
                final int maxFrame = TradeFrames.maxLength(trade, o.r(), syms);
                final UpdateEncoder enc = new UpdateEncoder();
                final long t0 = System.nanoTime();
                long row = 0;
                long nextCheck = 0;
                for (final long checkpoint : o.checkpoints()) {
                    while (row < checkpoint) {
                        if (row >= nextCheck) {
                            // keep the RDB within MAX_AHEAD rows of the feed: an unpaced feed would pass the TP's
                            // slow-subscriber limit and the RDB would be served from the journal
                            final long sent = row;
                            waitFor(() -> tableRows(get(http, status)) >= sent - MAX_AHEAD, 600_000,
                                "the RDB fell more than " + MAX_AHEAD + " rows behind for 10 min", p);
                            nextCheck = row + MAX_AHEAD / 4;
                        }
                        if (!feed.awaitWritable(TimeUnit.SECONDS.toNanos(60))) {
                            throw new IllegalStateException("feed not writable for 60 s [lastError=" + feed.lastError() + "]");
                        }
                        final int perBatch = Math.max(1, (256 * 1024) / maxFrame);
                        final ByteBuf buf = feed.alloc().directBuffer(perBatch * maxFrame);
                        for (int k = 0; k < perBatch && row < checkpoint; k++, row += o.r()) {
                            final long now = NanoClock.SYSTEM.epochNanos();
                            TradeFrames.encode(enc, buf, trade, o.r(), row, syms, now, now);
                        }
                        if (!feed.send(buf)) {
                            throw new IllegalStateException("feed send refused: " + feed.lastError());
                        }
                    }
                    final long want = checkpoint;
                    waitFor(() -> tableRows(get(http, status)) >= want, 600_000, "the RDB did not reach " + want + " rows in 10 min", p);
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(o.settleMillis()));
                    final String s = get(http, status);
                    final Matcher t = TABLE.matcher(s == null ? "" : s);
                    final Matcher h = HEAP.matcher(s == null ? "" : s);
                    final boolean ht = t.find();
                    final boolean hh = h.find();
                    final Point pt = new Point(checkpoint, rss(rdb.pid()), ht ? Long.parseLong(t.group(2)) : -1,
                        hh ? Long.parseLong(h.group(1)) : -1, hh ? Long.parseLong(h.group(2)) : -1, hh ? Long.parseLong(h.group(3)) : -1,
                        (System.nanoTime() - t0) / 1e9);
                    points.add(pt);
                    System.err.printf(Locale.ROOT, "rdb-memory: %,d rows after %.0f s: RSS %.1f MB%n", checkpoint, pt.seconds(),
                        pt.rssBytes() / 1e6);
                }
            }
            System.out.print(table(o, rss0, trade.rowWidth(), points));
            return true;
        } catch (final RuntimeException e) {
            final Path log = dir.resolve("rdb-service.log");
            if (Files.isRegularFile(log)) {
                final List<String> lines = Files.readAllLines(log);
                System.err.println("rdb-memory: failed; last lines of the RDB's log:");
                lines.subList(Math.max(0, lines.size() - 20), lines.size()).forEach(System.err::println);
            }
            throw e;
        } finally {
            if (rdb != null) {
                rdb.destroy();
                if (!rdb.waitFor(20, TimeUnit.SECONDS)) {
                    rdb.destroyForcibly();
                }
            }
            if (o.dir() == null) {
                TickerplantBenchmark.deleteTree(dir);
            }
        }
    }

    static String table(final Options o, final long rss0, final int rawRowBytes, final List<Point> points) {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "RDB resident memory, trade rows (%d rows per update, %d syms); RDB JVM: %s%n", o.r(),
            o.syms(), memoryOptions(o.rdbJvm())));
        sb.append(String.format(Locale.ROOT, "RSS of the subscribed, empty RDB: %.1f MB; raw column bytes per trade row: %d%n%n",
            rss0 / 1e6, rawRowBytes));
        sb.append(String.format(Locale.ROOT, "%14s %10s %14s %14s %14s %12s %12s%n", "rows", "RSS MB", "RSS grew B/row", "table B/row",
            "heap used MB", "heap cmt MB", "heap max MB"));
        for (final Point p : points) {
            sb.append(String.format(Locale.ROOT, "%,14d %10.1f %14.1f %14.1f %14.1f %12.1f %12.1f%n", p.rows(), p.rssBytes() / 1e6,
                (p.rssBytes() - rss0) / (double) p.rows(), p.tableBytes() / (double) p.rows(), p.heapUsed() / 1e6,
                p.heapCommitted() / 1e6, p.heapMax() / 1e6));
        }
        sb.append("\nRSS: VmRSS of /proc/<pid>/status; table B/row: the trade table's heap bytes from the RDB's /api/status"
            + " (column chunks, sym index, dictionary cache)\n");
        return sb.toString();
    }

    /** The JVM options that size memory or pick the collector (the rest are the usual module flags). */
    static String memoryOptions(final List<String> jvm) {
        final List<String> m = new ArrayList<>();
        for (final String x : jvm) {
            if (x.startsWith("-Xm") || x.startsWith("-Xs") || x.startsWith("-XX:")) {
                m.add(x);
            }
        }
        return m.isEmpty() ? "(JVM defaults)" : String.join(" ", m);
    }

    private static long tableRows(final String status) {
        if (status == null) {
            return -1;
        }
        final Matcher m = TABLE.matcher(status);
        if (m.find()) {
            return Long.parseLong(m.group(1));
        }
        final Matcher r = ROWS.matcher(status);
        return r.find() ? Long.parseLong(r.group(1)) : 0;
    }

    /** Resident set of a process, bytes ({@code VmRSS} in /proc). */
    static long rss(final long pid) throws IOException {
        for (final String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }

    private static String get(final HttpClient http, final String url) {
        try {
            final HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (final IOException e) {
            return null;
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void waitFor(final java.util.function.BooleanSupplier cond, final long millis, final String failure, final Process p) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!cond.getAsBoolean()) {
            if (!p.isAlive()) {
                throw new IllegalStateException("the RDB process exited [exitValue=" + p.exitValue() + "]: " + failure);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(failure);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
    }
}
