package io.jtick.core.hdb.write;

import io.jtick.core.feed.SyntheticDay;
import io.jtick.core.hdb.format.ColumnEncoding;
import io.jtick.core.hdb.format.ColumnFile;
import io.jtick.core.hdb.format.ColumnFileWriter;
import io.jtick.core.hdb.format.PartitionTable;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.MemorySegment;
import io.jtick.core.testing.LeakCheck;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Column files written with direct I/O are the bytes the buffered writer writes, whatever their
 * length against the file system's block; a partition written either way reads back the same; and
 * where the file system refuses direct I/O, {@code auto} writes buffered (counted) and {@code on}
 * fails without leaving anything visible.
 */
@ExtendWith(LeakCheck.class)
class DirectIoWriteTest {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);

    @TempDir
    Path dir;

    @Test
    void shouldWriteTheBufferedBytesWithDirectIoAroundTheBlockSize() throws IOException, InterruptedException {
        final int align = alignment();
        final ExecutorService io = Executors.newSingleThreadExecutor();
        try {
            // header 64 + values + one 56-byte index entry + 4: 8-byte rows 495..498 straddle 4096, 4-byte rows 991..994
            final int[] longRows = {0, 1, 2, 3, 495, 496, 497, 498, 1023, 1024, 1025, 4096 + 5};
            final int[] intRows = {1, 991, 992, 993, 994, 2047};
            int files = 0;
            for (final String encoding : List.of("none", "lz4", "delta+shuffle/zstd:3")) {
                for (final ColumnType type : List.of(ColumnType.INT64, ColumnType.FLOAT64, ColumnType.TIMESTAMP)) {
                    for (final int rows : longRows) {
                        files += sameBytes(type, ColumnEncoding.parse(encoding), 1024, rows, align, io);
                    }
                }
                for (final ColumnType type : List.of(ColumnType.INT32, ColumnType.INT16, ColumnType.BYTE, ColumnType.FLOAT32)) {
                    for (final int rows : intRows) {
                        files += sameBytes(type, ColumnEncoding.parse(encoding), 1024, rows, align, io);
                    }
                }
            }
            // several staging buffers, odd blocks, written on the caller's thread and on the I/O thread
            files += sameBytes(ColumnType.INT64, ColumnEncoding.parse("none"), 16_384, 1_300_001, align, io);
            files += sameBytes(ColumnType.INT32, ColumnEncoding.parse("none"), 16_383, 1_300_003, align, null);
            files += sameBytes(ColumnType.FLOAT64, ColumnEncoding.parse("lz4"), 16_384, 700_001, align, io);
            assertThat(files).isEqualTo(3 * (3 * longRows.length + 4 * intRows.length) + 3);
        } finally {
            io.shutdown();
            assertThat(io.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }
    }

    @Test
    void shouldWriteTheSamePartitionDirectAndBufferedAndReadItBack() throws IOException {
        alignment();
        final MemorySegment trade = SyntheticDay.segment("trade", DAY, 30_001, 37, 1);
        final MemorySegment quote = SyntheticDay.segment("quote", DAY, 20_003, 41, 2);
        final MemorySegment one = SyntheticDay.segment("quote", DAY, 1, 1, 3);
        final MemorySegment empty = MemorySegment.builder(TableSchema.trade(0), (int) DAY.toEpochDay()).build();
        for (final String encoding : List.of("none", "auto/lz4")) {
            final EncodingPolicy policy = EncodingPolicy.uniform(ColumnEncoding.parse(encoding));
            final Path buffered = Files.createDirectories(dir.resolve(encoding.replace('/', '_') + "-buffered"));
            final Path direct = Files.createDirectories(dir.resolve(encoding.replace('/', '_') + "-direct"));
            new PartitionWriter(buffered, policy, 4096, 2, PartitionWriter.WriteHook.NONE, DirectIo.OFF).write(DAY, List.of(trade, quote));
            new PartitionWriter(direct, policy, 4096, 2, PartitionWriter.WriteHook.NONE, DirectIo.ON).write(DAY, List.of(trade, quote));
            new PartitionWriter(buffered, policy, 4096, 1, PartitionWriter.WriteHook.NONE, DirectIo.OFF)
                .write(DAY.plusDays(1), List.of(empty, one));
            new PartitionWriter(direct, policy, 4096, 1, PartitionWriter.WriteHook.NONE, DirectIo.ON)
                .write(DAY.plusDays(1), List.of(empty, one));
            final List<Path> files = files(buffered);
            assertThat(files).hasSizeGreaterThan(20).isEqualTo(files(direct));
            for (final Path f : files) {
                assertThat(Files.mismatch(buffered.resolve(f), direct.resolve(f))).as("%s %s", encoding, f).isEqualTo(-1L);
            }
            for (final String table : List.of("2026-11-20/trade", "2026-11-20/quote", "2026-11-21/trade", "2026-11-21/quote")) {
                try (PartitionTable b = PartitionTable.open(buffered.resolve(table));
                     PartitionTable d = PartitionTable.open(direct.resolve(table))) {
                    d.verify();
                    assertThat(d.rowCount()).isEqualTo(b.rowCount());
                    for (int c = 0; c < d.schema().columnCount(); c++) {
                        final int w = d.schema().type(c).width();
                        final byte[] fromDirect = new byte[d.rowCount() * w];
                        final byte[] fromBuffered = new byte[b.rowCount() * w];
                        d.column(c).read(0, d.rowCount(), fromDirect, 0);
                        b.column(c).read(0, b.rowCount(), fromBuffered, 0);
                        assertThat(fromDirect).as("%s %s column %s", encoding, table, c).isEqualTo(fromBuffered);
                    }
                }
            }
        }
    }

    @Test
    void shouldFallBackToBufferedWritesWhereDirectIoIsRefused() throws IOException {
        final Path refusing = Files.createDirectories(dir.resolve("refusing"));
        DirectIo.remember(refusing, 0);
        final MemorySegment trade = SyntheticDay.segment("trade", DAY, 5_000, 7, 1);
        final long before = DirectIo.fallbacks();
        new PartitionWriter(refusing, EncodingPolicy.PLAIN, 4096, 2, PartitionWriter.WriteHook.NONE, DirectIo.AUTO)
            .write(DAY, List.of(trade));
        assertThat(DirectIo.fallbacks()).isEqualTo(before + 1);
        try (PartitionTable t = PartitionTable.open(refusing.resolve("2026-11-20/trade"))) {
            t.verify();
            assertThat(t.rowCount()).isEqualTo(5_000);
        }
        assertThatThrownBy(() -> new PartitionWriter(refusing, EncodingPolicy.PLAIN, 4096, 2, PartitionWriter.WriteHook.NONE,
            DirectIo.ON).write(DAY.plusDays(1), List.of(trade)))
            .isInstanceOf(IOException.class)
            .hasMessageContaining("direct I/O refused by the file system; set direct-io (tick.rdb.hdb.direct-io) to auto or off");
        try (Stream<Path> left = Files.list(refusing)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("2026-11-20");
        }
        assertThat(DirectIo.parse(" Off ")).isEqualTo(DirectIo.OFF);
        assertThatThrownBy(() -> DirectIo.parse("yes")).hasMessage("direct I/O must be auto, on or off [value=yes]");
    }

    @Test
    void shouldLeaveNothingWhenADirectWriteFailsWhileColumnsAreWrittenBehind() throws IOException {
        alignment();
        final MemorySegment trade = SyntheticDay.segment("trade", DAY, 20_000, 10, 1);
        final MemorySegment quote = SyntheticDay.segment("quote", DAY, 20_000, 10, 2);
        for (final int threads : new int[] {1, 2}) {
            for (final int failAt : new int[] {1, 4, 9}) {
                final AtomicInteger columns = new AtomicInteger();
                final PartitionWriter failing = new PartitionWriter(dir, EncodingPolicy.PLAIN, 4096, threads, file -> {
                    if (columns.incrementAndGet() == failAt) {
                        throw new IOException("disk full (injected)");
                    }
                }, DirectIo.ON);
                assertThatThrownBy(() -> failing.write(DAY, List.of(trade, quote))).as("%d thread(s), failing column %d", threads, failAt)
                    .hasMessageContaining("disk full (injected)");
                try (Stream<Path> left = Files.list(dir)) {
                    assertThat(left).as("nothing left, %d thread(s), failing column %d", threads, failAt).isEmpty();
                }
            }
        }
        // the lent buffers and the I/O threads are gone once the write ends: LeakCheck checks direct memory and threads
        new PartitionWriter(dir, EncodingPolicy.PLAIN, 4096, 2, PartitionWriter.WriteHook.NONE, DirectIo.ON)
            .write(DAY, List.of(trade, quote));
        for (final String name : new String[] {"trade", "quote"}) {
            try (PartitionTable t = PartitionTable.open(dir.resolve("2026-11-20").resolve(name))) {
                assertThat(t.rowCount()).isEqualTo(20_000);
                t.verify();
            }
        }
    }

    @Test
    void shouldLendAtMostOneBufferMoreThanWriterThreadsAndWaitForOneBack() throws Exception {
        try (WriterPool pool = new WriterPool(2)) {
            final ByteBuffer a = pool.lend(8192, 4096);
            final ByteBuffer b = pool.lend(8192, 4096);
            final ByteBuffer c = pool.lend(100_000, 4096);
            assertThat(List.of(a, b, c)).allSatisfy(x -> assertThat(BufferUtil.address(x) % 4096).isZero());
            assertThat(c.capacity()).isGreaterThanOrEqualTo(100_000);
            final CompletableFuture<ByteBuffer> fourth = new CompletableFuture<>();
            final Thread waiting = lendWaiting(pool, 4096, fourth);
            assertThat(fourth).as("three lent to two writer threads: the fourth waits").isNotDone();
            pool.giveBack(b);
            assertThat(fourth.get()).as("the one given back, reused").isSameAs(b);
            waiting.join();
            pool.giveBack(a);
            assertThat(pool.lend(50_000, 4096)).as("a larger one replaces one too small only past the bound").isNotSameAs(a);
        }
    }

    @Test
    void shouldKeepTheBoundWhenBuffersArePreallocatedWhileColumnsAreLent() throws Exception {
        try (WriterPool pool = new WriterPool(2)) {
            pool.preallocate(8192, 4096, 5); // asks for five: the writer threads allocate two, the bound's third is left
            final ByteBuffer a = pool.lend(8192, 4096);
            final ByteBuffer b = pool.lend(8192, 4096);
            final ByteBuffer c = pool.lend(8192, 4096);
            assertThat(List.of(a, b, c)).allSatisfy(x -> assertThat(x.capacity()).isGreaterThanOrEqualTo(8192));
            assertThat(a).isNotSameAs(b).isNotSameAs(c);
            assertThat(b).isNotSameAs(c);
            final CompletableFuture<ByteBuffer> fourth = new CompletableFuture<>();
            final Thread waiting = lendWaiting(pool, 8192, fourth);
            pool.preallocate(8192, 4096, 2);
            assertThat(fourth).as("three out, none allocated past them").isNotDone();
            pool.giveBack(c);
            assertThat(fourth.get(1, TimeUnit.MINUTES)).isSameAs(c);
            waiting.join();
        }
    }

    @Test
    void shouldWriteColumnsLargerThanOneDeviceWriteTheSameDirectAndBuffered() throws IOException {
        alignment();
        // 600,001 trades: the 8-byte columns (4.8 MB whole) take two writes of at most 4 MiB and a tail
        final MemorySegment trade = SyntheticDay.segment("trade", DAY, 600_001, 53, 4);
        final EncodingPolicy policy = EncodingPolicy.uniform(ColumnEncoding.parse("none"));
        final Path buffered = Files.createDirectories(dir.resolve("large-buffered"));
        final Path direct = Files.createDirectories(dir.resolve("large-direct"));
        new PartitionWriter(buffered, policy, PartitionWriter.DEFAULT_BLOCK_BYTES, 2, PartitionWriter.WriteHook.NONE, DirectIo.OFF)
            .write(DAY, List.of(trade));
        new PartitionWriter(direct, policy, PartitionWriter.DEFAULT_BLOCK_BYTES, 2, PartitionWriter.WriteHook.NONE, DirectIo.ON)
            .write(DAY, List.of(trade));
        final List<Path> files = files(buffered);
        assertThat(files).isEqualTo(files(direct));
        assertThat(Files.size(direct.resolve("2026-11-20/trade/time"))).isGreaterThan(4L << 20); // DirectColumnOutput.WRITE_BYTES
        for (final Path f : files) {
            assertThat(Files.mismatch(buffered.resolve(f), direct.resolve(f))).as("%s", f).isEqualTo(-1L);
        }
        try (PartitionTable t = PartitionTable.open(direct.resolve("2026-11-20/trade"))) {
            t.verify();
            assertThat(t.rowCount()).isEqualTo(600_001);
        }
    }

    /** A thread that asks {@code pool} for a buffer of {@code bytes} into {@code lent}; returned once it waits (or has ended). */
    private static Thread lendWaiting(final WriterPool pool, final int bytes, final CompletableFuture<ByteBuffer> lent) {
        final Thread waiting = new Thread(() -> {
            try {
                lent.complete(pool.lend(bytes, 4096));
            } catch (final IOException e) {
                lent.completeExceptionally(e);
            }
        }, "lend-test");
        waiting.start();
        while (waiting.isAlive() && waiting.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        return waiting;
    }

    /** Writes {@code rows} random values buffered and direct; asserts equal bytes and values read back; returns 1. */
    private int sameBytes(final ColumnType type, final ColumnEncoding encoding, final int blockRows, final int rows, final int align,
                          final ExecutorService io) throws IOException {
        final String name = type + "-" + encoding.toString().replace('/', '_').replace(':', '_') + "-" + blockRows + "-" + rows;
        final Path buffered = dir.resolve(name + ".buffered");
        final Path direct = dir.resolve(name + ".direct");
        final SplittableRandom random = new SplittableRandom(rows * 31L + type.ordinal());
        final byte[] values = new byte[rows * type.width()];
        for (int i = 0; i < values.length; i++) {
            values[i] = (byte) (random.nextInt(7) == 0 ? random.nextInt() : i / 64);
        }
        try (ColumnFileWriter b = new ColumnFileWriter(buffered, type, encoding, blockRows, rows, false);
             ColumnFileWriter d = ColumnFileWriter.direct(direct, type, encoding, blockRows, rows, rows > 1_000_000, align, io)) {
            for (int at = 0; at < rows; at += blockRows) {
                final int n = Math.min(blockRows, rows - at);
                b.block().putBytes(0, values, at * type.width(), n * type.width());
                d.block().putBytes(0, values, at * type.width(), n * type.width());
                b.writeBlock(n);
                d.writeBlock(n);
            }
            assertThat(d.finish()).isEqualTo(b.finish());
        }
        assertThat(Files.size(direct)).as(name).isEqualTo(Files.size(buffered));
        assertThat(Files.mismatch(buffered, direct)).as(name).isEqualTo(-1L);
        try (ColumnFile f = ColumnFile.open(direct, type, rows)) {
            final byte[] back = new byte[values.length];
            f.read(0, rows, back, 0);
            assertThat(back).as(name).isEqualTo(values);
            f.verify();
        }
        Files.delete(buffered);
        Files.delete(direct);
        return 1;
    }

    private int alignment() throws IOException {
        final int align = DirectIo.AUTO.alignment(dir);
        Assumptions.assumeTrue(align > 0, "the temporary directory's file system refuses O_DIRECT (ext4, xfs and, on Linux 6.6+,"
            + " tmpfs take it): " + dir);
        return align;
    }

    private static List<Path> files(final Path root) throws IOException {
        final List<Path> out = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(Files::isRegularFile).forEach(p -> out.add(root.relativize(p)));
        }
        out.sort(null);
        return out;
    }
}
