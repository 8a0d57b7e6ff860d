package io.jtick.bench;

import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.JournalSync;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.MessageType;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.HdrHistogram.Histogram;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What {@code tick.tp.journal.sync=batch} ("acknowledged = on disk") costs against {@code none}, in
 * one JVM on loopback, the modes in the same run: an in-process {@link TickerplantServer} (zero-latency,
 * its journal under {@code --dir}, which must be on the disk being judged: a tmpfs forces nothing), one
 * subscriber ({@link TickClient}, counting rows) and a numbered feed of trade updates of {@code --r} rows.
 * <ul>
 *   <li>throughput: a {@link FeedPublisher} sends {@code --rows} rows as fast as it can (updates packed
 *       into 64 KB writes, the service's acknowledgement settings: every {@code --throughput-ack-updates}
 *       updates or 100 ms); the time runs until the subscriber has every row and the feed every
 *       acknowledgement. Runs alternate between the modes; the median of {@code --runs} after one warm-up
 *       run of each. CPU is the whole process's (feed, TP and subscriber) per update;</li>
 *   <li>feed → FEED_ACK latency: a plain-socket numbered feed sends {@code --rate} updates/s, each alone,
 *       with {@code feedAckUpdates=1}; an update's latency runs from just before its write to the arrival of
 *       the FEED_ACK that covers it. {@code --warmup} seconds are sent first and not recorded, then
 *       {@code --seconds};</li>
 *   <li>the disk's raw fdatasync: {@code --fsyncs} times a 4 KiB append to a file in {@code --dir} and
 *       {@code FileChannel.force(false)}, for what one force costs with nothing else running.</li>
 * </ul>
 *
 * <pre>
 * ./jtick bench-journal-sync                             # none and batch, ~1.5 min
 * ./jtick bench-journal-sync --sync batch --rate 20000 --seconds 20
 * </pre>
 */
public final class JournalSyncBenchmark {
    private static final long MAX_LATENCY_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final int BATCH_BYTES = 64 * 1024;

    private JournalSyncBenchmark() {
    }

    /** Command-line options. */
    record Options(List<JournalSync> syncs, int r, long rows, int runs, int throughputAckUpdates, int rate, int seconds, int warmup,
                   int fsyncs, int syms, Path dir) {
        static Options parse(final String[] args) {
            List<JournalSync> syncs = List.of(JournalSync.NONE, JournalSync.BATCH);
            int r = 100;
            long rows = 10_000_000;
            int runs = 3;
            int ackUpdates = 1000;
            int rate = 10_000;
            int seconds = 10;
            int warmup = 3;
            int fsyncs = 2000;
            int syms = 1000;
            Path dir = Path.of("var", "bench-journal-sync");
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
                    case "--sync" -> syncs = Arrays.stream(v.split(",")).map(JournalSync::parse).toList();
                    case "--r" -> r = Integer.parseInt(v);
                    case "--rows" -> rows = Long.parseLong(v);
                    case "--runs" -> runs = Integer.parseInt(v);
                    case "--throughput-ack-updates" -> ackUpdates = Integer.parseInt(v);
                    case "--rate" -> rate = Integer.parseInt(v);
                    case "--seconds" -> seconds = Integer.parseInt(v);
                    case "--warmup" -> warmup = Integer.parseInt(v);
                    case "--fsyncs" -> fsyncs = Integer.parseInt(v);
                    case "--syms" -> syms = Integer.parseInt(v);
                    case "--dir" -> dir = Path.of(v);
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            if (syncs.isEmpty() || r < 1 || rows < r || runs < 1 || ackUpdates < 1 || rate < 1 || rate > 1_000_000 || seconds < 1
                || warmup < 0 || fsyncs < 1 || syms < 1) {
                throw new IllegalArgumentException("need --sync none|batch[,...], r >= 1, rows >= r, runs >= 1, rate 1..1000000, "
                    + "seconds >= 1, warmup >= 0, fsyncs >= 1\n" + usage());
            }
            return new Options(syncs, r, rows, runs, ackUpdates, rate, seconds, warmup, fsyncs, syms, dir);
        }

        static String usage() {
            return "usage: JournalSyncBenchmark [--sync none,batch] [--r rows/update (100)] [--rows throughput rows/run (10000000)]"
                + " [--runs N (3)] [--throughput-ack-updates N (1000)] [--rate latency updates/s (10000)] [--seconds N (10)]"
                + " [--warmup N (3)] [--fsyncs N (2000)] [--syms N (1000)] [--dir journal parent (var/bench-journal-sync)]";
        }
    }

