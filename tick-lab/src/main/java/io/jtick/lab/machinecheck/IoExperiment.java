package io.jtick.lab.machinecheck;

import io.jtick.lab.run.LabParams;
import io.jtick.lab.run.Measure;
import io.jtick.lab.run.RowResult;
import io.jtick.lab.run.RunReport;
import io.jtick.lab.storage.PageCache;
import io.jtick.lab.storage.StorageProbe;
import io.jtick.core.client.FeedPublisher;
import io.jtick.core.client.TickClient;
import io.jtick.core.client.TickListener;
import io.jtick.core.journal.Journal;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.wire.Transport;
import io.jtick.core.wire.UpdateDecoder;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * KX's io.q on jtick: the same list of measurements, each done the way jtick does that job, beside
 * KX's published figures (kdb+ 2.4 on an AMD Opteron with 4 GB).
 *
 * <ul>
 *   <li><b>local file</b>, on a plain int64 column file of {@code fileMegabytes}: open+close as
 *       the HDB opens one ({@code hclose hopen}); read it all cold and cached (MB/s; {@code read},
 *       {@code read cached}); write it, forced to disk (MB/s; {@code write}).</li>
 *   <li><b>local file ops</b>, on small files: write a 2-row column file without forcing it
 *       ({@code .[file;();:;2 3]}, set); append a 2-row update to an open tickerplant journal
 *       ({@code append (2 3) to handle}); the size of a file ({@code hcount}); read a column file's
 *       first 64 bytes, its header ({@code read1}); open the 2-row column, read it, close it
 *       ({@code value}).</li>
 *   <li><b>local comm</b>, with a tickerplant on loopback in this process: a feed connection's
 *       connect (with its HELLO) and close ({@code hclose hopen} of 127.0.0.1); a round trip: a
 *       feed sends an update and waits until a subscriber connection has received it back from the
 *       TP (journalled and published) before sending the next, with 1 row and 100 rows
 *       ({@code sync (string 23)}, {@code sync (key rand 100)}); {@code N} 1-row updates sent
 *       without waiting, then collected by the subscriber (time per update; {@code async + collect}).</li>
 * </ul>
 *
 * <p>Cold reads: the file is written and forced, its column file closed (unmapped), then its pages
 * are dropped from the page cache ({@link PageCache}: {@code posix_fadvise(DONTNEED)} through
 * {@code dd iflag=nocache count=0}) and what is left cached is read back with {@code fincore}; a
 * repeat whose drop failed, or that still had more than 1% of the file cached, is reported as not
 * cold (and the figure is left out when no repeat was). io.q instead touches {@code -flush} GB of
 * memory to push the file out.
 */
public final class IoExperiment {
    /** Megabytes of the read/write file, by default. */
    public static final int FILE_MEGABYTES = 256;
    public static final String KX_SOURCE = "KX performance tips, io.q, kdb+ 2.4, AMD Opteron, 4 GB";

    private final Path workDir;
    private final int fileMegabytes;
    private final int repeats;
    private final int ops;

    public IoExperiment(final Path workDir) {
        this(workDir, FILE_MEGABYTES, 3, 2_000);
    }

    /** Smaller files and fewer operations: tests. */
    IoExperiment(final Path workDir, final int fileMegabytes, final int repeats, final int ops) {
        this.workDir = workDir;
        this.fileMegabytes = fileMegabytes;
        this.repeats = repeats;
        this.ops = ops;
    }

    /** KX's io.q figure of a measurement by its KX name, or null. */
    static Double kx(final String name) {
        switch (name) {
            case "hclose hopen":
                return 0.0094;
            case "read":
                return 270.0;
            case "read cached":
                return 392.0;
            case "write":
                return 157.0;
            case "set":
                return 0.093;
            case "append (2 3) to handle":
                return 0.00883;
            case "hcount":
                return 0.0053;
            case "read1":
                return 2.1732;
            case "value":
                return 0.0251;
            case "hclose hopen 127.0.0.1":
                return 0.135;
            case "sync (key rand 100)":
                return 0.06277;
            case "sync (string 23)":
                return 0.05514;
            case "async (string 23) + collect":
                return 0.00773;
            default:
                return null;
        }
    }

