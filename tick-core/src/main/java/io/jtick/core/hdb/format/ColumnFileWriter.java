package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.Executor;
import java.util.zip.CRC32C;

import static io.jtick.core.hdb.format.ColumnFileDescriptor.HEADER_LENGTH;
import static io.jtick.core.hdb.format.ColumnFileDescriptor.INDEX_ENTRY_LENGTH;

/**
 * Writes one column file block by block: the caller fills {@link #block()} with up to
 * {@link #blockRows()} little-endian values and calls {@link #writeBlock(int)}; {@link #finish()}
 * writes the block index and the header and forces the file to disk. Not thread-safe; one writer
 * per file. Layout in {@link ColumnFileDescriptor}.
 *
 * <p>{@link #direct} writes the same bytes with direct I/O ({@link DirectColumnOutput}): the file
 * is then written strictly in order, and a plain column's {@link #block()} is a window of the
 * aligned staging buffer itself, so its values go from the table to the device without a copy
 * into the page cache; {@link #writeValuesAt} (positional writes) is for buffered files only.
 */
public final class ColumnFileWriter implements AutoCloseable {
    private final Path path;
    private final ColumnType type;
    private final ColumnEncoding encoding;
    private final int width;
    private final int blockRows;
    private final long rowCount;
    private final FileChannel channel;
    private final boolean sync;
    private final byte[] raw;
    private final UnsafeBuffer rawBuffer;
    /** Set for a file written with direct I/O. */
    private final DirectColumnOutput direct;
    /** Direct I/O of a plain file: {@link #rawBuffer} is the staging buffer's next block, filled in place. */
    private final boolean inPlace;
    /** {@link #directWhole}: the whole value region in the lent buffer, filled through {@link #wholeValues}; else null. */
    private final UnsafeBuffer whole;
    private final byte[] transformed;
    private final byte[] scratch;
    private final byte[] stored;
    /** Rows per sub-block (version 3), 0 to write version 2 blocks. */
    private final int subRows;
    /** One sub-block's raw values, copied out of {@link #raw} to be transformed. */
    private final byte[] subRaw;
    private ByteBuffer index;
    private final CRC32C crc = new CRC32C();
    private final long[] summary = new long[4];
    private long position = HEADER_LENGTH;
    private long rowsWritten;
    private int blocksWritten;
    private boolean finished;

    public ColumnFileWriter(final Path path, final ColumnType type, final ColumnEncoding encoding, final int blockRows, final long rowCount)
        throws IOException {
        this(path, type, encoding, blockRows, rowCount, true);
    }

    /** @param sync force the file to disk in {@link #finish()} (the compression study times writes without it) */
    public ColumnFileWriter(final Path path, final ColumnType type, final ColumnEncoding encoding, final int blockRows, final long rowCount,
                     final boolean sync) throws IOException {
        this(path, type, encoding, blockRows, rowCount, sync, ColumnFileDescriptor.subRows(encoding.forType(type), type.width()));
    }

    /**
     * As above with {@code subRows} rows per sub-block: 0 writes version 2 blocks (what writers wrote
     * before sub-blocks; tests write them to check that such files still read).
     */
    ColumnFileWriter(final Path path, final ColumnType type, final ColumnEncoding encoding, final int blockRows, final long rowCount,
                     final boolean sync, final int subRows) throws IOException {
        this(path, type, encoding, blockRows, rowCount, sync, subRows, 0, null, null);
    }

    /**
     * A writer that writes the file with direct I/O ({@code O_DIRECT}) in buffers aligned to
     * {@code align} (the file system's block size; see the class comment), its full buffers written
     * on {@code io} (null: on the caller's thread) while the next fills. Fails with an
     * {@link IOException} or {@link UnsupportedOperationException} where the file system refuses
     * direct I/O.
     */
    public static ColumnFileWriter direct(final Path path, final ColumnType type, final ColumnEncoding encoding, final int blockRows,
                                          final long rowCount, final boolean sync, final int align, final Executor io) throws IOException {
        if (align <= 0) {
            throw new IllegalArgumentException("direct I/O needs the block size [file=" + path + ", align=" + align + "]");
        }
        return new ColumnFileWriter(path, type, encoding, blockRows, rowCount, sync,
            ColumnFileDescriptor.subRows(encoding.forType(type), type.width()), align, io, null);
    }

