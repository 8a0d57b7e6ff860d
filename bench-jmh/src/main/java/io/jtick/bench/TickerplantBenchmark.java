package io.jtick.bench;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tp.Tickerplant;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The tickerplant's per-update work ({@code .u.upd} in zero-latency mode): validate, journal to a
 * real Chronicle Queue (temp directory, page cache), publish one retained slice (broadcast) or one
 * copy per subscriber, and flush every {@code flushEvery} updates as a feed read batch would.
 * Frames are built once, so the feed's encoding is not measured. Subscribers are
 * {@link EmbeddedChannel}s whose outbound frames are released after each flush: this measures the
 * TP's work without the socket write (the whole path over loopback is {@link PipelineBenchmark}).
 * The benchmark thread is a Netty {@code FastThreadLocalThread} ({@link EventLoopThreadExecutor}), as
 * the TP's event loop is. The score is updates/s; {@code rows} is rows/s (= updates/s × r). A fresh TP and journal directory
 * are made per iteration so the journal does not fill the disk.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsPrepend = {"-Djmh.executor=CUSTOM", "-Djmh.executor.class=io.jtick.bench.EventLoopThreadExecutor"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class TickerplantBenchmark {
    @Param({"1", "10", "100"})
    public int r;

    @Param({"1", "100"})
    public int flushEvery;

    @Param({"true"})
    public boolean broadcast;

    @Param({"1"})
    public int subscribers;

    private ByteBuf frame;
    private int frameLength;
    private Path dir;
    private Tickerplant tp;
    private EmbeddedChannel[] channels;
    private int sinceFlush;


    @Setup(Level.Trial)
    public void buildFrame() {
        if (!FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals()) {
            throw new IllegalStateException("run on a Netty FastThreadLocalThread, as the TP does: fork with "
                + String.join(" ", EventLoopThreadExecutor.JVM_ARGS));
        }
        final TableSchema schema = TableSchema.trade(0);
        final byte[][] syms = TradeFrames.syms(100);
        frame = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, r, syms));
        frameLength = TradeFrames.encode(new UpdateEncoder(), frame, schema, r, 0, syms, System.currentTimeMillis() * 1_000_000L,
            0);
    }

    @Setup(Level.Iteration)
    public void open() throws IOException {
        dir = Files.createTempDirectory("jtick-tp-bench");
        tp = new Tickerplant(TickerplantSettings.defaults(dir).withPort(0).withBroadcast(broadcast), SchemaRegistry.builtIn(0),
            NanoClock.SYSTEM, PooledByteBufAllocator.DEFAULT, new TickMetrics());
        channels = new EmbeddedChannel[subscribers];
        for (int k = 0; k < subscribers; k++) {
            channels[k] = new EmbeddedChannel();
            final String problem = tp.onSubscribe(channels[k], "bench-" + k, new ControlFrames.Subscribe(-1, List.of(), List.of()));
            if (problem != null) {
                throw new IllegalStateException(problem);
            }
            channels[k].releaseOutbound();
        }
        sinceFlush = 0;
    }

    @Benchmark
    public ErrorCode update(final Rows rows) {
        final ErrorCode code = tp.onUpdate(null, frame, 0, frameLength);
        if (++sinceFlush == flushEvery) {
            sinceFlush = 0;
            tp.flush();
            for (final EmbeddedChannel ch : channels) {
                ch.releaseOutbound();
            }
        }
        rows.rows += r;
        return code;
    }

    @TearDown(Level.Iteration)
    public void close() throws IOException {
        tp.flush();
        for (final EmbeddedChannel ch : channels) {
            ch.releaseOutbound();
            ch.finishAndReleaseAll();
        }
        tp.close();
        deleteTree(dir);
    }

    @TearDown(Level.Trial)
    public void releaseFrame() {
        frame.release();
    }

    public static void deleteTree(final Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            for (final Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