    /** Runs every measurement once (with {@code repeats} timed repeats each); {@code stop} ends it between measurements. */
    public RowResult run(final int index, final LabParams p, final BooleanSupplier stop, final Consumer<String> phase) {
        final long start = System.nanoTime();
        final List<Measure> out = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        Path dir = null;
        String status = RunReport.DONE;
        String error = null;
        try {
            Files.createDirectories(workDir);
            dir = Files.createTempDirectory(workDir, "io-");
            phase.accept("local file");
            localFile(dir, out, notes, stop);
            if (!stop.getAsBoolean()) {
                phase.accept("local file ops");
                fileOps(dir, out, stop);
            }
            if (!stop.getAsBoolean()) {
                phase.accept("local comm");
                comm(dir, out, stop);
            }
            if (stop.getAsBoolean()) {
                status = RunReport.STOPPED;
                error = "stopped on request";
            }
        } catch (final IOException | RuntimeException e) {
            status = RunReport.FAILED;
            error = "io measurement failed: " + e;
        } finally {
            if (dir != null) {
                try {
                    io.jtick.core.hdb.store.PartitionStore.deleteRecursively(dir);
                } catch (final IOException e) {
                    notes.add("could not delete " + dir + ": " + e.getMessage());
                }
            }
        }
        if (!notes.isEmpty()) {
            error = error == null ? String.join("; ", notes) : error + "; " + String.join("; ", notes);
        }
        return RowResult.measured(index, p, status, error, (System.nanoTime() - start) / 1e9, out);
    }

    // ------------------------------------------------------------------ local file

    private void localFile(final Path dir, final List<Measure> out, final List<String> notes, final BooleanSupplier stop)
        throws IOException {
        final int rows = (int) Math.min(Integer.MAX_VALUE - 1L, (long) fileMegabytes * 1024 * 1024 / 8);
        final Path file = dir.resolve("readtest");
        final double[] written = new double[repeats];
        int writes = 0;
        long bytes = 0;
        for (; writes < repeats && !stop.getAsBoolean(); writes++) {
            final long t0 = System.nanoTime();
            bytes = StorageProbe.writeColumn(file, rows, true);
            written[writes] = bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
        }
        // a stop request ends the loops early: only the repeats that ran count
        final double[] write = Arrays.copyOf(written, writes);
        final Path small = dir.resolve("opentest");
        StorageProbe.writeColumn(small, 2, true);
        final double[] open = time(repeats, ops, () -> StorageProbe.openClose(small, 2), stop);
        out.add(ms("local file", "hclose hopen", open, ops, "open a (2-row) column file as the HDB does (header, block index and"
            + " its checksum, map) and close it (unmap)"));
        final double[] cold = new double[repeats];
        int coldDone = 0;
        int notCold = 0;
        long lastResident = 0;
        for (int k = 0; k < repeats && !stop.getAsBoolean(); k++) {
            final boolean dropped = PageCache.drop(file);
            final long resident = PageCache.resident(file);
            lastResident = resident;
            if (!dropped || resident < 0 || resident > bytes / 100) {
                notCold++;
                continue;
            }
            final long t0 = System.nanoTime();
            StorageProbe.readColumn(file, rows);
            cold[coldDone++] = bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
        }
        final String coldMethod = String.format(Locale.ROOT, "read a %d MB column file through ColumnFile (mapped, block checksums"
            + " verified) after dropping it from the page cache: %s, then fincore to check", bytes / 1_000_000, PageCache.METHOD);
        if (coldDone > 0) {
            out.add(rate("local file", "read", Arrays.copyOf(cold, coldDone), bytes, coldMethod
                + (notCold > 0 ? "; " + notCold + " repeat(s) left out: not cold" : "")));
        } else {
            notes.add("cold read not measured: the page cache could not be dropped (" + PageCache.METHOD + " failed, or fincore"
                + " missing or still showing " + lastResident + " of " + bytes + " bytes cached)");
        }
        StorageProbe.readColumn(file, rows);
        final double[] cached = new double[repeats];
        int reads = 0;
        for (; reads < repeats && !stop.getAsBoolean(); reads++) {
            final long t0 = System.nanoTime();
            StorageProbe.readColumn(file, rows);
            cached[reads] = bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
        }
        out.add(rate("local file", "read cached", Arrays.copyOf(cached, reads), bytes,
            "the same read with the file's pages in the page cache"));
        out.add(rate("local file", "write", write, bytes, String.format(Locale.ROOT, "write a %d MB plain int64 column file"
            + " through the write-down's ColumnFileWriter (128 KB blocks, checksummed) and force it to disk", bytes / 1_000_000)));
    }

    // ------------------------------------------------------------------ local file ops