    /**
     * A direct-I/O writer of a plain file whose rows come in any order through {@link #writeValuesAt}
     * or filled in place ({@link #wholeValues}), then {@link #finishPlain}: the whole file is built in
     * {@code lent} (an aligned buffer of {@link #wholeBufferBytes}, the caller's, not freed here) and
     * written in one write once complete.
     */
    public static ColumnFileWriter directWhole(final Path path, final ColumnType type, final int blockRows, final long rowCount,
                                               final boolean sync, final int align, final Executor io, final ByteBuffer lent)
        throws IOException {
        if (align <= 0) {
            throw new IllegalArgumentException("direct I/O needs the block size [file=" + path + ", align=" + align + "]");
        }
        return new ColumnFileWriter(path, type, ColumnEncoding.parse("none"), blockRows, rowCount, sync, 0, align, io, lent);
    }

    /**
     * Bytes of the aligned buffer {@link #directWhole} is lent for a column of {@code rowCount} rows in at most
     * {@code blocks} blocks: the whole file, index included, then goes to the device in one write.
     */
    public static int wholeBufferBytes(final ColumnType type, final long rowCount, final int blocks, final int align) {
        final long file = HEADER_LENGTH + rowCount * type.width() + (long) blocks * INDEX_ENTRY_LENGTH + 4;
        if (file > Integer.MAX_VALUE - 4L * align) {
            throw new IllegalArgumentException("column too large to hold whole [rows=" + rowCount + ", width=" + type.width() + "]");
        }
        return DirectColumnOutput.capacity(align, (int) file, file);
    }

    /**
     * {@link #directWhole} only: the column's whole value region (row r at {@code r × width}, little-endian), to be filled
     * in any order before {@link #finishPlain}; its bytes are written as they are (nothing else writes them).
     */
    public ByteBuffer wholeValues() {
        if (whole == null) {
            throw new IllegalStateException("not a whole-column writer [file=" + path + "]");
        }
        return whole.byteBuffer().duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    private ColumnFileWriter(final Path path, final ColumnType type, final ColumnEncoding encoding, final int blockRows,
                             final long rowCount, final boolean sync, final int subRows, final int align, final Executor io,
                             final ByteBuffer lent)
        throws IOException {
        final boolean wholeColumn = lent != null;
        this.sync = sync;
        this.path = path;
        this.type = type;
        this.encoding = encoding.forType(type);
        this.width = type.width();
        this.blockRows = blockRows;
        this.rowCount = rowCount;
        if (rowCount < 0 || rowCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("column too large [file=" + path + ", rows=" + rowCount + "]");
        }
        final int blockBytes = blockRows * width;
        this.inPlace = align > 0 && this.encoding.isPlain();
        this.raw = inPlace ? null : new byte[blockBytes];
        this.rawBuffer = inPlace ? new UnsafeBuffer(0, 0) : new UnsafeBuffer(raw);
        final boolean transforms = !this.encoding.transform().isIdentity();
        final int encodedBytes = blockBytes + this.encoding.transform().overhead();
        if (subRows < 0 || subRows > 0 && this.encoding.codec() == Codec.NONE) {
            throw new IllegalArgumentException("sub-blocks need a codec [file=" + path + ", subRows=" + subRows + "]");
        }
        this.subRows = subRows;
        if (subRows > 0) {
            final int subEncoded = subRows * width + this.encoding.transform().overhead();
            this.subRaw = new byte[subRows * width];
            this.transformed = transforms ? new byte[subEncoded] : null;
            this.scratch = transforms ? new byte[subEncoded] : null;
            this.stored = new byte[(int) maxStoredLength(this.encoding, width, blockRows, subRows)];
        } else {
            this.subRaw = null;
            this.transformed = transforms ? new byte[encodedBytes] : null;
            this.scratch = transforms ? new byte[encodedBytes] : null;
            this.stored = this.encoding.codec() == Codec.NONE ? null : new byte[this.encoding.codec().maxCompressedLength(encodedBytes)];
        }
        this.index = ByteBuffer.allocate((int) Math.min(1 << 20, (rowCount / blockRows + 2) * INDEX_ENTRY_LENGTH + 4))
            .order(ByteOrder.LITTLE_ENDIAN);
        if (align <= 0) {
            this.channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
            this.direct = null;
            this.whole = null;
            return;
        }
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            com.sun.nio.file.ExtendedOpenOption.DIRECT);
        try {
            final long expected = HEADER_LENGTH + rowCount * width + (rowCount / blockRows + 2) * INDEX_ENTRY_LENGTH;
            final int values = (int) Math.min(Integer.MAX_VALUE - 4 * align, rowCount * width);
            if (wholeColumn && values != rowCount * width) {
                throw new IllegalArgumentException("column too large to hold whole [file=" + path + ", rows=" + rowCount + "]");
            }
            final int lentChunk = wholeColumn ? (lent.capacity() & -align) - 2 * align : 0;
            if (wholeColumn && lentChunk < HEADER_LENGTH + rowCount * width) {
                throw new IllegalArgumentException("lent buffer too small for the column [file=" + path + ", capacity="
                    + lent.capacity() + ", rows=" + rowCount + "]");
            }
            this.direct = new DirectColumnOutput(path, channel, align, wholeColumn ? lentChunk : blockBytes, HEADER_LENGTH, expected,
                io, wholeColumn ? lent : null);
            if (wholeColumn) {
                direct.reserve(values);
                this.whole = new UnsafeBuffer(direct.reserved(values).slice());
            } else {
                this.whole = null;
            }
            if (inPlace && !wholeColumn) {
                rawBuffer.wrap(direct.reserve(blockBytes), blockBytes);
            }
        } catch (final IOException | RuntimeException | Error e) {
            channel.close();
            throw e;
        }
    }