    /** One throughput run. */
    record Throughput(double rowsPerSecond, double cpuMicrosPerUpdate, long forces, long updates) {
    }

    /** One latency run: feed → FEED_ACK, and the TP's own force times. */
    record Latency(Histogram ack, Histogram force, long forces, double seconds) {
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
        Files.createDirectories(o.dir());
        final SchemaRegistry schemas = SchemaRegistry.builtIn(0);
        final String store = Files.getFileStore(o.dir()).type();
        System.err.printf(Locale.ROOT, "journal under %s (%s)%s%n", o.dir().toAbsolutePath(), store,
            "tmpfs".equals(store) ? ": a tmpfs has no disk, every force is free; use --dir on a real disk" : "");

        final Histogram fsync = rawFsync(o.dir(), o.fsyncs());
        final List<List<Throughput>> throughput = new ArrayList<>();
        for (int m = 0; m < o.syncs().size(); m++) {
            throughput.add(new ArrayList<>());
        }
        for (int run = 0; run <= o.runs(); run++) {
            for (int m = 0; m < o.syncs().size(); m++) {
                final Throughput t = throughput(schemas, o, o.syncs().get(m));
                System.err.printf(Locale.ROOT, "%s throughput %s: %,.0f rows/s, %d forces%n", o.syncs().get(m).id(),
                    run == 0 ? "warm-up" : "run " + run, t.rowsPerSecond(), t.forces());
                if (run > 0) {
                    throughput.get(m).add(t);
                }
            }
        }
        final List<Latency> latency = new ArrayList<>();
        for (final JournalSync s : o.syncs()) {
            final Latency l = latency(schemas, o, s);
            System.err.printf(Locale.ROOT, "%s latency: p50 %.1f us, p99 %.1f us over %d updates%n", s.id(),
                l.ack().getValueAtPercentile(50) / 1e3, l.ack().getValueAtPercentile(99) / 1e3, l.ack().getTotalCount());
            latency.add(l);
        }
        System.out.print(report(o, store, fsync, throughput, latency));
    }

