package io.jtick.bench;

import io.jtick.core.journal.Journal;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.time.NanoClock;
import io.jtick.core.wire.FrameDescriptor;
import io.jtick.core.wire.UpdateEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
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
import java.time.LocalDate;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The tickerplant's journal append of one {@code r}-row trade update into a fresh day's journal (real
 * Chronicle Queue in a temp directory, the TP's default 64 MB free-space guard, a new journal every
 * iteration so each one writes into pages never written before, as a live day does). Score = time
 * per append on the appending thread, page faults of the mapped file included: what the journal
 * costs the tickerplant thread at full speed (the journal's read-ahead thread works beside it).
 * {@code ./jtick bench JournalAppendBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class JournalAppendBenchmark {
    @Param({"100"})
    public int r;

    private Path dir;
    private Journal journal;
    private ByteBuf frame;
    private int length;
    private long sequence;

    @Setup(Level.Trial)
    public void encode() {
        final TableSchema schema = TableSchema.trade(0);
        final byte[][] syms = TradeFrames.syms(100);
        frame = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, r, syms));
        length = TradeFrames.encode(new UpdateEncoder(), frame, schema, r, 1, syms, 1, 1);
    }

    @Setup(Level.Iteration)
    public void open() throws IOException {
        dir = Files.createTempDirectory("jtick-journal-append-bench");
        journal = Journal.open(dir, LocalDate.of(2026, 11, 30), 0, NanoClock.SYSTEM, 64L << 20);
        sequence = 0;
    }

    @Benchmark
    public long append() {
        frame.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, ++sequence);
        journal.append(frame, 0, length, sequence);
        return sequence;
    }

    @TearDown(Level.Iteration)
    public void close() throws IOException {
        journal.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (final Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    @TearDown(Level.Trial)
    public void release() {
        frame.release();
    }
}