    /** The file being written. */
    Path path() {
        return path;
    }

    /** Rows per full block. */
    int blockRows() {
        return blockRows;
    }

    /** The block to fill (little-endian values, native order on x86 is little-endian). */
    public UnsafeBuffer block() {
        return rawBuffer;
    }

    /** Encodes and appends the first {@code rows} values of {@link #block()} (1..{@link #blockRows()} rows) as one block. */
    public void writeBlock(final int rows) throws IOException {
        if (rows <= 0 || rows > blockRows || rowsWritten + rows > rowCount || whole != null) {
            throw new IllegalStateException("bad block [file=" + path + ", rows=" + rows + ", written=" + rowsWritten
                + ", total=" + rowCount + "]");
        }
        final int rawLength = rows * width;
        if (inPlace) {
            crc.reset();
            crc.update(direct.reserved(rawLength));
            index(position, rawLength, (int) crc.getValue(), rows);
            summarize(type, rawBuffer, rows, index);
            direct.commit(rawLength);
            position += rawLength;
            final int blockBytes = blockRows * width;
            rawBuffer.wrap(direct.reserve(blockBytes), blockBytes);
            return;
        }
        final int encodedLength = rawLength + encoding.transform().overhead();
        final byte[] out;
        final int length;
        if (subRows > 0) {
            out = stored;
            length = writeSubBlocks(rows);
        } else if (encoding.codec() == Codec.NONE) {
            final byte[] t = encoding.transform().encode(raw, rawLength, type, transformed, scratch);
            out = t;
            length = encodedLength;
        } else {
            final byte[] t = encoding.transform().encode(raw, rawLength, type, transformed, scratch);
            out = stored;
            length = encoding.codec().compress(t, 0, encodedLength, stored, 0, encoding.level());
        }
        crc.reset();
        crc.update(out, 0, length);
        index(position, length, (int) crc.getValue(), rows);
        summarize(type, rawBuffer, rows, index);
        if (direct != null) {
            direct.append(out, 0, length);
        } else {
            writeFully(ByteBuffer.wrap(out, 0, length), position);
        }
        position += length;
    }

