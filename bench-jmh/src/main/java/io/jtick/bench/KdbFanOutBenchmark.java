package io.jtick.bench;

import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tp.Tickerplant;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ErrorCode;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.openjdk.jmh.annotations.AuxCounters;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishing one 100-row trade update to {@code subscribers} kdb+ subscribers (zero-latency: validate,
 * journal to a real Chronicle Queue, build {@code (`upd;`trade;table)}, write, flush), the subscribers
 * spread over {@code symLists} distinct sym lists (1: all take every sym; 2: half every sym, half one
 * list of 50 syms). With broadcast on, the kdb+ message is built once per distinct list and shared;
 * off, once per subscriber. {@link Encodes#kdbMessages} counts the messages built (the TP's
 * {@code tick.tp.kdb.published}): per update it is the number of distinct lists, whatever the
 * subscriber count, and {@code -prof gc} shows no per-subscriber allocation. Subscribers are
 * {@link EmbeddedChannel}s released after each flush (no socket), on a Netty thread as the TP's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsPrepend = {"-Djmh.executor=CUSTOM", "-Djmh.executor.class=io.jtick.bench.EventLoopThreadExecutor"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class KdbFanOutBenchmark {
    @Param({"1", "10"})
    public int subscribers;

    @Param({"true", "false"})
    public boolean broadcast;

    @Param({"1", "2"})
    public int symLists;

    private ByteBuf frame;
    private int frameLength;
    private Path dir;
    private Tickerplant tp;
    private EmbeddedChannel[] channels;
    private AtomicLong published;

    /** kdb+ messages built per update. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Encodes {
        public long kdbMessages;

        @Setup(Level.Iteration)
        public void reset() {
            kdbMessages = 0;
        }
    }

    @Setup(Level.Trial)
    public void buildFrame() {
        if (!FastThreadLocalThread.currentThreadWillCleanupFastThreadLocals()) {
            throw new IllegalStateException("run on a Netty FastThreadLocalThread: fork with " + String.join(" ",
                EventLoopThreadExecutor.JVM_ARGS));
        }
        final TableSchema schema = TableSchema.trade(0);
        final byte[][] syms = TradeFrames.syms(100);
        frame = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, 100, syms));
        frameLength = TradeFrames.encode(new UpdateEncoder(), frame, schema, 100, 0, syms, System.currentTimeMillis() * 1_000_000L, 0);
    }

    @Setup(Level.Iteration)
    public void open() throws IOException {
        dir = Files.createTempDirectory("jtick-kdb-fanout");
        final TickMetrics metrics = new TickMetrics();
        published = metrics.counter("tick.tp.kdb.published");
        tp = new Tickerplant(TickerplantSettings.defaults(dir).withPort(0).withBroadcast(broadcast), SchemaRegistry.builtIn(0),
            NanoClock.SYSTEM, PooledByteBufAllocator.DEFAULT, metrics);
        final List<String> half = new java.util.ArrayList<>();
        for (int s = 0; s < 50; s++) {
            half.add(String.format("S%04d", s));
        }
        channels = new EmbeddedChannel[subscribers];
        for (int k = 0; k < subscribers; k++) {
            channels[k] = new EmbeddedChannel();
            tp.onKdbSubscribe(channels[k], "bench-" + k, -1, symLists == 2 && k % 2 == 1 ? half : List.of());
        }
    }

    @Benchmark
    public ErrorCode publish(final Encodes encodes) {
        final long before = published.get();
        final ErrorCode code = tp.onUpdate(null, frame, 0, frameLength);
        tp.flush();
        for (final EmbeddedChannel ch : channels) {
            ch.releaseOutbound();
        }
        encodes.kdbMessages += published.get() - before;
        return code;
    }

    @TearDown(Level.Iteration)
    public void close() throws IOException {
        for (final EmbeddedChannel ch : channels) {
            ch.releaseOutbound();
            ch.finishAndReleaseAll();
        }
        tp.close();
        TickerplantBenchmark.deleteTree(dir);
    }

    @TearDown(Level.Trial)
    public void releaseFrame() {
        frame.release();
    }
}
