package io.jtick.bench;

import io.jtick.core.hdb.format.Codec;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.hdb.store.PartitionStore;
import io.jtick.core.hdb.write.BlockCuts;
import io.jtick.core.hdb.write.EncodingPolicy;
import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.rdb.SymbolCatalog;
import io.jtick.lab.compression.CompressionStudy;
import io.jtick.lab.compression.TableLoader;
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
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The compression study's numeric scan taken apart, one column of its synthetic trade day (2M rows,
 * 1000 syms; {@code column} 2 = price float64, 3 = size int64, 4 = cond char), so that its ratio to
 * plain can be set against the codec's own speed on the same values:
 * <ul>
 *   <li>{@code read}: the column read in batches of 4096 rows into an array, as the study reads it (the
 *       decoded-block cache emptied first, as before each of the study's timed runs); for plain a copy
 *       out of the mapped file;</li>
 *   <li>{@code sum}: the study's own read and sum of every value ({@link CompressionStudy#readSum}: the same batches,
 *       a chain of floating-point adds);</li>
 *   <li>{@code codecOnly}: the codec alone over the same raw bytes cut into the frames its files use (an
 *       lz4 file's 2 KiB sub-blocks, a zstd file's 32 KiB blocks), decompressed one after the other
 *       into one direct buffer: no file, no checksum, no copy out, the floor of any reader of that codec.</li>
 * </ul>
 * Score = ms per column.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class ColumnScanBenchmark {
    private static final LocalDate DATE = LocalDate.of(2026, 11, 20);
    private static final int BATCH = 4096;

    @Param({"none", "lz4", "zstd:1"})
    public String encoding;

    @Param({"2", "3", "4"})
    public int column;

    private Path root;
    private PartitionTable table;
    private ColumnFile file;
    private int rows;
    private Object batch;
    private ByteBuffer frames;
    private int[] frameEnds;
    private int[] rawLengths;
    private ByteBuffer out;
    private ColumnEncoding parsed;

    @Setup(Level.Trial)
    public void write() throws IOException {
        root = BenchDirs.temp("bench-column-scan");
        final var trade = TableLoader.syntheticDay("trade", DATE, 2_000_000, 1000, 42, new SymbolCatalog())
            .segment((int) DATE.toEpochDay());
        parsed = ColumnEncoding.parse(encoding);
        new PartitionWriter(root, EncodingPolicy.uniform(parsed)).write(DATE, List.of(trade));
        table = PartitionTable.open(root.resolve(DATE.toString()).resolve("trade"));
        file = table.column(column);
        rows = table.rowCount();
        final int width = file.type().width();
        batch = switch (file.type()) {
            case FLOAT64 -> new double[BATCH];
            case TIMESTAMP, INT64 -> new long[BATCH];
            case INT32, SYMBOL -> new int[BATCH];
            default -> new byte[BATCH * width];
        };
        final byte[] raw = new byte[rows * width];
        file.read(0, rows, raw, 0);
        // an lz4/snappy file's sub-block (ColumnFileDescriptor.SUB_BYTES), a zstd file's whole block
        final int frameBytes = parsed.codec() == Codec.ZSTD ? BlockCuts.ZSTD_BLOCK_BYTES : 2048;
        final int count = (raw.length + frameBytes - 1) / frameBytes;
        frameEnds = new int[count];
        rawLengths = new int[count];
        out = ByteBuffer.allocateDirect(frameBytes);
        if (parsed.isPlain()) {
            return;
        }
        final byte[] packed = new byte[parsed.codec().maxCompressedLength(frameBytes) * count];
        int at = 0;
        for (int f = 0; f < count; f++) {
            final int from = f * frameBytes;
            rawLengths[f] = Math.min(frameBytes, raw.length - from);
            at += parsed.codec().compress(raw, from, rawLengths[f], packed, at, parsed.level());
            frameEnds[f] = at;
        }
        frames = ByteBuffer.allocateDirect(at).put(0, packed, 0, at);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        table.close();
        PartitionStore.deleteRecursively(root);
    }

    /** Each timed read decodes what it reads, as the study's first reads do (a plain file uses no cache). */
    @Setup(Level.Invocation)
    public void emptyCache() {
        ColumnFile.clearDecodedCache();
    }

    @Benchmark
    public Object read() {
        for (int at = 0; at < rows; at += BATCH) {
            file.read(at, Math.min(BATCH, rows - at), batch, 0);
        }
        return batch;
    }

    @Benchmark
    public double sum() {
        return CompressionStudy.readSum(table, column, 0, rows);
    }

    @Benchmark
    public ByteBuffer codecOnly() throws IOException {
        if (parsed.isPlain()) {
            return out;
        }
        int from = 0;
        for (int f = 0; f < frameEnds.length; f++) {
            parsed.codec().decompress(frames, from, frameEnds[f] - from, out, rawLengths[f]);
            from = frameEnds[f];
        }
        return out;
    }
}
