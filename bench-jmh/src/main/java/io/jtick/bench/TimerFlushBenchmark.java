package io.jtick.bench;

import io.jtick.core.journal.Journal;
import io.jtick.core.metrics.TickMetrics;
import io.jtick.core.schema.SchemaRegistry;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.tp.PublishMode;
import io.jtick.core.tp.Tickerplant;
import io.jtick.core.tp.TickerplantSettings;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.ControlFrames;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
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
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The white paper's Table 4 timer flush ({@code tpflush}, jtick's {@code tptimer}) taken apart: one
 * timer tick of a TP holding {@code updates} one-row trade updates (the paper's r=1, 10,000 rows/s,
 * 100 ms timer), measured right after the updates ({@code idle=none}: warm), after the TP thread
 * slept 100 ms (as it does between ticks) and after it spun 100 ms without sleeping (so the CPU was
 * never given up: what is left is what the rest of the machine evicted meanwhile). Beside it,
 * {@link #copy} copies a buffer of the merged update's size after the same idle time: what coming
 * back to memory the CPU no longer holds costs without any tickerplant code; {@link #update} is one
 * 100-row update arriving after the same idle time (Table 1's r=100 every 10 ms: its tplog);
 * {@link #journalAppend} appends one update of the merged update's size (1000 rows) to a journal of
 * its own after the same idle time: the journal's part of a timer log+publish tick.
 *
 * <p>Run: {@code ./jtick bench TimerFlush}. The subscriber is an {@link EmbeddedChannel} (no socket
 * write), the journal a real Chronicle Queue in a temp directory.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsPrepend = {"-Djmh.executor=CUSTOM", "-Djmh.executor.class=io.jtick.bench.EventLoopThreadExecutor"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class TimerFlushBenchmark {
    /**
     * Between the updates and the tick: {@code none}, {@code sleep-100ms} (what the TP does) or
     * {@code spin-100ms} (a busy thread that never sleeps).
     */
    @Param({"none", "sleep-100ms", "spin-100ms"})
    public String idle;

    @Param({"timer-publish", "timer-log-publish"})
    public String mode;

    @Param({"1000"})
    public int updates;

    private ByteBuf[] frames;
    /** A 100-row update (Table 1's r=100, sent every 10 ms there), for {@link #update}. */
    private ByteBuf hundredRows;
    private Path dir;
    private Tickerplant tp;
    private EmbeddedChannel subscriber;
    private Journal appendJournal;
    private ByteBuf thousandRows;
    private long appendSequence;
    private byte[] copyFrom;
    private byte[] copyTo;
    /** Keeps the spin's arithmetic alive. */
    public long spun;

    @Setup(Level.Trial)
    public void open() throws IOException {
        final TableSchema schema = TableSchema.trade(0);
        final byte[][] syms = TradeFrames.syms(1000);
        frames = new ByteBuf[updates];
        for (int k = 0; k < updates; k++) {
            frames[k] = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, 1, syms));
            TradeFrames.encode(new UpdateEncoder(), frames[k], schema, 1, k, syms, System.currentTimeMillis() * 1_000_000L, 0);
        }
        hundredRows = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, 100, syms));
        TradeFrames.encode(new UpdateEncoder(), hundredRows, schema, 100, 0, syms, System.currentTimeMillis() * 1_000_000L, 0);
        dir = Files.createTempDirectory("jtick-timer-bench");
        thousandRows = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, updates, syms));
        TradeFrames.encode(new UpdateEncoder(), thousandRows, schema, updates, 0, syms, System.currentTimeMillis() * 1_000_000L, 0);
        appendJournal = Journal.open(dir.resolve("append"), LocalDate.now(), 0, NanoClock.SYSTEM);
        tp = new Tickerplant(TickerplantSettings.defaults(dir).withPort(0).withMode(PublishMode.parse(mode), Duration.ofMillis(100)),
            SchemaRegistry.builtIn(0), NanoClock.SYSTEM, PooledByteBufAllocator.DEFAULT, new TickMetrics());
        subscriber = new EmbeddedChannel();
        final String problem = tp.onSubscribe(subscriber, "bench", new ControlFrames.Subscribe(-1, List.of(), List.of()));
        if (problem != null) {
            throw new IllegalStateException(problem);
        }
        subscriber.releaseOutbound();
        int bytes = 0;
        for (final ByteBuf f : frames) {
            bytes += f.readableBytes();
        }
        copyFrom = new byte[bytes];
        copyTo = new byte[bytes];
        warmJit();
    }

    /**
     * Runs every measured operation thousands of times back to back before any idle variant, so that
     * the JIT has compiled it as in a tickerplant that has been up for minutes: otherwise an
     * operation done ten times a second (after each 100 ms idle) would still be interpreted through
     * the whole run and measure the interpreter, not the cold caches.
     */
    private void warmJit() {
        for (int k = 0; k < 3_000; k++) {
            tp.onTimer();
            subscriber.releaseOutbound();
            for (final ByteBuf f : frames) {
                tp.onUpdate(null, f, f.readerIndex(), f.readableBytes());
            }
        }
        tp.onTimer();
        subscriber.releaseOutbound();
        for (int k = 0; k < 20_000; k++) {
            update();
            journalAppend();
            copy();
            if (k % 1000 == 999) {
                tp.onTimer();
                subscriber.releaseOutbound();
            }
        }
        tp.onTimer();
        subscriber.releaseOutbound();
    }

    /**
     * Publishes what the last invocation left (the copy benchmark's batch), then the updates of one
     * timer period arrive and the thread sleeps until the tick.
     */
    @Setup(Level.Invocation)
    public void fill() throws InterruptedException {
        tp.onTimer();
        subscriber.releaseOutbound();
        for (final ByteBuf f : frames) {
            tp.onUpdate(null, f, f.readerIndex(), f.readableBytes());
        }
        java.util.Arrays.fill(copyFrom, (byte) 1);
        final long idleNanos = 100_000_000L;
        if (idle.startsWith("sleep")) {
            Thread.sleep(idleNanos / 1_000_000);
        } else if (idle.startsWith("spin")) {
            final long start = System.nanoTime();
            long x = start;
            while (System.nanoTime() - start < idleNanos) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
            spun = x;
        }
    }

    @Benchmark
    public void timerTick() {
        tp.onTimer();
        subscriber.releaseOutbound();
    }

    @Benchmark
    public byte[] copy() {
        System.arraycopy(copyFrom, 0, copyTo, 0, copyFrom.length);
        return copyTo;
    }

    /** One 100-row update arriving after the idle time: validated, journalled, added to the batch (Table 1's tplog). */
    @Benchmark
    public void update() {
        tp.onUpdate(null, hundredRows, hundredRows.readerIndex(), hundredRows.readableBytes());
    }

    /** One journal append of an update of the merged update's size, after the idle time. */
    @Benchmark
    public void journalAppend() {
        thousandRows.setLongLE(thousandRows.readerIndex() + FrameDescriptor.SEQUENCE_OFFSET, ++appendSequence);
        appendJournal.append(thousandRows, thousandRows.readerIndex(), thousandRows.readableBytes(), appendSequence);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        appendJournal.close();
        thousandRows.release();
        subscriber.finishAndReleaseAll();
        tp.close();
        for (final ByteBuf f : frames) {
            f.release();
        }
        hundredRows.release();
        TickerplantBenchmark.deleteTree(dir);
    }
}