    static String report(final Options o, final String store, final Histogram fsync, final List<List<Throughput>> throughput,
                         final List<Latency> latency) {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "tick.tp.journal.sync: %d-row trade updates, numbered feed, 1 subscriber, loopback, "
            + "journal on %s (%s), %d cores, load average %.1f%n%n", o.r(), o.dir().toAbsolutePath(), store,
            Runtime.getRuntime().availableProcessors(), ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
        sb.append(String.format(Locale.ROOT, "raw fdatasync (4 KiB append + force, %d times): p50 %s  p99 %s  p99.9 %s  max %s%n%n",
            fsync.getTotalCount(), us(fsync.getValueAtPercentile(50)), us(fsync.getValueAtPercentile(99)),
            us(fsync.getValueAtPercentile(99.9)), us(fsync.getMaxValue())));
        sb.append(String.format(Locale.ROOT, "throughput (%,d rows a run, FEED_ACK every %d updates or 100 ms; median of %d runs)%n",
            o.rows(), o.throughputAckUpdates(), o.runs()));
        sb.append(String.format(Locale.ROOT, "%-6s %14s %12s %10s %14s   %s%n", "sync", "rows/s", "vs none", "forces", "updates/force",
            "CPU us/update"));
        double noneRate = 0;
        for (int m = 0; m < o.syncs().size(); m++) {
            final List<Throughput> runs = new ArrayList<>(throughput.get(m));
            runs.sort((a, b) -> Double.compare(a.rowsPerSecond(), b.rowsPerSecond()));
            final Throughput med = runs.get(runs.size() / 2);
            if (o.syncs().get(m) == JournalSync.NONE) {
                noneRate = med.rowsPerSecond();
            }
            sb.append(String.format(Locale.ROOT, "%-6s %,14.0f %12s %,10d %14s   %.2f%n", o.syncs().get(m).id(), med.rowsPerSecond(),
                noneRate > 0 ? String.format(Locale.ROOT, "%.2fx", med.rowsPerSecond() / noneRate) : "-", med.forces(),
                med.forces() == 0 ? "-" : String.format(Locale.ROOT, "%,.0f", (double) med.updates() / med.forces()),
                med.cpuMicrosPerUpdate()));
        }
        sb.append(String.format(Locale.ROOT, "%nfeed -> FEED_ACK latency at %,d updates/s, feedAckUpdates=1, %d s after %d s of warm-up"
            + " (us)%n", o.rate(), o.seconds(), o.warmup()));
        sb.append(String.format(Locale.ROOT, "%-6s %10s %10s %10s %10s %10s %9s %10s   %s%n", "sync", "p50", "p90", "p99", "p99.9", "max",
            "updates", "forces/s", "force p50/p99/max"));
        for (int m = 0; m < o.syncs().size(); m++) {
            final Latency l = latency.get(m);
            final Histogram h = l.ack();
            sb.append(String.format(Locale.ROOT, "%-6s %10s %10s %10s %10s %10s %9d %10.0f   %s%n", o.syncs().get(m).id(),
                us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(90)), us(h.getValueAtPercentile(99)),
                us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()), h.getTotalCount(), l.forces() / l.seconds(),
                l.forces() == 0 ? "-" : us(l.force().getValueAtPercentile(50)) + "/" + us(l.force().getValueAtPercentile(99)) + "/"
                    + us(l.force().getMaxValue())));
        }
        return sb.toString();
    }

    private static String us(final long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e3);
    }

    // ---------------------------------------------------------------- raw fdatasync

    static Histogram rawFsync(final Path dir, final int n) throws IOException {
        final Histogram h = new Histogram(MAX_LATENCY_NANOS, 3);
        final Path file = Files.createTempFile(dir, "fsync-probe", ".bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            final ByteBuffer page = ByteBuffer.allocateDirect(4096);
            for (int i = 0; i < n; i++) {
                page.clear();
                page.putLong(0, i);
                ch.write(page, (long) i * 4096);
                final long t0 = System.nanoTime();
                ch.force(false);
                h.recordValue(Math.min(System.nanoTime() - t0, MAX_LATENCY_NANOS));
            }
        } finally {
            Files.deleteIfExists(file);
        }
        return h;
    }

    // ---------------------------------------------------------------- throughput

    private static TickerplantServer start(final SchemaRegistry schemas, final Path journal, final JournalSync sync, final int ackUpdates,
                                           final TickMetrics metrics) throws IOException {
        return new TickerplantServer(TickerplantSettings.defaults(journal).withPort(0).withFeedAcks(ackUpdates, Duration.ofMillis(100))
            .withJournalSync(sync), schemas, NanoClock.SYSTEM, metrics).start();
    }

    /** A subscriber that counts the rows it receives. */
    private static final class Counting implements TickListener {
        private volatile long rows;
        private volatile long lastSequence;

        @Override
        public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
            rows = rows + update.rowCount();
            lastSequence = update.sequence();
        }
    }

    private static TickClient subscribe(final int port, final Counting counting) {
        final TickClient client = new TickClient(TickClient.Settings.of("127.0.0.1", port, "bench-sub"), counting,
            () -> counting.lastSequence, null, NanoClock.SYSTEM);
        client.start();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!client.isSubscribed()) {
            if (System.nanoTime() > deadline) {
                client.close();
                throw new IllegalStateException("subscriber did not subscribe within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
        return client;
    }

    static Throughput throughput(final SchemaRegistry schemas, final Options o, final JournalSync sync) throws Exception {
        final Path journal = Files.createTempDirectory(o.dir(), "throughput-" + sync.id());
        final TickMetrics metrics = new TickMetrics();
        final TableSchema trade = schemas.get("trade");
        final byte[][] syms = TradeFrames.syms(o.syms());
        final int maxFrame = TradeFrames.maxLength(trade, o.r(), syms);
        final int perBatch = Math.max(1, BATCH_BYTES / maxFrame);
        final UpdateEncoder enc = new UpdateEncoder();
        final Counting counting = new Counting();
        try (TickerplantServer tp = start(schemas, journal, sync, o.throughputAckUpdates(), metrics);
             TickClient sub = subscribe(tp.port(), counting);
             FeedPublisher feed = new FeedPublisher(FeedPublisher.Settings.of("127.0.0.1", tp.port(), "bench-feed"), null).connect(5000)) {
            final long updates = o.rows() / o.r();
            final long rows = updates * o.r();
            final long cpu0 = processCpuNanos();
            final long t0 = System.nanoTime();
            long row = 0;
            while (row < rows) {
                if (!feed.awaitWritable(TimeUnit.SECONDS.toNanos(30))) {
                    throw new IllegalStateException("feed not writable for 30 s: " + feed.failure());
                }
                final ByteBuf buf = feed.alloc().directBuffer(perBatch * maxFrame);
                for (int k = 0; k < perBatch && row < rows; k++, row += o.r()) {
                    final long now = System.currentTimeMillis() * 1_000_000L;
                    TradeFrames.encode(enc, buf, trade, o.r(), row, syms, now, now);
                }
                if (!feed.send(buf)) {
                    throw new IllegalStateException("send refused: " + feed.failure());
                }
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (counting.rows < rows) {
                if (System.nanoTime() > deadline || feed.errorsReceived() > 0) {
                    throw new IllegalStateException("subscriber has " + counting.rows + " of " + rows + " rows: " + feed.lastError());
                }
                LockSupport.parkNanos(100_000);
            }
            if (!feed.awaitAcknowledged(TimeUnit.SECONDS.toNanos(60))) {
                throw new IllegalStateException("feed not fully acknowledged within 60 s: " + feed.stats());
            }
            final long nanos = System.nanoTime() - t0;
            final long cpu = processCpuNanos() - cpu0;
            return new Throughput(rows * 1e9 / nanos, cpu / 1e3 / updates, metrics.counter("tick.tp.journal.syncs").get(), updates);
        } finally {
            TickerplantBenchmark.deleteTree(journal);
        }
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
            ? os.getProcessCpuTime() : 0;
    }

    // ---------------------------------------------------------------- feed -> FEED_ACK latency

    static Latency latency(final SchemaRegistry schemas, final Options o, final JournalSync sync) throws Exception {
        final Path journal = Files.createTempDirectory(o.dir(), "latency-" + sync.id());
        final TickMetrics metrics = new TickMetrics();
        final Counting counting = new Counting();
        try (TickerplantServer tp = start(schemas, journal, sync, 1, metrics);
             TickClient sub = subscribe(tp.port(), counting);
             AckTimedFeed feed = new AckTimedFeed(tp.port(), (long) o.rate() * (o.warmup() + o.seconds()), (long) o.rate() * o.warmup())) {
            feed.run(schemas.get("trade"), o.r(), o.syms(), o.rate());
            metrics.resetLatencies();
            final long forces0 = metrics.counter("tick.tp.journal.syncs").get();
            final long t0 = System.nanoTime();
            feed.awaitRecording();
            final long forces1 = metrics.counter("tick.tp.journal.syncs").get();
            feed.awaitAll();
            final double seconds = (System.nanoTime() - t0) / 1e9;
            return new Latency(feed.histogram(), metrics.latency("tick.tp.journal.sync", "").snapshot(), forces1 - forces0, seconds);
        } finally {
            TickerplantBenchmark.deleteTree(journal);
        }
    }

    /**
     * A numbered feed on a plain socket: sends paced updates from its own thread, each numbered and timed
     * just before its write; a reader thread takes each FEED_ACK and records, for every update it covers,
     * the time since that update's write (from update {@code recordFrom} on).
     */
    static final class AckTimedFeed implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final DataInputStream in;
        private final long total;
        private final long recordFrom;
        private final long[] sentAt;
        private final Histogram histogram = new Histogram(MAX_LATENCY_NANOS, 3);
        private final Thread reader;
        private Thread sender;
        private volatile long acked;
        private volatile String failure;

        AckTimedFeed(final int port, final long total, final long warmupUpdates) throws IOException {
            this.total = total;
            this.recordFrom = warmupUpdates + 1;
            this.sentAt = new long[(int) total + 1];
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
            write(ControlFrames.hello(UnpooledByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "bench-ack-feed",
                FrameDescriptor.PROTOCOL_VERSION, FrameDescriptor.HELLO_FLAG_NUMBERED));
            final ByteBuffer first = readFrame();
            if (first.get(FrameDescriptor.TYPE_OFFSET) != MessageType.FEED_ACK || first.getLong(FrameDescriptor.HEADER_LENGTH) != 0) {
                throw new IOException("the tickerplant did not answer HELLO with FEED_ACK(0) [type="
                    + first.get(FrameDescriptor.TYPE_OFFSET) + "]");
            }
            reader = new Thread(this::readAcks, "bench-ack-reader");
            reader.setDaemon(true);
            reader.start();
        }

        private void write(final ByteBuf frame) throws IOException {
            try {
                final byte[] bytes = new byte[frame.readableBytes()];
                frame.getBytes(frame.readerIndex(), bytes);
                out.write(bytes);
            } finally {
                frame.release();
            }
        }

        private ByteBuffer readFrame() throws IOException {
            final byte[] header = new byte[FrameDescriptor.HEADER_LENGTH];
            in.readFully(header);
            final int length = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt(FrameDescriptor.LENGTH_OFFSET);
            final byte[] frame = Arrays.copyOf(header, length);
            in.readFully(frame, FrameDescriptor.HEADER_LENGTH, length - FrameDescriptor.HEADER_LENGTH);
            return ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        }

        private void readAcks() {
            try {
                while (acked < total) {
                    final ByteBuffer f = readFrame();
                    final int type = f.get(FrameDescriptor.TYPE_OFFSET);
                    if (type == MessageType.FEED_ACK) {
                        final long now = System.nanoTime();
                        final long n = f.getLong(FrameDescriptor.HEADER_LENGTH);
                        for (long k = Math.max(acked + 1, recordFrom); k <= n; k++) {
                            histogram.recordValue(Math.min(now - sentAt[(int) k], MAX_LATENCY_NANOS));
                        }
                        acked = Math.max(acked, n);
                    } else if (type == MessageType.ERROR) {
                        failure = "ERROR frame from the tickerplant";
                        return;
                    }
                }
            } catch (final IOException e) {
                if (acked < total) {
                    failure = e.toString();
                }
            }
        }

        /** Starts sending {@code total} updates at {@code rate} per second from its own thread. */
        void run(final TableSchema trade, final int r, final int symCount, final int rate) {
            final byte[][] syms = TradeFrames.syms(symCount);
            sender = new Thread(() -> {
                final UpdateEncoder enc = new UpdateEncoder();
                final ByteBufAllocator alloc = UnpooledByteBufAllocator.DEFAULT;
                final ByteBuf buf = alloc.heapBuffer(TradeFrames.maxLength(trade, r, syms));
                final long period = 1_000_000_000L / rate;
                final long start = System.nanoTime();
                try {
                    for (long k = 1; k <= total && failure == null; k++) {
                        final long due = start + (k - 1) * period;
                        long wait;
                        while ((wait = due - System.nanoTime()) > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        buf.clear();
                        final long now = System.currentTimeMillis() * 1_000_000L;
                        TradeFrames.encode(enc, buf, trade, r, (k - 1) * r, syms, now, now);
                        buf.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, k);
                        sentAt[(int) k] = System.nanoTime();
                        out.write(buf.array(), buf.arrayOffset(), buf.readableBytes());
                    }
                } catch (final IOException e) {
                    failure = e.toString();
                }
            }, "bench-ack-sender");
            sender.start();
        }

        /** Waits until the warm-up updates are acknowledged (recording starts after them). */
        void awaitRecording() {
            await(recordFrom - 1);
        }

        /** Waits until every update is acknowledged. */
        void awaitAll() throws InterruptedException {
            await(total);
            sender.join();
        }

        private void await(final long n) {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60) + total * 1_000_000L;
            while (acked < n) {
                if (failure != null || System.nanoTime() > deadline) {
                    throw new IllegalStateException("feed acknowledged " + acked + " of " + n + " [failure=" + failure + "]");
                }
                LockSupport.parkNanos(1_000_000);
            }
        }

        Histogram histogram() {
            return histogram.copy();
        }

        @Override
        public void close() throws IOException {
            socket.close();
            try {
                reader.join(5000);
                if (sender != null) {
                    sender.join(5000);
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
