package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Version 3 column files: encoded blocks cut into sub-blocks, a read of some rows decoding only
 * theirs, and the time search decoding one sub-block; version 2 files of the same values read the
 * same. The shared cache is made small so that the columns are not kept decoded whole.
 */
class SubBlockTest {
    private static final int BLOCK_ROWS = 1000;
    private static final int SUB_ROWS = 64;
    private static final List<String> ENCODINGS = List.of("lz4", "delta+shuffle/lz4", "scale+shuffle/snappy", "dod+shuffle/zstd:3",
        "xor+shuffle/lz4", "scale-delta+shuffle/zstd:1");

    @TempDir
    Path dir;

    @BeforeEach
    void smallCache() {
        DecodedBlockCache.shared().clear();
        DecodedBlockCache.shared().capacityBytes(1024);
    }

    @AfterEach
    void restoreCache() {
        DecodedBlockCache.shared().capacityBytes(DecodedBlockCache.DEFAULT_CAPACITY_BYTES);
        DecodedBlockCache.shared().clear();
        EncodedBlocks.clearThreadBlock();
    }

    @Test
    void shouldReadAnyRowsOfSubBlockedFilesAsVersionTwoFilesOfTheSameValues() throws IOException {
        final SplittableRandom random = new SplittableRandom(11);
        for (final ColumnType type : List.of(ColumnType.TIMESTAMP, ColumnType.FLOAT64, ColumnType.INT32, ColumnType.INT16)) {
            final int rows = 5 * BLOCK_ROWS + 37;
            final byte[] values = values(type, rows, random);
            for (final String encoding : ENCODINGS) {
                final ColumnEncoding enc = ColumnEncoding.parse(encoding);
                final String name = type + "-" + encoding.replace('/', '_').replace(':', '_');
                final Path v3 = dir.resolve("v3-" + name);
                final Path v2 = dir.resolve("v2-" + name);
                write(v3, type, enc, values, SUB_ROWS);
                write(v2, type, enc, values, 0);
                try (ColumnFile a = ColumnFile.open(v3, type, rows); ColumnFile b = ColumnFile.open(v2, type, rows)) {
                    assertThat(a.version()).isEqualTo(3);
                    assertThat(b.version()).isEqualTo(2);
                    final int w = type.width();
                    for (int k = 0; k < 300; k++) {
                        final int from = random.nextInt(rows);
                        final int n = 1 + random.nextInt(Math.min(rows - from, k % 3 == 0 ? 3 * BLOCK_ROWS : SUB_ROWS * 3));
                        final Object x = type.newArray(n);
                        final Object y = type.newArray(n);
                        a.read(from, n, x, 0);
                        b.read(from, n, y, 0);
                        final byte[] bx = bytes(x, n * w);
                        assertThat(bx).as("%s %s rows [%s, +%s)", type, encoding, from, n).isEqualTo(bytes(y, n * w))
                            .isEqualTo(java.util.Arrays.copyOfRange(values, from * w, (from + n) * w));
                    }
                }
            }
        }
    }

    @Test
    void shouldFindALowerBoundFromTheSubBlocksFirstValuesForAnyRange() throws IOException {
        lowerBounds("small-cache");
    }

    @Test
    void shouldSearchABlockInTheSharedCacheOnceSearchedOftenWhenTheCacheKeepsTheColumnWhole() throws IOException {
        DecodedBlockCache.shared().capacityBytes(DecodedBlockCache.DEFAULT_CAPACITY_BYTES);
        final long hits = DecodedBlockCache.shared().hits();
        lowerBounds("kept-whole");
        assertThat(DecodedBlockCache.shared().hits()).as("searches in cached blocks").isGreaterThan(hits);
    }

    @Test
    void shouldReadTheWindowItsTimeSearchFoundFirstFromSubBlocksThenFromTheCacheWhenTheColumnIsKeptWhole() throws IOException {
        final DecodedBlockCache cache = DecodedBlockCache.shared();
        cache.capacityBytes(DecodedBlockCache.DEFAULT_CAPACITY_BYTES);
        final int rows = 4 * BLOCK_ROWS + 13;
        final byte[] values = values(ColumnType.TIMESTAMP, rows, new SplittableRandom(9));
        final long[] times = new long[rows];
        ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(times);
        java.util.Arrays.sort(times);
        final ByteBuffer sorted = ByteBuffer.allocate(rows * 8).order(ByteOrder.LITTLE_ENDIAN);
        sorted.asLongBuffer().put(times);
        final Path file = dir.resolve("windows");
        write(file, ColumnType.TIMESTAMP, ColumnEncoding.parse("delta+shuffle/lz4"), sorted.array(), SUB_ROWS);
        try (ColumnFile f = ColumnFile.open(file, ColumnType.TIMESTAMP, rows)) {
            for (int ask = 0; ask < 3; ask++) {
                final long bytesBefore = cache.bytes();
                for (int w = 0; w < f.blockCount(); w++) {
                    final int block = w;
                    final int from = f.firstRow(block);
                    final int to = from + f.rowsIn(block);
                    final long lo = times[from + (w * 37 + ask * 101) % (to - from)];
                    final int a = f.lowerBound(from, to, lo);
                    final int b = f.lowerBound(a, to, lo + (1L << 40));
                    final long[] got = new long[b - a];
                    f.read(a, b - a, got, 0);
                    assertThat(got).as("ask %s window %s [%s, %s)", ask, w, a, b).isEqualTo(java.util.Arrays.copyOfRange(times, a, b));
                }
                if (ask == 0) {
                    assertThat(cache.bytes()).as("a first ask decodes sub-blocks and keeps nothing").isEqualTo(bytesBefore);
                }
            }
            assertThat(cache.bytes()).as("blocks read again are kept decoded").isEqualTo(f.rawBytes());
            cache.clear();
            final long[] all = new long[rows];
            f.read(0, rows, all, 0);
            assertThat(all).isEqualTo(times);
            assertThat(cache.bytes()).as("emptied: the counts start again, a first read keeps nothing").isZero();
        }
    }

