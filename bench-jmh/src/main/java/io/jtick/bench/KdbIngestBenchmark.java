package io.jtick.bench;

import io.jtick.core.kdb.KdbDescriptor;
import io.jtick.core.kdb.KdbSettings;
import io.jtick.core.kdb.KdbType;
import io.jtick.core.kdb.KdbWriter;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tp.TickerplantServer;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Ingest into a real {@link TickerplantServer} over loopback, kdb+ IPC against the native protocol
 * in the same run: a Java load generator writes pre-encoded 100-row trade updates to the TP's kdb+
 * port ({@code (`.u.upd;`trade;(time;sym;price;size;cond))}, little-endian as q sends) or to its native
 * port (UPDATE frames), as fast as the socket takes them; the TP converts (kdb+), validates,
 * journals to a real Chronicle Queue (temp directory) and publishes to one subscriber of the same
 * protocol, whose socket a thread drains. One operation is one row: each invocation writes
 * {@link #UPDATES_PER_OP} updates in one socket write and then waits until the TP has journalled
 * all but the last batch's rows (so at most two batches are in flight), reading the TP's own
 * {@code tick.tp.rows} counter. Score = rows/s journalled and published.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class KdbIngestBenchmark {
    static final int ROWS = 100;
    static final int UPDATES_PER_OP = 100;

    @Param({"native", "kdb"})
    public String protocol;

    private Path dir;
    private TickerplantServer server;
    private AtomicLong journalledRows;
    private Socket feed;
    private OutputStream out;
    private Socket subscriber;
    private Thread drainer;
    private byte[] batch;
    private long sentRows;

    @Setup(Level.Trial)
    public void start() throws IOException {
        dir = Files.createTempDirectory("jtick-kdb-ingest");
        final TickMetrics metrics = new TickMetrics();
        journalledRows = metrics.counter("tick.tp.rows");
        server = new TickerplantServer(TickerplantSettings.defaults(dir).withPort(0), SchemaRegistry.builtIn(0), NanoClock.SYSTEM, metrics)
            .kdb(KdbSettings.onPort(0)).start();
        final boolean kdb = protocol.equals("kdb");
        final int port = kdb ? server.kdbPort() : server.port();
        subscriber = connect(port, kdb);
        if (kdb) {
            subscriber.getOutputStream().write(bytes(subscribeMessage()));
        } else {
            subscriber.getOutputStream().write(bytes(ControlFrames.hello(ByteBufAllocator.DEFAULT, ControlFrames.ROLE_SUBSCRIBER,
                "bench")));
            subscriber.getOutputStream().write(bytes(ControlFrames.subscribe(ByteBufAllocator.DEFAULT, -1, List.of(), List.of())));
        }
        drainer = new Thread(() -> drain(subscriber), "bench-subscriber");
        drainer.setDaemon(true);
        drainer.start();
        feed = connect(port, kdb);
        out = feed.getOutputStream();
        if (!kdb) {
            out.write(bytes(ControlFrames.hello(ByteBufAllocator.DEFAULT, ControlFrames.ROLE_FEED, "bench")));
        }
        final ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(1 << 20);
        final byte[][] syms = TradeFrames.syms(100);
        final UpdateEncoder enc = new UpdateEncoder();
        for (int u = 0; u < UPDATES_PER_OP; u++) {
            if (kdb) {
                kdbUpdate(b, syms, (long) u * ROWS);
            } else {
                TradeFrames.encode(enc, b, TableSchema.trade(0), ROWS, (long) u * ROWS, syms, System.currentTimeMillis() * 1_000_000L, 0);
            }
        }
        batch = bytes(b);
        sentRows = 0;
    }

    private static Socket connect(final int port, final boolean kdb) throws IOException {
        final Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSendBufferSize(1 << 20);
        s.setReceiveBufferSize(1 << 20);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        if (kdb) {
            s.getOutputStream().write("bench:\u0003\u0000".getBytes(StandardCharsets.ISO_8859_1));
            if (s.getInputStream().read() != KdbDescriptor.CAPABILITY) {
                throw new IOException("kdb+ login refused");
            }
        }
        return s;
    }

    /** The sync {@code .u.sub[`trade;`]}. */
    private static ByteBuf subscribeMessage() {
        final ByteBuf m = KdbWriter.begin(ByteBufAllocator.DEFAULT, KdbDescriptor.SYNC, 32);
        KdbWriter.list(m, 3);
        KdbWriter.symbol(m, ".u.sub");
        KdbWriter.symbol(m, "trade");
        KdbWriter.symbol(m, "");
        return KdbWriter.end(m);
    }

    /** One async {@code .u.upd} of a 100-row trade table as a list of columns, as a q feed handler sends it. */
    static void kdbUpdate(final ByteBuf b, final byte[][] syms, final long first) {
        final int start = b.writerIndex();
        b.writeByte(1).writeByte(KdbDescriptor.ASYNC).writeShort(0).writeIntLE(0);
        KdbWriter.list(b, 3);
        KdbWriter.symbol(b, ".u.upd");
        KdbWriter.symbol(b, "trade");
        KdbWriter.list(b, 5);
        KdbWriter.vector(b, KdbType.TIMESTAMP, ROWS);
        final long now = System.currentTimeMillis() * 1_000_000L - KdbDescriptor.NANOS_1970_2000;
        for (int k = 0; k < ROWS; k++) {
            b.writeLongLE(now);
        }
        KdbWriter.vector(b, KdbType.SYMBOL, ROWS);
        for (int k = 0; k < ROWS; k++) {
            b.writeBytes(syms[(int) ((first + k) % syms.length)]).writeByte(0);
        }
        KdbWriter.vector(b, KdbType.FLOAT, ROWS);
        for (int k = 0; k < ROWS; k++) {
            b.writeLongLE(Double.doubleToRawLongBits(100.0 + ((first + k) % 1000) * 0.01));
        }
        KdbWriter.vector(b, KdbType.LONG, ROWS);
        for (int k = 0; k < ROWS; k++) {
            b.writeLongLE(first + k);
        }
        KdbWriter.vector(b, KdbType.CHAR, ROWS);
        for (int k = 0; k < ROWS; k++) {
            b.writeByte('A');
        }
        b.setIntLE(start + 4, b.writerIndex() - start);
    }

    private static byte[] bytes(final ByteBuf b) {
        final byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        b.release();
        return out;
    }

    private static void drain(final Socket s) {
        final byte[] sink = new byte[1 << 16];
        try (InputStream in = s.getInputStream()) {
            while (in.read(sink) >= 0) {
                // discard: the subscriber's only job is to keep its socket drained
            }
        } catch (final IOException e) {
            // closed at tear-down
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROWS * UPDATES_PER_OP)
    public long ingest() throws IOException {
        out.write(batch);
        sentRows += (long) ROWS * UPDATES_PER_OP;
        final long target = sentRows - (long) ROWS * UPDATES_PER_OP;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long journalled;
        while ((journalled = journalledRows.get()) < target) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("tickerplant stalled [journalled=" + journalled + ", sent=" + sentRows + "]");
            }
            LockSupport.parkNanos(20_000);   // two cores: spinning here would take one from the tickerplant
        }
        return journalled;
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException, InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (journalledRows.get() < sentRows && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        final long errors = server.status().errors().values().stream().mapToLong(Long::longValue).sum();
        feed.close();
        subscriber.close();
        drainer.join(5000);
        server.close();
        TickerplantBenchmark.deleteTree(dir);
        if (journalledRows.get() != sentRows || errors != 0) {
            throw new IllegalStateException("not every row was journalled [sent=" + sentRows + ", journalled=" + journalledRows.get()
                + ", errors=" + errors + "]");
        }
    }
}
