package io.jtick.core.hdb.write;

import io.jtick.core.hdb.format.ColumnFileWriter;
import io.jtick.core.hdb.format.Crc32cCombine;
import io.jtick.core.hdb.format.SymRanges;
import io.jtick.core.schema.ColumnType;
import io.jtick.core.schema.TableSchema;
import io.jtick.core.table.ColumnChunk;
import io.jtick.core.table.TableSegment;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Writes a plain column of a partition in arrival order rather than in partition order: the
 * segment's rows are read a stage at a time ({@link #STAGE_BYTES} of values, sequentially), counting
 * sorted by sym rank into a staging buffer (at positions the table's columns share,
 * {@link ScatterStages}), and each sym's run of the stage is written where it belongs in the file
 * (the sym's first row plus the rows of it already written). Gathering the rows in partition order
 * instead reads one value per cache line from all over the table (the rows of a sym are spread
 * through the day); here every value is read once, in order, and the
 * scattered stores land in a buffer that stays in cache. Needs the rows of each sym in arrival
 * order ({@link SortOrder#reordered()} false); the permutation is never built.
 */
final class PlainColumnScatter {
    /**
     * Bytes of values staged at a time (a direct buffer, freed when the column is written): a sym's
     * run of a stage is one positional write, so the stage sets how many writes a column takes.
     * 16 MB is 2M rows of an 8-byte column, runs of 16 KB with 1000 syms; 8 MB stages (8 KB runs)
     * made the write-down 5-10 % slower, 64 MB ones no faster. Each writer thread holds one.
     */
    static final int STAGE_BYTES = 16 << 20;
    /**
     * Most rows staged at a time, whatever the width: so a table's columns stage at most two sizes (of
     * 8-byte columns and of narrower ones), whose staged positions each are worked out once ({@link ScatterStages}).
     */
    static final int STAGE_ROWS = 1 << 22;
    private static final boolean NATIVE_LE = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private PlainColumnScatter() {
    }

    /** Writes column {@code c} of {@code table} through {@code w} (a plain file) and finishes it; returns the bytes stored. */
    static long write(final ColumnFileWriter w, final TableSegment table, final int c, final SortOrder order,
                      final int blockBytes) throws IOException {
        return write(w, table, c, order, blockBytes, Math.min(STAGE_ROWS, STAGE_BYTES / table.schema().type(c).width()));
    }

    /** As {@link #write(ColumnFileWriter, TableSegment, int, SortOrder, int)}, {@code stageRows} at a time. */
    static long write(final ColumnFileWriter w, final TableSegment table, final int c, final SortOrder order,
                      final int blockBytes, final int stageRows) throws IOException {
        final int width = table.schema().type(c).width();
        final int n = table.rowCount();
        final Blocks blocks = Blocks.of(order.ranges(), n, blockBytes / width);
        final int stage = Math.max(1, Math.min(n, stageRows));
        final ByteBuffer staged = ByteBuffer.allocateDirect(stage * width).order(ByteOrder.LITTLE_ENDIAN);
        try {
            return write(w, table, c, order, blocks, stage, staged);
        } finally {
            BufferUtil.free(staged);
        }
    }

    private static long write(final ColumnFileWriter w, final TableSegment table, final int c, final SortOrder order,
                              final Blocks blocks, final int stage, final ByteBuffer staged) throws IOException {
        final ColumnType type = table.schema().type(c);
        final int width = type.width();
        final int n = table.rowCount();
        final SymRanges ranges = order.ranges();
        final int syms = ranges.count();
        final ScatterStages stages = order.stages();
        final UnsafeBuffer values = new UnsafeBuffer(staged);
        final ByteBuffer run = staged.duplicate();
        final CRC32C crc = new CRC32C();
        final Checksums sums = new Checksums(type, blocks, ranges);
        final UnsafeBuffer piece = new UnsafeBuffer(0, 0);
        final long[] pieceSummary = new long[4];
        final int[] done = new int[syms];
        final int step = Math.max(1, table.chunkRows());
        final ColumnChunk chunk = new ColumnChunk();
        for (int a = 0; a < n; a += stage) {
            final ScatterStages.Stage plan = stages.stage(a, stage);
            final int k = plan.rows();
            final int[] position = plan.position();
            final int[] start = plan.start();
            final int[] count = plan.count();
            for (int i = 0; i < k; i += step) {
                final int m = Math.min(step, k - i);
                table.read(c, a + i, m, chunk);
                scatter(type, chunk, position, k, i, m, values);
            }
            for (int sym = 0; sym < syms; sym++) {
                final int cnt = count[sym];
                if (cnt == 0) {
                    continue;
                }
                final int end = start[sym] + cnt;
                final int outRow = ranges.from(sym) + done[sym];
                // checksum the run piece by piece, cut where the file's blocks end
                for (int from = end - cnt, row = outRow; from < end;) {
                    final int to = Math.min(end, from + blocks.end(blocks.of(row)) - row);
                    run.limit(to * width).position(from * width);
                    crc.reset();
                    crc.update(run);
                    piece.wrap(values, from * width, (to - from) * width);
                    ColumnFileWriter.summarize(type, piece, to - from, pieceSummary, 0);
                    sums.add(sym, row, to - from, (int) crc.getValue(), (long) (to - from) * width, pieceSummary);
                    row += to - from;
                    from = to;
                }
                run.limit(end * width).position((end - cnt) * width);
                w.writeValuesAt(run, outRow);
                done[sym] += cnt;
            }
        }
        sums.fold();
        return w.finishPlain(blocks.sizes(), sums.blockCrcs, sums.blockSummaries, blocks.count());
    }

    /**
     * Rows per stage of {@link #scatterWhole}, whatever the width (no run is written on its own there, so the stage size only
     * bounds the positions worked out at a time): the table's plain columns then share every stage.
     */
    static final int WHOLE_STAGE_ROWS = STAGE_BYTES / Long.BYTES;

    /** A whole column's blocks as {@link ColumnFileWriter#finishPlain} takes them: rows, CRC32C and summary (four values) of each. */
    record PlainBlocks(int[] sizes, int[] crcs, long[] summaries, int count) {
    }

    /**
     * Stores column {@code c} of {@code table} straight into {@code values}, the column's whole value region (row r at
     * {@code r × width}, e.g. {@link ColumnFileWriter#wholeValues()}): the segment's rows read a stage at a time, in arrival
     * order, each value stored at its row of the partition ({@link ScatterStages#targets}, shared by the table's columns);
     * then each block checksummed and summarized in file order. No copy between the table and the buffer the device reads.
     * The sym column is filled from the sym ranges instead (each sym's rank over its rows; any row order).
     */
    static PlainBlocks scatterWhole(final ByteBuffer values, final TableSegment table, final int c, final SortOrder order,
                                    final int blockBytes) {
        return scatterWhole(values, table, c, order, blockBytes, WHOLE_STAGE_ROWS);
    }

    /** As {@link #scatterWhole(ByteBuffer, TableSegment, int, SortOrder, int)}, {@code stageRows} at a time. */
    static PlainBlocks scatterWhole(final ByteBuffer values, final TableSegment table, final int c, final SortOrder order,
                                    final int blockBytes, final int stageRows) {
        final ColumnType type = table.schema().type(c);
        final int width = type.width();
        final int n = table.rowCount();
        final UnsafeBuffer dst = new UnsafeBuffer(values);
        if ((long) n * width > dst.capacity()) {
            throw new IllegalArgumentException("column larger than its buffer [rows=" + n + ", capacity=" + dst.capacity() + "]");
        }
        if (c == TableSchema.SYM) {
            order.fillSymCodes(0, n, dst);
        } else {
            final ScatterStages stages = order.stages();
            final int step = Math.max(1, table.chunkRows());
            final ColumnChunk chunk = new ColumnChunk();
            for (int a = 0; a < n; a += stageRows) {
                final ScatterStages.Stage plan = stages.targets(a, stageRows);
                final int k = plan.rows();
                for (int i = 0; i < k; i += step) {
                    final int m = Math.min(step, k - i);
                    table.read(c, a + i, m, chunk);
                    scatter(type, chunk, plan.position(), n, i, m, dst);
                }
            }
        }
        final Blocks blocks = Blocks.of(order.ranges(), n, blockBytes / width);
        final int[] crcs = new int[blocks.count()];
        final long[] summaries = new long[4 * blocks.count()];
        final ByteBuffer block = values.duplicate();
        final UnsafeBuffer piece = new UnsafeBuffer(0, 0);
        final CRC32C crc = new CRC32C();
        for (int b = 0; b < blocks.count(); b++) {
            final int from = blocks.starts()[b];
            final int rows = blocks.end(b) - from;
            block.limit((from + rows) * width).position(from * width);
            crc.reset();
            crc.update(block);
            crcs[b] = (int) crc.getValue();
            piece.wrap(dst, from * width, rows * width);
            ColumnFileWriter.summarize(type, piece, rows, summaries, 4 * b);
        }
        return new PlainBlocks(blocks.sizes(), crcs, summaries, blocks.count());
    }

    /** The file's blocks: where each starts, in rows (cut as {@link BlockCuts#blockEnd} cuts them). */
    record Blocks(int[] starts, int count, int rows) {
        static Blocks of(final SymRanges ranges, final int n, final int blockRows) {
            int[] starts = new int[16];
            int count = 0;
            for (int at = 0; at < n;) {
                if (count == starts.length) {
                    starts = Arrays.copyOf(starts, count << 1);
                }
                starts[count++] = at;
                at = BlockCuts.blockEnd(ranges, at, n, blockRows);
            }
            return new Blocks(starts, count, n);
        }

        /** Block holding output row {@code row}. */
        int of(final int row) {
            int lo = 0;
            int hi = count - 1;
            while (lo < hi) {
                final int mid = (lo + hi + 1) >>> 1;
                if (starts[mid] <= row) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        /** First row after block {@code b}. */
        int end(final int b) {
            return b + 1 < count ? starts[b + 1] : rows;
        }

        int[] sizes() {
            final int[] sizes = new int[count];
            for (int b = 0; b < count; b++) {
                sizes[b] = end(b) - starts[b];
            }
            return sizes;
        }
    }

    /**
     * The blocks' CRC32C and summaries from the pieces written: a sym's pieces come in file order
     * and are folded as they come ({@link Crc32cCombine}, {@link ColumnFileWriter#foldSummary})
     * until the sym leaves a block; a block several syms share is folded from their parts, in sym
     * order, by {@link #fold}.
     */
    private static final class Checksums {
        private final ColumnType type;
        private final Blocks blocks;
        private final int[] crc;
        private final long[] bytes;
        private final int[] firstRow;
        private final long[] summary;
        private long[] parts = new long[64];
        private int[] partCrc = new int[64];
        private long[] partBytes = new long[64];
        private long[] partSummary = new long[4 * 64];
        private int partCount;
        /** Set by {@link #fold}: each block's CRC32C, and its summary (four values a block). */
        int[] blockCrcs;
        long[] blockSummaries;

        Checksums(final ColumnType type, final Blocks blocks, final SymRanges ranges) {
            this.type = type;
            this.blocks = blocks;
            this.crc = new int[ranges.count()];
            this.bytes = new long[ranges.count()];
            this.firstRow = new int[ranges.count()];
            this.summary = new long[4 * ranges.count()];
        }

        /**
         * {@code rows} rows of {@code sym} from output row {@code row}, within one block: checksum
         * {@code c} over {@code length} bytes, summary {@code s[0..4)}.
         */
        void add(final int sym, final int row, final int rows, final int c, final long length, final long[] s) {
            if (bytes[sym] == 0) {
                firstRow[sym] = row;
                crc[sym] = c;
                bytes[sym] = length;
                System.arraycopy(s, 0, summary, 4 * sym, 4);
            } else {
                crc[sym] = Crc32cCombine.combine(crc[sym], c, length);
                bytes[sym] += length;
                ColumnFileWriter.foldSummary(type, summary, 4 * sym, s, 0);
            }
            if (row + rows == blocks.end(blocks.of(row))) {
                close(sym);
            }
        }

        private void close(final int sym) {
            if (partCount == parts.length) {
                parts = Arrays.copyOf(parts, partCount << 1);
                partCrc = Arrays.copyOf(partCrc, partCount << 1);
                partBytes = Arrays.copyOf(partBytes, partCount << 1);
                partSummary = Arrays.copyOf(partSummary, partCount << 3);
            }
            System.arraycopy(summary, 4 * sym, partSummary, 4 * partCount, 4);
            parts[partCount] = ((long) firstRow[sym] << 32) | partCount;
            partCrc[partCount] = crc[sym];
            partBytes[partCount] = bytes[sym];
            partCount++;
            bytes[sym] = 0;
        }

        void fold() {
            for (int sym = 0; sym < bytes.length; sym++) {
                if (bytes[sym] > 0) {
                    close(sym);
                }
            }
            final long[] order = Arrays.copyOf(parts, partCount);
            Arrays.sort(order);
            final int[] out = new int[blocks.count()];
            final long[] sums = new long[4 * blocks.count()];
            final boolean[] started = new boolean[blocks.count()];
            for (final long key : order) {
                final int i = (int) key;
                final int b = blocks.of((int) (key >>> 32));
                if (started[b]) {
                    out[b] = Crc32cCombine.combine(out[b], partCrc[i], partBytes[i]);
                    ColumnFileWriter.foldSummary(type, sums, 4 * b, partSummary, 4 * i);
                } else {
                    out[b] = partCrc[i];
                    System.arraycopy(partSummary, 4 * i, sums, 4 * b, 4);
                }
                started[b] = true;
            }
            blockCrcs = out;
            blockSummaries = sums;
        }
    }

    /**
     * Values {@code chunk[0..m)} (rows {@code i..i+m} of the stage) to their places {@code position[i..i+m)}. The
     * positions are distinct and below {@code bound} ({@link ScatterStages}: the stage's rows, or the table's), inside the
     * buffer by construction, so on a little-endian host the stores go straight to its memory without a bounds check each.
     */
    private static void scatter(final ColumnType type, final ColumnChunk chunk, final int[] position, final int bound, final int i,
                                final int m, final UnsafeBuffer dst) {
        if (i < 0 || m < 0 || i > position.length - m || (long) bound * type.width() > dst.capacity()) {
            throw new IndexOutOfBoundsException("stage larger than its buffer [rows=" + bound + ", capacity="
                + dst.capacity() + "]");
        }
        if (!NATIVE_LE) {
            scatterChecked(type, chunk, position, i, m, dst);
            return;
        }
        final int o = chunk.offset();
        final byte[] base = dst.byteArray();
        final long addr = dst.addressOffset();
        switch (type) {
            case TIMESTAMP:
            case INT64: {
                final long[] v = chunk.longs();
                for (int j = 0; j < m; j++) {
                    UnsafeApi.putLong(base, addr + ((long) position[i + j] << 3), v[o + j]);
                }
                return;
            }
            case FLOAT64: {
                final double[] v = chunk.doubles();
                for (int j = 0; j < m; j++) {
                    UnsafeApi.putDouble(base, addr + ((long) position[i + j] << 3), v[o + j]);
                }
                return;
            }
            case SYMBOL:
            case INT32: {
                final int[] v = chunk.ints();
                for (int j = 0; j < m; j++) {
                    UnsafeApi.putInt(base, addr + ((long) position[i + j] << 2), v[o + j]);
                }
                return;
            }
            case FLOAT32: {
                final float[] v = chunk.floats();
                for (int j = 0; j < m; j++) {
                    UnsafeApi.putFloat(base, addr + ((long) position[i + j] << 2), v[o + j]);
                }
                return;
            }
            case INT16: {
                final short[] v = chunk.shorts();
                for (int j = 0; j < m; j++) {
                    UnsafeApi.putShort(base, addr + ((long) position[i + j] << 1), v[o + j]);
                }
                return;
            }
            default: {
                final byte[] v = chunk.bytes();
                for (int j = 0; j < m; j++) {
                    UnsafeApi.putByte(base, addr + position[i + j], v[o + j]);
                }
            }
        }
    }

    /** {@link #scatter} through the buffer's checked little-endian stores (a big-endian host). */
    private static void scatterChecked(final ColumnType type, final ColumnChunk chunk, final int[] position, final int i, final int m,
                                       final UnsafeBuffer dst) {
        final int o = chunk.offset();
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        for (int j = 0; j < m; j++) {
            final int p = position[i + j];
            switch (type) {
                case TIMESTAMP, INT64 -> dst.putLong(p << 3, chunk.longs()[o + j], le);
                case FLOAT64 -> dst.putDouble(p << 3, chunk.doubles()[o + j], le);
                case SYMBOL, INT32 -> dst.putInt(p << 2, chunk.ints()[o + j], le);
                case FLOAT32 -> dst.putFloat(p << 2, chunk.floats()[o + j], le);
                case INT16 -> dst.putShort(p << 1, chunk.shorts()[o + j], le);
                default -> dst.putByte(p, chunk.bytes()[o + j]);
            }
        }
    }
}
