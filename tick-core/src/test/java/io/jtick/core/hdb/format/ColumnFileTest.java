package io.jtick.core.hdb.format;

import io.jtick.core.hdb.write.PartitionWriter;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.testing.LeakCheck;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(LeakCheck.class)
class ColumnFileTest {
    private static final int BLOCK_BYTES = 512;
    private static final List<String> TRANSFORMS = List.of("none", "shuffle", "delta", "delta+shuffle", "dod", "dod+shuffle",
        "xor", "scale", "scale-delta+shuffle",
        "xor+shuffle");
    private static final List<String> CODECS = List.of("none", "lz4", "lz4:9", "snappy", "zstd:1", "zstd:-3", "zstd:19");

    @TempDir
    Path dir;

    static Stream<Arguments> everyTypeTransformCodec() {
        final List<Arguments> out = new ArrayList<>();
        for (final ColumnType type : ColumnType.values()) {
            for (final String t : TRANSFORMS) {
                if (!Transform.parse(t).appliesTo(type)) {
                    continue;
                }
                for (final String c : CODECS) {
                    out.add(Arguments.of(type, t + "/" + c));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyTypeTransformCodec")
    void shouldRoundTripEveryTypeTransformAndCodec(final ColumnType type, final String encoding) throws IOException {
        final ColumnEncoding enc = ColumnEncoding.parse(encoding);
        final int blockRows = BLOCK_BYTES / type.width();
        for (final int rows : new int[] {0, 1, blockRows - 1, blockRows, 3 * blockRows + 7}) {
            final byte[] values = values(type, rows, rows * 31L + type.ordinal());
            final Path file = dir.resolve(type + "-" + encoding.replace('/', '_').replace(':', '_') + "-" + rows);
            write(file, type, enc, blockRows, values);
            try (ColumnFile f = ColumnFile.open(file, type, rows)) {
                assertThat(f.encoding()).isEqualTo(enc);
                assertThat(f.mapped()).isEqualTo(enc.isPlain() && rows > 0);
                assertThat(f.rowCount()).isEqualTo(rows);
                final byte[] back = new byte[rows * type.width()];
                f.read(0, rows, back, 0);
                assertThat(back).as("bulk read %s rows", rows).isEqualTo(values);
                if (ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN) {
                    // into memory outside the heap (a replay's scratch), and in place where the file is plain
                    final ByteBuffer direct = ByteBuffer.allocateDirect(back.length + 1);
                    f.readTo(0, rows, BufferUtil.address(direct));
                    final byte[] outside = new byte[back.length];
                    direct.get(0, outside);
                    assertThat(outside).as("read to memory, %s rows", rows).isEqualTo(values);
                    final long at = f.address(0, rows);
                    assertThat(at != 0).as("address of a plain file").isEqualTo(f.mapped());
                    if (at != 0) {
                        final byte[] inPlace = new byte[back.length];
                        UnsafeApi.copyMemory(null, at, inPlace, UnsafeApi.arrayBaseOffset(byte[].class), inPlace.length);
                        assertThat(inPlace).as("in place, %s rows", rows).isEqualTo(values);
                    }
                }
                final ByteBuffer expected = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
                for (int r = 0; r < rows; r++) {
                    assertThat(cell(f, type, r)).as("row %s of %s", r, rows).isEqualTo(cell(expected, type, r));
                }
                if (rows > 10) {
                    final byte[] mid = new byte[5 * type.width()];
                    f.read(rows - 7, 5, mid, 0);
                    final byte[] want = new byte[mid.length];
                    System.arraycopy(values, (rows - 7) * type.width(), want, 0, want.length);
                    assertThat(mid).isEqualTo(want);
                    final int w = type.width();
                    final int[] list = {-1, 0, 2, 3, rows / 2, rows - 7, rows - 1, 1, rows - 1, -1};
                    final byte[] gathered = new byte[8 * w];
                    f.gather(list, 1, 8, gathered);
                    for (int i = 0; i < 8; i++) {
                        final byte[] one = new byte[w];
                        System.arraycopy(gathered, i * w, one, 0, w);
                        final byte[] exp = new byte[w];
                        System.arraycopy(values, list[1 + i] * w, exp, 0, w);
                        assertThat(one).as("gathered row %s of %s", list[1 + i], rows).isEqualTo(exp);
                    }
                    assertThatThrownBy(() -> f.gather(list, 0, 2, gathered)).isInstanceOf(IndexOutOfBoundsException.class);
                }
                f.verify();
            }
        }
    }

    @Test
    void shouldCompressSmoothSeriesBetterWithTransforms() throws IOException {
        final int rows = 100_000;
        final ByteBuffer b = ByteBuffer.allocate(rows * 8).order(ByteOrder.LITTLE_ENDIAN);
        final SplittableRandom random = new SplittableRandom(7);
        long t = 1_700_000_000_000_000_000L;
        for (int i = 0; i < rows; i++) {
            t += 1_000 + random.nextInt(200);
            b.putLong(t);
        }
        final long plainZstd = storedBytes("plain", ColumnType.TIMESTAMP, ColumnEncoding.parse("zstd:3"), b.array());
        final long dodZstd = storedBytes("dod", ColumnType.TIMESTAMP, ColumnEncoding.parse("dod+shuffle/zstd:3"), b.array());
        final long delta = storedBytes("delta", ColumnType.TIMESTAMP, ColumnEncoding.parse("delta+shuffle/zstd:3"), b.array());
        // uniform random gaps carry ~7.6 bits per value (12% of raw): delta+shuffle gets near it, plain zstd does not
        assertThat(delta).isLessThan(plainZstd * 6 / 10);
        assertThat(dodZstd).isLessThan(plainZstd * 7 / 10);
    }

    @Test
    void shouldScaleDecimalsAndCommonFactorsLosslessly() throws IOException {
        final int rows = 50_000;
        final ByteBuffer prices = ByteBuffer.allocate(rows * 8).order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer sizes = ByteBuffer.allocate(rows * 8).order(ByteOrder.LITTLE_ENDIAN);
        final SplittableRandom random = new SplittableRandom(5);
        double p = 123.45;
        for (int i = 0; i < rows; i++) {
            p = Math.rint((p + (random.nextInt(5) - 2) * 0.01) * 100) / 100;
            prices.putDouble(p);
            sizes.putLong(100L * (1 + random.nextInt(20)));
        }
        final byte[] special = prices.array().clone();
        ByteBuffer.wrap(special).order(ByteOrder.LITTLE_ENDIAN).putDouble(8 * 5, Double.NaN).putDouble(8 * 9, 1e300).putDouble(8 * 10, -0.0)
            .putDouble(8 * 11, Double.MIN_VALUE);
        for (final byte[] values : List.of(prices.array(), special)) {
            final Path file = dir.resolve("prices-" + values.hashCode());
            write(file, ColumnType.FLOAT64, ColumnEncoding.parse("scale-delta+shuffle/zstd:3"), 16384, values);
            try (ColumnFile f = ColumnFile.open(file, ColumnType.FLOAT64, rows)) {
                final byte[] back = new byte[values.length];
                f.read(0, rows, back, 0);
                assertThat(back).isEqualTo(values);
            }
        }
        final long plain = storedBytes("p22", ColumnType.FLOAT64, ColumnEncoding.parse("zstd:22"), prices.array());
        final long scaled = storedBytes("pscale", ColumnType.FLOAT64, ColumnEncoding.parse("scale-delta+shuffle/zstd:3"), prices.array());
        assertThat(scaled).isLessThan(plain);
        final long sizePlain = storedBytes("s22", ColumnType.INT64, ColumnEncoding.parse("zstd:22"), sizes.array());
        final long sizeScaled = storedBytes("sscale", ColumnType.INT64, ColumnEncoding.parse("scale+shuffle/zstd:3"), sizes.array());
        assertThat(sizeScaled).isLessThan(sizePlain);
    }

    @Test
    void shouldReportCorruptBlockWithFileAndBlock() throws IOException {
        for (final String encoding : List.of("none", "lz4", "delta+shuffle/zstd:3", "snappy")) {
            final int blockRows = BLOCK_BYTES / 8;
            final byte[] values = values(ColumnType.INT64, blockRows * 3, 11);
            final Path file = dir.resolve("corrupt-" + encoding.replace('/', '_').replace(':', '_'));
            write(file, ColumnType.INT64, ColumnEncoding.parse(encoding), blockRows, values);
            final long blockOneOffset;
            try (ColumnFile f = ColumnFile.open(file, ColumnType.INT64, -1)) {
                blockOneOffset = f.blockOffset(1) + 5;
            }
            flipByte(file, blockOneOffset);
            try (ColumnFile f = ColumnFile.open(file, ColumnType.INT64, -1)) {
                final long[] first = new long[blockRows];
                f.read(0, blockRows, first, 0);
                assertThat(first[3]).isEqualTo(ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN).getLong(24));
                assertThatThrownBy(() -> f.read(0, blockRows * 3, new long[blockRows * 3], 0))
                    .as(encoding)
                    .isInstanceOf(UncheckedIOException.class)
                    .cause()
                    .isInstanceOf(CorruptPartitionException.class)
                    .hasMessageContaining("file=" + file)
                    .hasMessageContaining("block=1");
                assertThatThrownBy(() -> f.getLong(blockRows + 1)).isInstanceOf(UncheckedIOException.class);
                assertThatThrownBy(f::verify).isInstanceOf(CorruptPartitionException.class).hasMessageContaining("block=1");
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("summarised")
    void shouldKeepEachBlocksFirstLastMinAndMaxInTheIndex(final ColumnType type) throws IOException {
        final int blockRows = BLOCK_BYTES / type.width();
        final int rows = 3 * blockRows + 7;
        final byte[] values = values(type, rows, 17 + type.ordinal());
        final ByteBuffer buffer = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
        final Path file = dir.resolve("summary-" + type);
        write(file, type, ColumnEncoding.parse("lz4"), blockRows, values);
        try (ColumnFile f = ColumnFile.open(file, type, rows)) {
            assertThat(f.version()).isEqualTo(3);
            for (int b = 0; b < f.blockCount(); b++) {
                final int first = f.firstRow(b);
                final int last = first + f.rowsIn(b) - 1;
                assertThat(f.blockSummary(b, 0)).as("first of block %s", b).isEqualTo(bits(type, values, first));
                assertThat(f.blockSummary(b, 1)).as("last of block %s", b).isEqualTo(bits(type, values, last));
                double min = Double.POSITIVE_INFINITY;
                double max = Double.NEGATIVE_INFINITY;
                for (int r = first; r <= last; r++) {
                    final double v = ((Number) cell(buffer, type, r)).doubleValue();
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
                assertThat(summaryNumber(type, f.blockSummary(b, 2))).as("min of block %s", b).isEqualTo(min);
                assertThat(summaryNumber(type, f.blockSummary(b, 3))).as("max of block %s", b).isEqualTo(max);
            }
            for (int r = 0; r < rows; r++) {
                assertThat(cell(f, type, r)).as("row %s (block edges come from the index)", r).isEqualTo(cell(buffer, type, r));
            }
        }
    }

    @Test
    void shouldLeaveNaNOutOfABlocksMinAndMaxAndGiveNaNForABlockOfOnlyNaN() throws IOException {
        // blocks of 4: [NaN, 3, NaN, -1], [NaN x 4], [+inf, +inf, 2, NaN]
        final double[] v = {Double.NaN, 3, Double.NaN, -1, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
            Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, 2, Double.NaN};
        for (final ColumnType type : new ColumnType[] {ColumnType.FLOAT64, ColumnType.FLOAT32}) {
            final ByteBuffer b = ByteBuffer.allocate(v.length * type.width()).order(ByteOrder.LITTLE_ENDIAN);
            for (final double x : v) {
                if (type == ColumnType.FLOAT64) {
                    b.putDouble(x);
                } else {
                    b.putFloat((float) x);
                }
            }
            final Path file = dir.resolve("summary-nan-" + type);
            write(file, type, ColumnEncoding.PLAIN, 4, b.array());
            try (ColumnFile f = ColumnFile.open(file, type, v.length)) {
                assertThat(summaryNumber(type, f.blockSummary(0, 2))).as("%s min", type).isEqualTo(-1.0);
                assertThat(summaryNumber(type, f.blockSummary(0, 3))).as("%s max", type).isEqualTo(3.0);
                assertThat(summaryNumber(type, f.blockSummary(1, 2))).as("%s min of NaN", type).isNaN();
                assertThat(summaryNumber(type, f.blockSummary(1, 3))).as("%s max of NaN", type).isNaN();
                assertThat(summaryNumber(type, f.blockSummary(2, 2))).as("%s min with inf", type).isEqualTo(2.0);
                assertThat(summaryNumber(type, f.blockSummary(2, 3))).as("%s max with inf", type).isEqualTo(Double.POSITIVE_INFINITY);
            }
        }
    }

    static Stream<ColumnType> summarised() {
        return Stream.of(ColumnType.TIMESTAMP, ColumnType.FLOAT64, ColumnType.FLOAT32, ColumnType.INT32, ColumnType.INT16,
            ColumnType.BYTE);
    }

    @Test
    void shouldFindTheBlockOfALowerBoundInTheIndexForAnyRange() throws IOException {
        final int blockRows = BLOCK_BYTES / 8;
        final int rows = 9 * blockRows + 13;
        final ByteBuffer b = ByteBuffer.allocate(rows * 8).order(ByteOrder.LITTLE_ENDIAN);
        final SplittableRandom random = new SplittableRandom(5);
        long t = 1_000;
        for (int r = 0; r < rows; r++) {
            t += random.nextInt(3);
            b.putLong(t);
        }
        final long[] times = new long[rows];
        b.flip().asLongBuffer().get(times);
        for (final String encoding : List.of("lz4", "delta+shuffle/zstd:3")) {
            final Path file = dir.resolve("bounds-" + encoding.replace('/', '_').replace(':', '_'));
            write(file, ColumnType.TIMESTAMP, ColumnEncoding.parse(encoding), blockRows, b.array());
            final Path v1 = dir.resolve("bounds-v1-" + encoding.replace('/', '_').replace(':', '_'));
            java.nio.file.Files.copy(file, v1);
            toVersionOne(v1);
            try (ColumnFile f = ColumnFile.open(file, ColumnType.TIMESTAMP, rows);
                 ColumnFile old = ColumnFile.open(v1, ColumnType.TIMESTAMP, rows)) {
                assertThat(old.version()).isEqualTo(1);
                final int[][] ranges = {{0, rows}, {5, blockRows}, {blockRows, 2 * blockRows}, {blockRows - 3, 4 * blockRows + 2},
                    {3 * blockRows + 1, 3 * blockRows + 9}, {rows - 20, rows}, {7, 8}, {0, 0}};
                for (final int[] range : ranges) {
                    for (long at = times[0] - 2; at <= times[rows - 1] + 2; at += Math.max(1, (times[rows - 1] - times[0]) / 300)) {
                        int expected = range[0];
                        while (expected < range[1] && times[expected] < at) {
                            expected++;
                        }
                        assertThat(f.lowerBound(range[0], range[1], at)).as("%s [%s, %s) t=%s", encoding, range[0], range[1], at)
                            .isEqualTo(expected).isEqualTo(old.lowerBound(range[0], range[1], at));
                    }
                    for (int r = range[0]; r < range[1]; r++) {
                        assertThat(f.lowerBound(range[0], range[1], times[r])).isLessThanOrEqualTo(r);
                    }
                }
            }
        }
    }

    @Test
    void shouldReadVersionOneFilesAndStillNameTheirCorruptBlock() throws IOException {
        for (final String encoding : List.of("none", "lz4", "delta+shuffle/zstd:3")) {
            final int blockRows = BLOCK_BYTES / 8;
            final byte[] values = values(ColumnType.INT64, blockRows * 3 + 5, 23);
            final Path file = dir.resolve("v1-" + encoding.replace('/', '_').replace(':', '_'));
            write(file, ColumnType.INT64, ColumnEncoding.parse(encoding), blockRows, values);
            toVersionOne(file);
            final long blockOneOffset;
            try (ColumnFile f = ColumnFile.open(file, ColumnType.INT64, blockRows * 3 + 5)) {
                assertThat(f.version()).isEqualTo(1);
                assertThatThrownBy(() -> f.blockSummary(0, 0)).isInstanceOf(IllegalStateException.class);
                final long[] all = new long[blockRows * 3 + 5];
                f.read(0, all.length, all, 0);
                for (int r = 0; r < all.length; r++) {
                    final long v = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN).getLong(r * 8);
                    assertThat(all[r]).isEqualTo(v);
                    assertThat(f.getLong(r)).isEqualTo(v);
                }
                blockOneOffset = f.blockOffset(1) + 5;
            }
            flipByte(file, blockOneOffset);
            try (ColumnFile f = ColumnFile.open(file, ColumnType.INT64, -1)) {
                assertThatThrownBy(() -> f.getLong(blockRows * 2 - 1)).as(encoding).isInstanceOf(UncheckedIOException.class)
                    .cause().isInstanceOf(CorruptPartitionException.class)
                    .hasMessageContaining("file=" + file).hasMessageContaining("block=1");
            }
        }
    }

    @Test
    void shouldRefuseACorruptBlockSummary() throws IOException {
        final byte[] values = values(ColumnType.INT64, 300, 9);
        final Path file = dir.resolve("summary-corrupt");
        write(file, ColumnType.INT64, ColumnEncoding.parse("lz4"), 64, values);
        final long indexOffset;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            final ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(header, 0);
            indexOffset = header.getLong(32);
        }
        flipByte(file, indexOffset + 56 + 24 + 8 + 3);   // block 1's last value
        assertThatThrownBy(() -> ColumnFile.open(file, ColumnType.INT64, 300))
            .isInstanceOf(CorruptPartitionException.class).hasMessageContaining("block index checksum mismatch")
            .hasMessageContaining("file=" + file);
    }

    /**
     * Rewrites a column file in the version 1 layout (index entries without the block summary),
     * as writers before version 2 wrote it: header version 1, both checksums recomputed.
     */
    static void toVersionOne(final Path file) throws IOException {
        toVersionTwo(file);
        final ByteBuffer f = ByteBuffer.wrap(java.nio.file.Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        final int blocks = f.getInt(20);
        final int indexOffset = (int) f.getLong(32);
        assertThat(f.getInt(8)).as("a version 2 file").isEqualTo(2);
        final ByteBuffer out = ByteBuffer.allocate(indexOffset + blocks * 24 + 4).order(ByteOrder.LITTLE_ENDIAN);
        out.put(f.array(), 0, indexOffset);
        for (int b = 0; b < blocks; b++) {
            out.put(f.array(), indexOffset + b * 56, 24);
        }
        final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(out.array(), indexOffset, blocks * 24);
        out.putInt((int) crc.getValue());
        out.putInt(8, 1);
        crc.reset();
        crc.update(out.array(), 0, 60);
        out.putInt(60, (int) crc.getValue());
        java.nio.file.Files.write(file, out.array());
    }

    /**
     * Rewrites a version 3 file (encoded blocks cut into sub-blocks) as the version 2 writer wrote
     * it: the same encoding and blocks, each block compressed whole. Other versions are left as they are.
     */
    static void toVersionTwo(final Path file) throws IOException {
        final Path v2 = file.resolveSibling(file.getFileName() + ".v2");
        try (ColumnFile f = ColumnFile.open(file, null, -1)) {
            if (f.version() != 3) {
                return;
            }
            final int width = f.type().width();
            try (ColumnFileWriter w = new ColumnFileWriter(v2, f.type(), f.encoding(), f.blockRows(), f.rowCount(), false, 0)) {
                for (int b = 0; b < f.blockCount(); b++) {
                    final int rows = f.rowsIn(b);
                    final Object values = f.type().newArray(rows);
                    f.read(f.firstRow(b), rows, values, 0);
                    org.agrona.UnsafeApi.copyMemory(values, org.agrona.UnsafeApi.arrayBaseOffset(values.getClass()),
                        w.block().byteArray(), org.agrona.UnsafeApi.arrayBaseOffset(byte[].class), (long) rows * width);
                    w.writeBlock(rows);
                }
                w.finish();
            }
        }
        java.nio.file.Files.move(v2, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static long bits(final ColumnType type, final byte[] values, final int row) {
        final ByteBuffer b = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
        return switch (type.width()) {
            case 8 -> b.getLong(row * 8);
            case 4 -> b.getInt(row * 4);
            case 2 -> b.getShort(row * 2);
            default -> b.get(row);
        };
    }

    private static double summaryNumber(final ColumnType type, final long bits) {
        return switch (type) {
            case FLOAT64 -> Double.longBitsToDouble(bits);
            case FLOAT32 -> Float.intBitsToFloat((int) bits);
            default -> bits;
        };
    }

    @Test
    void shouldRefuseCorruptHeaderOrIndex() throws IOException {
        final byte[] values = values(ColumnType.FLOAT64, 200, 3);
        final Path header = dir.resolve("header");
        write(header, ColumnType.FLOAT64, ColumnEncoding.parse("lz4"), 64, values);
        flipByte(header, 20);
        assertThatThrownBy(() -> ColumnFile.open(header, ColumnType.FLOAT64, 200))
            .isInstanceOf(CorruptPartitionException.class).hasMessageContaining("header checksum mismatch");
        final Path index = dir.resolve("index");
        write(index, ColumnType.FLOAT64, ColumnEncoding.parse("lz4"), 64, values);
        flipByte(index, java.nio.file.Files.size(index) - 10);
        assertThatThrownBy(() -> ColumnFile.open(index, ColumnType.FLOAT64, 200))
            .isInstanceOf(CorruptPartitionException.class).hasMessageContaining("block index checksum mismatch");
        final Path typed = dir.resolve("typed");
        write(typed, ColumnType.FLOAT64, ColumnEncoding.PLAIN, 64, values);
        assertThatThrownBy(() -> ColumnFile.open(typed, ColumnType.INT64, 200))
            .isInstanceOf(CorruptPartitionException.class).hasMessageContaining("column type differs");
        assertThatThrownBy(() -> ColumnFile.open(typed, ColumnType.FLOAT64, 201))
            .isInstanceOf(CorruptPartitionException.class).hasMessageContaining("row count differs");
    }

    @Test
    void shouldShuffleIntoBytePlanes() {
        final int n = 37;
        final byte[] src = new byte[n * 8];
        new SplittableRandom(3).nextBytes(src);
        final byte[] dst = new byte[src.length];
        final Transform shuffle = Transform.parse("shuffle");
        final byte[] out = shuffle.encode(src, src.length, ColumnType.INT64, dst, new byte[src.length]);
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < 8; j++) {
                assertThat(out[j * n + i]).as("value %s byte %s", i, j).isEqualTo(src[i * 8 + j]);
            }
        }
        assertThat(BlockDecoder.decode(shuffle, out.clone(), src.length, ColumnType.INT64, new byte[src.length])).isEqualTo(src);
    }

    @Test
    void shouldParseAndPrintEncodings() {
        assertThat(ColumnEncoding.parse("dod+shuffle/zstd:3").toString()).isEqualTo("dod+shuffle/zstd:3");
        assertThat(ColumnEncoding.parse("zstd")).isEqualTo(ColumnEncoding.parse("none/zstd:3"));
        assertThat(ColumnEncoding.parse("lz4").toString()).isEqualTo("lz4");
        assertThat(ColumnEncoding.parse("none")).isEqualTo(ColumnEncoding.PLAIN);
        assertThat(ColumnEncoding.parse("delta/zstd:1").forType(ColumnType.FLOAT64)).isEqualTo(ColumnEncoding.parse("zstd:1"));
        assertThatThrownBy(() -> ColumnEncoding.parse("gzip")).hasMessageContaining("unknown codec [codec=gzip");
        assertThatThrownBy(() -> ColumnEncoding.parse("zstd:23")).hasMessageContaining("level out of range");
        assertThatThrownBy(() -> ColumnEncoding.parse("rle/lz4")).hasMessageContaining("unknown transform");
    }

    private long storedBytes(final String name, final ColumnType type, final ColumnEncoding enc, final byte[] values) throws IOException {
        final Path file = dir.resolve(name);
        write(file, type, enc, PartitionWriter.DEFAULT_BLOCK_BYTES / type.width(), values);
        try (ColumnFile f = ColumnFile.open(file, type, -1)) {
            return f.storedBytes();
        }
    }

    static void write(final Path file, final ColumnType type, final ColumnEncoding enc, final int blockRows, final byte[] values)
        throws IOException {
        final int w = type.width();
        final int rows = values.length / w;
        try (ColumnFileWriter writer = new ColumnFileWriter(file, type, enc, blockRows, rows)) {
            for (int at = 0; at < rows; at += blockRows) {
                final int n = Math.min(blockRows, rows - at);
                writer.block().putBytes(0, values, at * w, n * w);
                writer.writeBlock(n);
            }
            writer.finish();
        }
    }

    private static void flipByte(final Path file, final long at) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, at);
            one.put(0, (byte) (one.get(0) ^ 0x5a)).rewind();
            ch.write(one, at);
        }
    }

    /** Values shaped like market data: slowly moving integers, random-walk doubles, a few chars. */
    static byte[] values(final ColumnType type, final int rows, final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final ByteBuffer b = ByteBuffer.allocate(rows * type.width()).order(ByteOrder.LITTLE_ENDIAN);
        long acc = random.nextLong();
        double price = 100;
        for (int r = 0; r < rows; r++) {
            acc += random.nextInt(1000) - (r % 17 == 0 ? 5000 : 0);
            price += (random.nextInt(5) - 2) * 0.01;
            switch (type) {
                case TIMESTAMP, INT64 -> b.putLong(acc);
                case FLOAT64 -> b.putDouble(price);
                case FLOAT32 -> b.putFloat((float) price);
                case SYMBOL, INT32 -> b.putInt((int) acc);
                case INT16 -> b.putShort((short) acc);
                case BOOL -> b.put((byte) (random.nextInt(4) == 0 ? 1 : 0));
                default -> b.put((byte) ('A' + random.nextInt(4)));
            }
        }
        return b.array();
    }

    private static Object cell(final ColumnFile f, final ColumnType type, final int r) {
        return switch (type) {
            case TIMESTAMP, INT64 -> f.getLong(r);
            case FLOAT64 -> f.getDouble(r);
            case FLOAT32 -> f.getFloat(r);
            case SYMBOL, INT32 -> f.getInt(r);
            case INT16 -> f.getShort(r);
            default -> f.getByte(r);
        };
    }

    private static Object cell(final ByteBuffer b, final ColumnType type, final int r) {
        final int at = r * type.width();
        return switch (type) {
            case TIMESTAMP, INT64 -> b.getLong(at);
            case FLOAT64 -> b.getDouble(at);
            case FLOAT32 -> b.getFloat(at);
            case SYMBOL, INT32 -> b.getInt(at);
            case INT16 -> b.getShort(at);
            default -> b.get(at);
        };
    }
}