    /** Every lower bound of many ranges and times, against a linear search, in files of two encodings. */
    private void lowerBounds(final String name) throws IOException {
        final int rows = 4 * BLOCK_ROWS + 13;
        final long[] times = new long[rows];
        final ByteBuffer b = ByteBuffer.allocate(rows * 8).order(ByteOrder.LITTLE_ENDIAN);
        final SplittableRandom random = new SplittableRandom(5);
        long t = 1_000;
        for (int r = 0; r < rows; r++) {
            t += random.nextInt(3);
            times[r] = t;
            b.putLong(t);
        }
        for (final String encoding : List.of("lz4", "scale-delta+shuffle/zstd:3")) {
            final Path file = dir.resolve(name + "-bounds-" + encoding.replace('/', '_').replace(':', '_'));
            write(file, ColumnType.TIMESTAMP, ColumnEncoding.parse(encoding), b.array(), SUB_ROWS);
            try (ColumnFile f = ColumnFile.open(file, ColumnType.TIMESTAMP, rows)) {
                final int[][] ranges = {{0, rows}, {5, BLOCK_ROWS}, {BLOCK_ROWS, 2 * BLOCK_ROWS}, {SUB_ROWS - 1, SUB_ROWS + 1},
                    {SUB_ROWS, 2 * SUB_ROWS}, {BLOCK_ROWS - 3, 3 * BLOCK_ROWS + 70}, {3 * SUB_ROWS + 5, 3 * SUB_ROWS + 6},
                    {rows - 20, rows}, {7, 8}, {0, 0}};
                for (final int[] range : ranges) {
                    for (long at = times[0] - 2; at <= times[rows - 1] + 2; at += 7) {
                        int expected = range[0];
                        while (expected < range[1] && times[expected] < at) {
                            expected++;
                        }
                        assertThat(f.lowerBound(range[0], range[1], at)).as("%s [%s, %s) t=%s", encoding, range[0], range[1], at)
                            .isEqualTo(expected);
                    }
                }
            }
        }
    }

    @Test
    void shouldNameTheBlockOfACorruptSubBlockWhenItsRowsAreRead() throws IOException {
        final int rows = 3 * BLOCK_ROWS;
        final byte[] values = values(ColumnType.INT64, rows, new SplittableRandom(3));
        final Path file = dir.resolve("corrupt");
        write(file, ColumnType.INT64, ColumnEncoding.parse("delta+shuffle/lz4"), values, SUB_ROWS);
        final long blockTwo;
        try (ColumnFile f = ColumnFile.open(file, ColumnType.INT64, rows)) {
            blockTwo = f.blockOffset(2);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            // the last sub-block of block 1: a read of block 1's first rows must still find it
            ch.write(ByteBuffer.wrap(new byte[] {0x5a, 0x5a}), blockTwo - 5);
        }
        try (ColumnFile f = ColumnFile.open(file, ColumnType.INT64, rows)) {
            final long[] few = new long[10];
            f.read(BLOCK_ROWS - 5, 5, few, 0);
            assertThatThrownBy(() -> f.read(BLOCK_ROWS + 3, 10, few, 0))
                .isInstanceOf(UncheckedIOException.class)
                .cause()
                .isInstanceOf(CorruptPartitionException.class)
                .hasMessageContaining("file=" + file)
                .hasMessageContaining("block=1");
            assertThatThrownBy(() -> f.lowerBound(BLOCK_ROWS + 1, 2 * BLOCK_ROWS, 0)).isInstanceOf(UncheckedIOException.class);
        }
    }

    private static void write(final Path file, final ColumnType type, final ColumnEncoding enc, final byte[] values, final int subRows)
        throws IOException {
        final int w = type.width();
        final int rows = values.length / w;
        try (ColumnFileWriter writer = new ColumnFileWriter(file, type, enc, BLOCK_ROWS, rows, false, subRows)) {
            for (int at = 0; at < rows; at += BLOCK_ROWS) {
                final int n = Math.min(BLOCK_ROWS, rows - at);
                writer.block().putBytes(0, values, at * w, n * w);
                writer.writeBlock(n);
            }
            writer.finish();
        }
    }

    /** Values with a smooth part (transforms find something) and noise, decimals for floats. */
    private static byte[] values(final ColumnType type, final int rows, final SplittableRandom random) {
        final ByteBuffer b = ByteBuffer.allocate(rows * type.width()).order(ByteOrder.LITTLE_ENDIAN);
        long v = 1_700_000_000_000_000_000L;
        for (int r = 0; r < rows; r++) {
            v += random.nextInt(1000);
            switch (type) {
                case FLOAT64 -> b.putDouble(Math.round((100 + Math.sin(r / 50.0) * 3 + random.nextInt(10) / 100.0) * 100) / 100.0);
                case INT32 -> b.putInt((int) (v % 100_000) + r);
                case INT16 -> b.putShort((short) (r % 3000 + random.nextInt(5)));
                default -> b.putLong(v);
            }
        }
        return b.array();
    }

    private static byte[] bytes(final Object array, final int length) {
        final byte[] out = new byte[length];
        org.agrona.UnsafeApi.copyMemory(array, org.agrona.UnsafeApi.arrayBaseOffset(array.getClass()), out,
            org.agrona.UnsafeApi.arrayBaseOffset(byte[].class), length);
        return out;
    }
}
