package io.jtick.bench;

import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.lab.compression.TableLoader;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.core.table.TableSegment;
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
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * End-of-day write-down ({@code .Q.hdpf}): one synthetic trading day of {@code rows} trades and as
 * many quotes (1000 syms) in RDB tables, written as a partition with {@code encoding} for every
 * column but sym: sort, sym index, encode, write, fsync every file and directory, atomic rename.
 * One operation writes the whole day; {@link Bytes#rawBytesPerSecond} is raw column bytes over the
 * operation's time (the GB/s figure). Writes go to {@code -Djtick.bench.dir} (default
 * ./var/bench-hdb), so the disk is the one the HDB would use.
 *
 * <p>{@link #syncedSequentialWrite} is the disk's floor in the same run: the same number of raw
 * bytes written to one file in 1 MiB writes from a direct buffer, then fsync (what
 * {@code dd bs=1M conv=fdatasync} does); the write-down's raw bytes/s over the floor's is the
 * share of the disk's synced sequential write speed the write-down reaches. The disk is shared
 * and its speed moves within minutes, so run both in one command
 * ({@code ./jtick bench HdbWriteBenchmark -p encoding=none}) and compare medians.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class HdbWriteBenchmark {
    @Param({"10000000"})
    public int rows;

    @Param({"none", "auto/lz4", "auto/zstd:3"})
    public String encoding;

    @Param({"2"})
    public int parallelism;

    private List<TableSegment> day;
    private long rawBytes;
    private Path root;
    private int runs;

    /** Raw column bytes per second of the write. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Bytes {
        public long rawBytes;
    }

    @Setup(Level.Trial)
    public void load() throws IOException {
        final SymbolCatalog symbols = new SymbolCatalog();
        final LocalDate date = LocalDate.of(2026, 11, 20);
        final int epochDay = (int) date.toEpochDay();
        day = List.of(TableLoader.syntheticDay("trade", date, rows, 1000, 1, symbols).segment(epochDay),
            TableLoader.syntheticDay("quote", date, rows, 1000, 2, symbols).segment(epochDay));
        rawBytes = 0;
        for (final TableSegment t : day) {
            rawBytes += (long) t.rowCount() * t.schema().rowWidth();
        }
        root = Path.of(System.getProperty("jtick.bench.dir", "var/bench-hdb"));
        Files.createDirectories(root);
    }

    @Benchmark
    public PartitionWriter.Written writeDay(final Bytes bytes) throws IOException {
        final PartitionWriter writer = new PartitionWriter(root, EncodingPolicy.uniform(ColumnEncoding.parse(encoding)),
            PartitionWriter.DEFAULT_BLOCK_BYTES, parallelism, PartitionWriter.WriteHook.NONE);
        final PartitionWriter.Written w = writer.write(LocalDate.of(2000, 1, 1).plusDays(runs++), day);
        bytes.rawBytes += w.rawBytes();
        return w;
    }

    @Benchmark
    public long syncedSequentialWrite(final Bytes bytes) throws IOException {
        WriteDownBenchmark.writeSynced(root.resolve("sequential-" + runs++), rawBytes);
        bytes.rawBytes += rawBytes;
        return rawBytes;
    }

    @TearDown(Level.Iteration)
    public void clean() throws IOException {
        PartitionStore.deleteRecursively(root);
        Files.createDirectories(root);
    }

    /** Raw bytes of one operation (for reading the score as GB/s). */
    public long rawBytes() {
        return rawBytes;
    }
}