    private void fileOps(final Path dir, final List<Measure> out, final BooleanSupplier stop) throws IOException {
        final Path small = dir.resolve("fileops");
        final double[] set = time(repeats, ops, () -> StorageProbe.writeColumn(small, 2, false), stop);
        out.add(ms("local file ops", "set", set, ops, "write a 2-row int64 column file (replacing it; header, block, index,"
            + " checksums), not forced, as q's set is not"));
        final Path journalRoot = dir.resolve("journal");
        final TableSchema trade = TableSchema.trade(0);
        final ByteBuf frame = tradeFrame(trade, 2);
        final long[] seq = {0};
        try (Journal journal = Journal.open(journalRoot, LocalDate.now(ZoneOffset.UTC), 0, NanoClock.SYSTEM)) {
            final int appends = ops * 10;
            final double[] append = time(repeats, appends, () -> journal.append(frame, 0, frame.readableBytes(), ++seq[0]), stop);
            out.add(ms("local file ops", "append (2 3) to handle", append, appends, String.format(Locale.ROOT,
                "append a 2-row trade update (%d bytes) to an open tickerplant journal (Chronicle Queue, page cache)",
                frame.readableBytes())));
        } catch (final Exception e) {
            throw new IOException("journal append failed [dir=" + journalRoot + "]: " + e.getMessage(), e);
        } finally {
            frame.release();
        }
        final double[] hcount = time(repeats, ops * 10, () -> Files.size(small), stop);
        out.add(ms("local file ops", "hcount", hcount, ops * 10L, "the size of a file (Files.size: stat)"));
        final double[] read1 = time(repeats, ops, () -> StorageProbe.readFirstBytes(small, 64), stop);
        out.add(ms("local file ops", "read1", read1, ops, "open a column file, read its first 64 bytes (the header), close it;"
            + " KX's read1 read a whole file as bytes"));
        final double[] value = time(repeats, ops, () -> StorageProbe.readColumn(small, 2), stop);
        out.add(ms("local file ops", "value", value, ops, "open the 2-row column file (mapped), read its values, close it"));
    }

    // ------------------------------------------------------------------ local comm

    private void comm(final Path dir, final List<Measure> out, final BooleanSupplier stop) throws IOException {
        final SchemaRegistry schemas = SchemaRegistry.builtIn(0);
        final TableSchema trade = schemas.get("trade");
        final TickerplantSettings settings = TickerplantSettings.defaults(dir.resolve("tp-journal")).withPort(0);
        final EventLoopGroup group = Transport.newGroup(1, "io-probe");
        final ByteBuf one = tradeFrame(trade, 1);
        final ByteBuf hundred = tradeFrame(trade, 100);
        try (TickerplantServer server = new TickerplantServer(settings, schemas, NanoClock.SYSTEM, new TickMetrics()).start()) {
            final int port = server.port();
            final int connects = Math.max(10, ops / 10);
            final double[] connect = time(repeats, connects, () -> {
                try (FeedPublisher f = new FeedPublisher("127.0.0.1", port, "io-connect", group)) {
                    f.connect(5_000);
                }
            }, stop);
            out.add(ms("local comm", "hclose hopen 127.0.0.1", connect, connects, "connect a feed to the tickerplant on loopback"
                + " (TCP, Netty, its HELLO frame) and close the connection"));
            final AtomicLong received = new AtomicLong();
            final TickListener counter = new TickListener() {
                @Override
                public void onUpdate(final TableSchema schema, final UpdateDecoder update, final long receiveNanos) {
                    received.incrementAndGet();
                }
            };
            try (TickClient sub = new TickClient(TickClient.Settings.of("127.0.0.1", port, "io-sub").withTables(List.of("trade")), counter,
                () -> -1L, group, NanoClock.SYSTEM);
                 FeedPublisher feed = new FeedPublisher("127.0.0.1", port, "io-feed", group)) {
                sub.start();
                waitFor(sub::isSubscribed, "the subscriber did not subscribe");
                feed.connect(5_000);
                final double[] sync100 = time(repeats, ops, () -> roundTrip(feed, hundred, received), stop);
                out.add(ms("local comm", "sync (key rand 100)", sync100, ops, String.format(Locale.ROOT, "a feed sends a 100-row update"
                    + " (%d bytes) and waits until a subscriber connection has it back from the TP (journalled, published)",
                    hundred.readableBytes())));
                final double[] sync1 = time(repeats, ops, () -> roundTrip(feed, one, received), stop);
                out.add(ms("local comm", "sync (string 23)", sync1, ops, String.format(Locale.ROOT, "the same round trip with a 1-row"
                    + " update (%d bytes)", one.readableBytes())));
                final int burst = ops * 10;
                final double[] async = time(repeats, 1, () -> {
                    final long want = received.get() + burst;
                    for (int i = 0; i < burst; i++) {
                        if (!feed.awaitWritable(TimeUnit.SECONDS.toNanos(10)) || !feed.send(ownCopy(feed, one))) {
                            throw new IOException("feed refused the update [lastError=" + feed.lastError() + "]");
                        }
                    }
                    waitUntil(received, want);
                }, stop);
                for (int i = 0; i < async.length; i++) {
                    async[i] /= burst;
                }
                out.add(ms("local comm", "async (string 23) + collect", async, burst, String.format(Locale.ROOT, "%,d 1-row updates"
                    + " sent without waiting, then collected by the subscriber; time per update", burst)));
            }
        } finally {
            one.release();
            hundred.release();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }

    private static void roundTrip(final FeedPublisher feed, final ByteBuf frame, final AtomicLong received) throws IOException {
        final long want = received.get() + 1;
        if (!feed.awaitWritable(TimeUnit.SECONDS.toNanos(10)) || !feed.send(ownCopy(feed, frame))) {
            throw new IOException("feed refused the update [lastError=" + feed.lastError() + "]");
        }
        waitUntil(received, want);
    }

    /**
     * A frame of its own for each send: a numbered feed writes its number into the frame and keeps it
     * until acknowledged, so frames sent back to back must not share bytes (shared, later numbers would
     * overwrite earlier ones and the TP would drop them as resends).
     */
    private static ByteBuf ownCopy(final FeedPublisher feed, final ByteBuf frame) {
        final ByteBuf b = feed.alloc().buffer(frame.readableBytes());
        return b.writeBytes(frame, frame.readerIndex(), frame.readableBytes());
    }

    private static void waitUntil(final AtomicLong received, final long want) throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (received.get() < want) {
            if (System.nanoTime() > deadline) {
                throw new IOException("the subscriber did not receive the update within 30 s [received=" + received.get() + ", want="
                    + want + "]");
            }
            Thread.onSpinWait();
        }
    }

