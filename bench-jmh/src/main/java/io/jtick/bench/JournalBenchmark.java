package io.jtick.bench;

import io.jtick.core.journal.Journal;
import io.jtick.core.journal.JournalReader;
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
 * Catch-up from a late sequence: a journal day of {@code entries} one-row trade updates (real
 * Chronicle Queue in a temp directory, page cache), then {@code readerAfter(entries - 1)} and one
 * read, which is what the TP does for a subscriber that asks for the last update of a long day.
 * Score = time per positioned reader (µs).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class JournalBenchmark {
    @Param({"1000000"})
    public int entries;

    private Path dir;
    private Journal journal;
    private ByteBuf entry;

    @Setup(Level.Trial)
    public void write() throws IOException {
        dir = Files.createTempDirectory("jtick-journal-bench");
        journal = Journal.open(dir, LocalDate.of(2026, 11, 20), 0, NanoClock.SYSTEM);
        final TableSchema schema = TableSchema.trade(0);
        final byte[][] syms = TradeFrames.syms(100);
        final ByteBuf frame = PooledByteBufAllocator.DEFAULT.directBuffer(TradeFrames.maxLength(schema, 1, syms));
        try {
            for (int s = 1; s <= entries; s++) {
                frame.clear();
                final int length = TradeFrames.encode(new UpdateEncoder(), frame, schema, 1, s, syms, s, s);
                frame.setLongLE(FrameDescriptor.SEQUENCE_OFFSET, s);
                journal.append(frame, 0, length, s);
            }
        } finally {
            frame.release();
        }
        entry = PooledByteBufAllocator.DEFAULT.directBuffer(1024);
    }

    @Benchmark
    public long readerAfterLastButOne() {
        try (JournalReader r = journal.readerAfter(entries - 1)) {
            entry.clear();
            final long sequence = r.next(entry, Long.MAX_VALUE);
            if (sequence != entries) {
                throw new IllegalStateException("reader landed on the wrong entry [expected=" + entries + ", got=" + sequence + "]");
            }
            return sequence;
        }
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        entry.release();
        journal.close();
        try (Stream<Path> files = Files.walk(dir)) {
            for (final Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