    /**
     * Writes the block's {@code rows} raw values into {@link #stored} as version 3 sub-blocks
     * ({@link ColumnFileDescriptor}): the table of their ends and first values, then each sub-block
     * transformed and compressed on its own. Returns the stored length.
     */
    private int writeSubBlocks(final int rows) throws IOException {
        final int k = ColumnFileDescriptor.subBlocks(rows, subRows);
        final int frames = ColumnFileDescriptor.subTableBytes(k, type);
        final ByteBuffer table = ByteBuffer.wrap(stored, 0, frames).order(ByteOrder.LITTLE_ENDIAN);
        int end = 0;
        for (int i = 0; i < k; i++) {
            final int first = i * subRows;
            final int n = Math.min(subRows, rows - first);
            final int subLength = n * width;
            System.arraycopy(raw, first * width, subRaw, 0, subLength);
            final byte[] t = encoding.transform().encode(subRaw, subLength, type, transformed, scratch);
            end += encoding.codec().compress(t, 0, subLength + encoding.transform().overhead(), stored, frames + end, encoding.level());
            if (frames > 0) {
                table.putInt(4 * i, end);
            }
            if (frames > 4 * k) {
                table.putLong(4 * k + 8 * i, bits(rawBuffer, width, first));
            }
        }
        return frames + end;
    }

    /** Most bytes a version 3 block of at most {@code blockRows} rows stores: its table and each sub-block's bound. */
    static long maxStoredLength(final ColumnEncoding encoding, final int width, final int blockRows, final int subRows) {
        final int k = ColumnFileDescriptor.subBlocks(blockRows, subRows);
        return 12L * k + (long) k * encoding.codec().maxCompressedLength(subRows * width + encoding.transform().overhead());
    }

    /**
     * Plain files only: writes little-endian values ({@code src}'s remaining bytes, whole values)
     * at row {@code row} of the value region, where a plain file keeps row r at
     * {@code HEADER_LENGTH + r * width}. Rows may come in any order; {@link #finishPlain} then
     * indexes them. Not mixed with {@link #writeBlock}.
     */
    public void writeValuesAt(final ByteBuffer src, final long row) throws IOException {
        if (direct != null || !encoding.isPlain() || blocksWritten > 0 || row < 0
            || row + src.remaining() / width > rowCount) {
            throw new IllegalStateException("positional writes are for plain files, inside the rows [file=" + path + ", row=" + row
                + ", values=" + src.remaining() / width + ", rows=" + rowCount + "]");
        }
        writeFully(src, HEADER_LENGTH + row * width);
    }

    /**
     * Plain files only, once every row has been written with {@link #writeValuesAt}: indexes the
     * value region as blocks of {@code blockSizes[0..blockCount)} rows whose CRC32C the caller
     * computed ({@code blockCrcs}), with their summaries ({@code blockSummaries}, four a block as
     * {@link #summarize(ColumnType, UnsafeBuffer, int, long[], int)} gives them), then writes the
     * index and header and forces the file as {@link #finish()} does. Returns the bytes stored for
     * values.
     */
    public long finishPlain(final int[] blockSizes, final int[] blockCrcs, final long[] blockSummaries, final int blockCount)
        throws IOException {
        long row = 0;
        for (int b = 0; b < blockCount; b++) {
            final int rows = blockSizes[b];
            if (rows <= 0 || rows > blockRows) {
                throw new IllegalStateException("bad block [file=" + path + ", block=" + b + ", rows=" + rows + "]");
            }
            index(HEADER_LENGTH + row * width, rows * width, blockCrcs[b], rows);
            for (int k = 0; k < 4; k++) {
                index.putLong(blockSummaries[4 * b + k]);
            }
            row += rows;
        }
        position = HEADER_LENGTH + row * width;
        if (whole != null) {
            direct.commit(whole.capacity());
        }
        return finish();
    }

    private void index(final long offset, final int length, final int checksum, final int rows) {
        if (index.remaining() < INDEX_ENTRY_LENGTH + 4) {
            final ByteBuffer bigger = ByteBuffer.allocate(index.capacity() * 2).order(ByteOrder.LITTLE_ENDIAN);
            index.flip();
            bigger.put(index);
            index = bigger;
        }
        index.putLong(offset).putInt(length).putInt(checksum).putInt((int) rowsWritten).putInt(rows);
        rowsWritten += rows;
        blocksWritten++;
    }