    private static void waitFor(final BooleanSupplier cond, final String failure) throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IOException(failure + " within 10 s");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }

    /** A trade update of {@code rows} rows over 2 syms, time unset so the TP stamps it. */
    private static ByteBuf tradeFrame(final TableSchema trade, final int rows) {
        final byte[][] syms = {"IBM".getBytes(StandardCharsets.US_ASCII), "MSFT".getBytes(StandardCharsets.US_ASCII)};
        final int distinct = Math.min(rows, 2);
        int dictBytes = 0;
        for (int s = 0; s < distinct; s++) {
            dictBytes += 1 + syms[s].length;
        }
        final ByteBuf buf = Unpooled.directBuffer(UpdateEncoder.frameLength(trade, rows, dictBytes));
        final UpdateEncoder enc = new UpdateEncoder().wrap(buf, trade, rows, dictBytes);
        for (int s = 0; s < distinct; s++) {
            enc.addSym(syms[s]);
        }
        final long now = NanoClock.SYSTEM.epochNanos();
        for (int r = 0; r < rows; r++) {
            enc.timestamp(TableSchema.TIME, r, now);
            enc.sym(r, r % distinct);
            enc.float64(2, r, 100 + r * 0.01);
            enc.int64(3, r, 100 + r);
            enc.int8(4, r, 'N');
        }
        enc.finish();
        return buf;
    }

    // ------------------------------------------------------------------ timing

    /** Something timed that may fail. */
    @FunctionalInterface
    private interface Op {
        void run() throws Exception;
    }

    /** One untimed round, then {@code repeats} timed rounds of {@code n} operations: ms per operation of each round. */
    private static double[] time(final int repeats, final int n, final Op op, final BooleanSupplier stop) throws IOException {
        final double[] ms = new double[repeats];
        try {
            for (int i = 0; i < n; i++) {
                op.run();
            }
            for (int k = 0; k < repeats; k++) {
                if (stop.getAsBoolean()) {
                    return Arrays.copyOf(ms, k);
                }
                final long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    op.run();
                }
                ms[k] = (System.nanoTime() - t0) / 1e6 / n;
            }
            return ms;
        } catch (final IOException e) {
            throw e;
        } catch (final Exception e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    private static Measure ms(final String section, final String name, final double[] perOp, final long ops, final String method) {
        final double median = perOp.length == 0 ? 0 : ThroughputExperiment.median(perOp);
        return new Measure(section, name, "ms", round(median), perOp.length, ops, false, null, null, null, method)
            .withKx(kx(name), KX_SOURCE);
    }

    private static Measure rate(final String section, final String name, final double[] mbs, final long bytes, final String method) {
        final double median = mbs.length == 0 ? 0 : ThroughputExperiment.median(mbs);
        return new Measure(section, name, "MB/s", Math.round(median * 10) / 10.0, mbs.length, bytes, true, null, null, null, method)
            .withKx(kx(name), KX_SOURCE);
    }

    /** Five significant digits. */
    private static double round(final double v) {
        if (v == 0 || Double.isNaN(v)) {
            return v;
        }
        return new java.math.BigDecimal(v).round(new java.math.MathContext(5)).doubleValue();
    }
}