    /**
     * Appends the block summary of the first {@code rows} values of {@code block} to {@code index}
     * (see {@link #summarize(ColumnType, UnsafeBuffer, int, long[], int)}).
     */
    private void summarize(final ColumnType type, final UnsafeBuffer block, final int rows, final ByteBuffer index) {
        summarize(type, block, rows, summary, 0);
        index.putLong(summary[0]).putLong(summary[1]).putLong(summary[2]).putLong(summary[3]);
    }

    /**
     * The block summary of the first {@code rows} values of {@code block}, into {@code out[at..at+4)}:
     * first, last, min and max, each the value's bits sign-extended to 8 bytes (a float's bits as
     * an int, a double's as a long); min and max by the type's order (signed integers, floats by
     * value with NaN ignored: a block of only NaN has NaN for both).
     */
    public static void summarize(final ColumnType type, final UnsafeBuffer block, final int rows, final long[] out, final int at) {
        final int w = type.width();
        if (rows < 1 || (long) rows * w > block.capacity()) {
            throw new IndexOutOfBoundsException("summary outside the block [rows=" + rows + ", bytes=" + block.capacity() + "]");
        }
        final byte[] array = block.byteArray();
        final long base = block.addressOffset();
        long min;
        long max;
        // one loop per width over raw memory, so that each compiles to a plain reduction (this runs over every value written)
        switch (type) {
            case FLOAT64 -> {
                double lo = Double.POSITIVE_INFINITY;
                double hi = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < rows; i++) {
                    final double v = UnsafeApi.getDouble(array, base + ((long) i << 3));
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                if (lo > hi) { // no value compared: only NaN
                    lo = Double.NaN;
                    hi = Double.NaN;
                }
                min = Double.doubleToRawLongBits(lo);
                max = Double.doubleToRawLongBits(hi);
            }
            case FLOAT32 -> {
                float lo = Float.POSITIVE_INFINITY;
                float hi = Float.NEGATIVE_INFINITY;
                for (int i = 0; i < rows; i++) {
                    final float v = UnsafeApi.getFloat(array, base + ((long) i << 2));
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                if (lo > hi) {
                    lo = Float.NaN;
                    hi = Float.NaN;
                }
                min = Float.floatToRawIntBits(lo);
                max = Float.floatToRawIntBits(hi);
            }
            default -> {
                switch (w) {
                    case 8 -> {
                        long lo = Long.MAX_VALUE;
                        long hi = Long.MIN_VALUE;
                        for (int i = 0; i < rows; i++) {
                            final long v = UnsafeApi.getLong(array, base + ((long) i << 3));
                            lo = Math.min(lo, v);
                            hi = Math.max(hi, v);
                        }
                        min = lo;
                        max = hi;
                    }
                    case 4 -> {
                        int lo = Integer.MAX_VALUE;
                        int hi = Integer.MIN_VALUE;
                        for (int i = 0; i < rows; i++) {
                            final int v = UnsafeApi.getInt(array, base + ((long) i << 2));
                            lo = Math.min(lo, v);
                            hi = Math.max(hi, v);
                        }
                        min = lo;
                        max = hi;
                    }
                    case 2 -> {
                        int lo = Short.MAX_VALUE;
                        int hi = Short.MIN_VALUE;
                        for (int i = 0; i < rows; i++) {
                            final int v = UnsafeApi.getShort(array, base + ((long) i << 1));
                            lo = Math.min(lo, v);
                            hi = Math.max(hi, v);
                        }
                        min = lo;
                        max = hi;
                    }
                    default -> {
                        int lo = Byte.MAX_VALUE;
                        int hi = Byte.MIN_VALUE;
                        for (int i = 0; i < rows; i++) {
                            final int v = UnsafeApi.getByte(array, base + i);
                            lo = Math.min(lo, v);
                            hi = Math.max(hi, v);
                        }
                        min = lo;
                        max = hi;
                    }
                }
            }
        }
        out[at] = bits(block, w, 0);
        out[at + 1] = bits(block, w, rows - 1);
        out[at + 2] = min;
        out[at + 3] = max;
    }

    /**
     * Folds the summary {@code part[p..p+4)} of the rows that follow those summarized in
     * {@code acc[a..a+4)} into it: the first value stays, the last is the part's, min and max by the
     * type's order as {@link #summarize(ColumnType, UnsafeBuffer, int, long[], int)} takes them.
     */
    public static void foldSummary(final ColumnType type, final long[] acc, final int a, final long[] part, final int p) {
        acc[a + 1] = part[p + 1];
        switch (type) {
            case FLOAT64 -> {
                final double lo = Double.longBitsToDouble(acc[a + 2]);
                final double hi = Double.longBitsToDouble(acc[a + 3]);
                final double plo = Double.longBitsToDouble(part[p + 2]);
                final double phi = Double.longBitsToDouble(part[p + 3]);
                if (plo < lo || lo != lo) {
                    acc[a + 2] = part[p + 2];
                }
                if (phi > hi || hi != hi) {
                    acc[a + 3] = part[p + 3];
                }
            }
            case FLOAT32 -> {
                final float lo = Float.intBitsToFloat((int) acc[a + 2]);
                final float hi = Float.intBitsToFloat((int) acc[a + 3]);
                final float plo = Float.intBitsToFloat((int) part[p + 2]);
                final float phi = Float.intBitsToFloat((int) part[p + 3]);
                if (plo < lo || lo != lo) {
                    acc[a + 2] = part[p + 2];
                }
                if (phi > hi || hi != hi) {
                    acc[a + 3] = part[p + 3];
                }
            }
            default -> {
                acc[a + 2] = Math.min(acc[a + 2], part[p + 2]);
                acc[a + 3] = Math.max(acc[a + 3], part[p + 3]);
            }
        }
    }

    private static long bits(final UnsafeBuffer block, final int width, final int i) {
        return switch (width) {
            case 8 -> block.getLong(i * 8);
            case 4 -> block.getInt(i * 4);
            case 2 -> block.getShort(i * 2);
            default -> block.getByte(i);
        };
    }

    /** Writes the index and header and forces the file; returns the bytes stored for values. */
    public long finish() throws IOException {
        final int blockCount = blocksWritten;
        if (rowsWritten != rowCount) {
            throw new IllegalStateException("column incomplete [file=" + path + ", rows=" + rowsWritten + ", expected=" + rowCount + "]");
        }
        final long indexOffset = position;
        crc.reset();
        crc.update(index.array(), 0, blockCount * INDEX_ENTRY_LENGTH);
        index.putInt((int) crc.getValue());
        index.flip();
        if (direct != null) {
            direct.append(index.array(), 0, index.limit());
        } else {
            writeFully(index, indexOffset);
        }
        final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        header.put(ColumnFileDescriptor.MAGIC)
            .putInt(subRows > 0 ? ColumnFileDescriptor.VERSION : ColumnFileDescriptor.VERSION_PLAIN)
            .put((byte) type.code())
            .put((byte) encoding.transform().code())
            .put((byte) encoding.codec().code())
            .put((byte) encoding.level())
            .putInt(blockRows)
            .putInt(blockCount)
            .putLong(rowCount)
            .putLong(indexOffset)
            .putLong(indexOffset - HEADER_LENGTH)
            .putInt(subRows);
        crc.reset();
        crc.update(header.array(), 0, ColumnFileDescriptor.HEADER_CRC_OFFSET);
        header.putInt(ColumnFileDescriptor.HEADER_CRC_OFFSET, (int) crc.getValue());
        header.clear();
        if (direct != null) {
            direct.finish(header.array());
        } else {
            writeFully(header, 0);
        }
        if (sync) {
            channel.force(true);
        }
        finished = true;
        return indexOffset - HEADER_LENGTH;
    }

    /** Bytes of the whole file once finished. */
    public long fileBytes() {
        return position + (long) blocksWritten * INDEX_ENTRY_LENGTH + 4;
    }

    private void writeFully(final ByteBuffer src, final long at) throws IOException {
        long p = at;
        while (src.hasRemaining()) {
            p += channel.write(src, p);
        }
    }

    /** Closes the channel; a file not {@link #finish() finished} is left incomplete for the caller to delete. */
    @Override
    public void close() throws IOException {
        try {
            if (direct != null) {
                direct.close();
            }
        } finally {
            channel.close();
        }
    }

    boolean finished() {
        return finished;
    }
}
