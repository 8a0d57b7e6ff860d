package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;
import org.agrona.IoUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;

import static io.jtick.core.hdb.format.ColumnFileDescriptor.HEADER_LENGTH;

/**
 * Read access to one column file (layout in {@link ColumnFileDescriptor}; opened and checked by
 * {@link ColumnFileHeader}). Thread-safe.
 *
 * <p>Files are memory-mapped. Plain files (no transform, no codec) are read in place; each block's
 * checksum is verified the first time any thread touches it. An encoded block is checksummed and
 * decompressed from the map itself (positional reads into a direct buffer past 2 GiB), and
 * un-transformed ({@link BlockDecoder}) straight into where the values go ({@link EncodedBlocks}): a read that covers
 * whole blocks decodes into the caller's array, a read of part of a block decodes the block into
 * the reader's own {@link DecodedBlock} (the engine keeps one per column chunk) or, for point and
 * scattered reads, into the process's bounded {@link DecodedBlockCache}. Either way a block whose
 * checksum, length or encoding is wrong raises {@link CorruptPartitionException} (wrapped in
 * {@link UncheckedIOException} from the getters) naming the file and block; its bytes are never returned.
 *
 * <p>{@link #close()} unmaps the file: callers make sure no reader is using it (the owning
 * {@link PartitionTable} is reference counted for this).
 */
public final class ColumnFile implements AutoCloseable {
    private static final AtomicLong IDS = new AtomicLong();
    private static final int SUMMARY_FIELDS = ColumnFileHeader.SUMMARY_FIELDS;
    private static final int FIRST = 0;
    private static final int LAST = 1;

    private final long id = IDS.incrementAndGet();
    private final Path path;
    private final ColumnType type;
    private final ColumnEncoding encoding;
    private final int width;
    private final int blockRows;
    private final int blockCount;
    private final int rowCount;
    private final long storedBytes;
    private final long fileBytes;
    private final long[] blockOffsets;
    /** First row of each block, plus rowCount at the end. */
    private final int[] blockFirstRow;
    /**
     * Per block (version 2 files): first, last, min and max value, the value's bits sign-extended
     * to a long ({@link ColumnFileWriter#summarize}); from the checksummed index. Null for version 1.
     */
    private final long[] summary;
    private final int version;
    /** The header and block index: where each row's block is ({@link ColumnFileHeader#blockOf}). */
    private final ColumnFileHeader header;
    private final FileChannel channel;
    /** The values region (header + blocks) mapped read-only; null for empty files and encoded files over 2 GiB. */
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer plain;
    /** Unsafe offset of element 0 in this column's typed array ({@link ColumnType#newArray}). */
    private final long valuesBase;
    /** The encoded blocks' decoding and where their values go; unused by a plain file. */
    private final EncodedBlocks encoded;
    /** The blocks' checksums: a plain file's checked at first touch, every block by {@link #verify} and {@link #preload}. */
    private final BlockChecks checks;
    private volatile boolean closed;

    private ColumnFile(final Path path, final ColumnFileHeader h, final FileChannel channel, final MappedByteBuffer mapped) {
        this.summary = h.summary;
        this.version = h.version;
        this.path = path;
        this.type = h.type;
        this.encoding = h.encoding;
        this.width = type.width();
        this.blockRows = h.blockRows;
        this.blockCount = h.blockCount;
        this.rowCount = h.rows;
        this.storedBytes = h.storedBytes;
        this.fileBytes = h.fileBytes;
        this.blockOffsets = h.offsets;
        this.blockFirstRow = h.firstRows;
        this.header = h;
        this.channel = channel;
        this.mapped = mapped;
        this.plain = mapped == null || !encoding.isPlain() ? null : new UnsafeBuffer(mapped);
        this.valuesBase = UnsafeApi.arrayBaseOffset(type.newArray(0).getClass());
        this.encoded = new EncodedBlocks(id, path, h, channel, mapped, valuesBase);
        this.checks = new BlockChecks(path, h, mapped, plain != null, encoded, valuesBase);
    }

    /**
     * Opens a column file, checking its header and block index ({@link ColumnFileHeader}).
     *
     * @throws CorruptPartitionException when the header, index or file length is wrong
     */
    public static ColumnFile open(final Path path, final ColumnType expectedType, final int expectedRows) throws IOException {
        final FileChannel channel = FileChannel.open(path, StandardOpenOption.READ);
        try {
            final ColumnFileHeader h = ColumnFileHeader.read(path, channel, expectedType, expectedRows);
            if (h.encoding.isPlain() && h.indexOffset > Integer.MAX_VALUE) {
                throw new IOException("plain column file too large to map (limit 2 GiB; write it with a codec) [file=" + path
                    + ", bytes=" + h.indexOffset + "]");
            }
            final MappedByteBuffer map = h.rows > 0 && h.indexOffset <= Integer.MAX_VALUE
                ? channel.map(FileChannel.MapMode.READ_ONLY, 0, h.indexOffset) : null;
            return new ColumnFile(path, h, channel, map);
        } catch (final IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The block holding {@code row}. */
    public int blockOf(final int row) {
        return header.blockOf(row);
    }

    /** First row of a block. */
    public int firstRow(final int block) {
        return blockFirstRow[block];
    }

    /** Rows in a block. */
    public int rowsIn(final int block) {
        return blockFirstRow[block + 1] - blockFirstRow[block];
    }

    public Path path() {
        return path;
    }

    public ColumnType type() {
        return type;
    }

    public ColumnEncoding encoding() {
        return encoding;
    }

    public int rowCount() {
        return rowCount;
    }

    public int blockCount() {
        return blockCount;
    }

    public int blockRows() {
        return blockRows;
    }

    /** Bytes of the values as stored (compressed), without header and index. */
    public long storedBytes() {
        return storedBytes;
    }

    /** Bytes of the values uncompressed. */
    public long rawBytes() {
        return (long) rowCount * width;
    }

    /** Bytes of the whole file. */
    public long fileBytes() {
        return fileBytes;
    }

    /** True when the file is memory-mapped and read in place. */
    public boolean mapped() {
        return plain != null;
    }

    /**
     * Copies rows {@code [fromRow, fromRow + count)} as raw values into {@code dst} (a primitive
     * array of this column's width: long[]/double[] for 8 bytes, int[]/float[] for 4, short[] for 2,
     * byte[] for 1) starting at element {@code dstIndex}. Encoded blocks are copied from the
     * shared {@link DecodedBlockCache} when there; else a whole block decodes straight into
     * {@code dst}, part of a block its sub-blocks (version 3) or into this thread's own last block
     * (a sequential reader decodes each block once). A column small enough for the cache to keep
     * whole has a block decoded into the cache the second time it is read (a query asked again).
     */
    public void read(final int fromRow, final int count, final Object dst, final int dstIndex) {
        read(fromRow, count, dst, dstIndex, null);
    }

    /**
     * As {@link #read(int, int, Object, int)} for one reader that keeps {@code holder} from call to
     * call. Its first few blocks go through the shared cache (a small query asked again finds them
     * decoded); once it has read {@link DecodedBlock#SCAN_BLOCKS} blocks it is a scan, which the
     * cache would only churn: whole blocks then decode straight into {@code dst} and part blocks
     * into {@code holder} (each block once while the reader moves forward).
     */
    void read(final int fromRow, final int count, final Object dst, final int dstIndex, final DecodedBlock holder) {
        copy(fromRow, count, dst, UnsafeApi.arrayBaseOffset(dst.getClass()) + (long) dstIndex * width, holder);
    }

    /** As {@link #read(int, int, Object, int)} into memory at {@code address} (native byte order; a replay's decoded scratch). */
    public void readTo(final int fromRow, final int count, final long address) {
        copy(fromRow, count, null, address, null);
    }

    /**
     * Address of row 0 of a plain, mapped file (row r at + r × width, little-endian, until {@link #close()})
     * once rows {@code [fromRow, toRow)} are checksummed; else 0.
     */
    public long address(final int fromRow, final int toRow) {
        if (plain == null) {
            return 0;
        }
        checkOpen();
        for (int b = toRow > fromRow ? blockOf(fromRow) : 1, last = toRow > fromRow ? blockOf(toRow - 1) : 0; b <= last; b++) {
            checks.plain(b);
        }
        return plain.addressOffset() + HEADER_LENGTH;
    }

    private void copy(final int fromRow, final int count, final Object dst, final long dstBase, final DecodedBlock holder) {
        if (fromRow < 0 || count < 0 || fromRow > rowCount - count) {
            throw new IndexOutOfBoundsException("rows outside column [file=" + path + ", from=" + fromRow + ", count=" + count
                + ", rows=" + rowCount + "]");
        }
        checkOpen();
        int row = fromRow;
        long at = dstBase;
        final int end = fromRow + count;
        while (row < end) {
            final int block = blockOf(row);
            final int inBlock = row - blockFirstRow[block];
            final int rows = rowsIn(block);
            final int n = Math.min(end - row, rows - inBlock);
            if (plain != null) {
                checks.plain(block);
                UnsafeApi.copyMemory(null, plain.addressOffset() + HEADER_LENGTH + (long) row * width, dst, at, (long) n * width);
            } else {
                encoded.copy(block, inBlock, rows, n, dst, at, holder);
            }
            row += n;
            at += (long) n * width;
        }
    }

    /**
     * The decoded values of {@code block} for a read of its rows {@code [inBlock, inBlock + n)} by the reader of
     * {@code holder} ({@link EncodedBlocks#view}); sets {@code holder.viewFirstRow} to the row of element 0.
     */
    Object view(final int block, final int inBlock, final int n, final DecodedBlock holder) {
        return encoded.view(block, inBlock, n, holder);
    }

    /** True when a read of {@code length} rows within {@code block} decodes only their sub-blocks (version 3), so is read, not viewed. */
    boolean readsPart(final int block, final int length, final DecodedBlock holder) {
        return encoded != null && encoded.readsPart(block, length, holder);
    }

    /**
     * Copies the listed rows {@code rows[at..at+length)} (any order; ascending reads best) as raw
     * values into {@code dst} from element 0, typed as for {@link #read}. One block lookup (and, for
     * an encoded file, one cache probe) per run of rows in the same block, then one element copy per
     * row: cheaper than a {@link #read} per row when the rows are scattered (as-of matches).
     */
    public void gather(final int[] rows, final int at, final int length, final Object dst) {
        gather(rows, at, length, dst, null);
    }

    /** As {@link #gather(int[], int, int, Object)}, encoded blocks decoded into {@code holder} when it is not null. */
    void gather(final int[] rows, final int at, final int length, final Object dst, final DecodedBlock holder) {
        checkOpen();
        final long dstBase = UnsafeApi.arrayBaseOffset(dst.getClass());
        int i = 0;
        while (i < length) {
            final int first = rows[at + i];
            checkRow(first);
            final int block = blockOf(first);
            final int lo = blockFirstRow[block];
            final int hi = blockFirstRow[block + 1];
            int j = i + 1;
            while (j < length && rows[at + j] >= lo && rows[at + j] < hi) {
                j++;
            }
            final Object src;
            final long srcBase;
            if (plain != null) {
                checks.plain(block);
                src = null;
                srcBase = plain.addressOffset() + HEADER_LENGTH;
            } else {
                src = holder != null && holder.scanning() && !encoded.cachedWhole() ? encoded.load(block, holder).values
                    : encoded.cached(block).values;
                srcBase = valuesBase - (long) lo * width;
            }
            switch (width) {
                case 8:
                    for (int k = i; k < j; k++) {
                        UnsafeApi.putLong(dst, dstBase + (long) k * 8, UnsafeApi.getLong(src, srcBase + (long) rows[at + k] * 8));
                    }
                    break;
                case 4:
                    for (int k = i; k < j; k++) {
                        UnsafeApi.putInt(dst, dstBase + (long) k * 4, UnsafeApi.getInt(src, srcBase + (long) rows[at + k] * 4));
                    }
                    break;
                case 2:
                    for (int k = i; k < j; k++) {
                        UnsafeApi.putShort(dst, dstBase + (long) k * 2, UnsafeApi.getShort(src, srcBase + (long) rows[at + k] * 2));
                    }
                    break;
                default:
                    for (int k = i; k < j; k++) {
                        UnsafeApi.putByte(dst, dstBase + k, UnsafeApi.getByte(src, srcBase + rows[at + k]));
                    }
                    break;
            }
            i = j;
        }
    }

    /**
     * First row in {@code [from, to)} whose value (a long kind, non-decreasing over the range) is at
     * least {@code t}, or {@code to}. A plain file checksums the range's blocks once and probes the
     * map; an encoded one finds the block in its block index (version 2: each block's first and last
     * value) and probes within that one block through the shared cache (version 1: every probe
     * through the cache).
     */
    public int lowerBound(final int from, final int to, final long t) {
        if (from < 0 || to > rowCount || from > to) {
            throw new IndexOutOfBoundsException("rows outside column [file=" + path + ", from=" + from + ", to=" + to
                + ", rows=" + rowCount + "]");
        }
        if (from == to) {
            return from;
        }
        if (width != 8) {
            throw new IllegalStateException("lowerBound needs a long column [file=" + path + ", type=" + type.typeName() + "]");
        }
        int lo = from;
        int hi = to;
        if (plain == null) {
            checkOpen();
            if (summary != null) {
                // the block index narrows the search to one block: blocks that end within the range
                // have their last value in it, non-decreasing from block to block
                final int firstBlock = blockOf(from);
                final int lastBlock = blockOf(to - 1);
                final int whole = blockFirstRow[lastBlock + 1] <= to ? lastBlock + 1 : lastBlock;
                final int a = header.firstBlockReaching(firstBlock, whole, t);
                if (a > lastBlock) {
                    return to;
                }
                lo = Math.max(from, blockFirstRow[a]);
                hi = Math.min(to, blockFirstRow[a + 1]);
                if (lo == blockFirstRow[a] && summary[a * SUMMARY_FIELDS + FIRST] >= t) {
                    return lo;
                }
            }
            if (encoded.partial() && (type == ColumnType.TIMESTAMP || type == ColumnType.INT64)) {
                return encoded.lowerBound(blockOf(lo), lo, hi, t);
            }
            while (lo < hi) {
                final int mid = (lo + hi) >>> 1;
                if (getLong(mid) < t) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
        checkOpen();
        final int firstBlock = blockOf(from);
        final int lastBlock = blockOf(to - 1);
        final boolean few = lastBlock - firstBlock < 4;
        for (int b = firstBlock; few && b <= lastBlock; b++) {
            checks.plain(b);
        }
        final long base = plain.addressOffset() + HEADER_LENGTH;
        if (few) {
            return TimeSearch.lowerBound(null, base, lo, hi, t);
        }
        while (lo < hi) {
            final int mid = (lo + hi) >>> 1;
            checks.plain(blockOf(mid));
            if (UnsafeApi.getLong(null, base + ((long) mid << 3)) < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    public long getLong(final int row) {
        if (plain != null) {
            return plain.getLong(plainIndex(row), ByteOrder.LITTLE_ENDIAN);
        }
        final int s = summarySlot(row);
        if (s >= 0) {
            return summary[s];
        }
        final DecodedBlockCache.Entry e = cachedRow(row);
        return UnsafeApi.getLong(e.values, valuesBase + (long) (row - e.firstRow) * width);
    }

    public double getDouble(final int row) {
        if (plain != null) {
            return plain.getDouble(plainIndex(row), ByteOrder.LITTLE_ENDIAN);
        }
        final int s = summarySlot(row);
        if (s >= 0) {
            return Double.longBitsToDouble(summary[s]);
        }
        final DecodedBlockCache.Entry e = cachedRow(row);
        return UnsafeApi.getDouble(e.values, valuesBase + (long) (row - e.firstRow) * width);
    }

    public int getInt(final int row) {
        if (plain != null) {
            return plain.getInt(plainIndex(row), ByteOrder.LITTLE_ENDIAN);
        }
        final int s = summarySlot(row);
        if (s >= 0) {
            return (int) summary[s];
        }
        final DecodedBlockCache.Entry e = cachedRow(row);
        return UnsafeApi.getInt(e.values, valuesBase + (long) (row - e.firstRow) * width);
    }

    public float getFloat(final int row) {
        if (plain != null) {
            return plain.getFloat(plainIndex(row), ByteOrder.LITTLE_ENDIAN);
        }
        final int s = summarySlot(row);
        if (s >= 0) {
            return Float.intBitsToFloat((int) summary[s]);
        }
        final DecodedBlockCache.Entry e = cachedRow(row);
        return UnsafeApi.getFloat(e.values, valuesBase + (long) (row - e.firstRow) * width);
    }

    public short getShort(final int row) {
        if (plain != null) {
            return plain.getShort(plainIndex(row), ByteOrder.LITTLE_ENDIAN);
        }
        final int s = summarySlot(row);
        if (s >= 0) {
            return (short) summary[s];
        }
        final DecodedBlockCache.Entry e = cachedRow(row);
        return UnsafeApi.getShort(e.values, valuesBase + (long) (row - e.firstRow) * width);
    }

    public byte getByte(final int row) {
        if (plain != null) {
            return plain.getByte(plainIndex(row));
        }
        final int s = summarySlot(row);
        if (s >= 0) {
            return (byte) summary[s];
        }
        final DecodedBlockCache.Entry e = cachedRow(row);
        return UnsafeApi.getByte(e.values, valuesBase + (long) (row - e.firstRow) * width);
    }

    /**
     * Where the index's block summary holds {@code row}'s value (the first or last row of its block,
     * version 2), or -1: such a value is read without decoding the block.
     */
    private int summarySlot(final int row) {
        if (summary == null) {
            return -1;
        }
        checkOpen();
        checkRow(row);
        final int b = blockOf(row);
        if (row == blockFirstRow[b + 1] - 1) {
            return b * SUMMARY_FIELDS + LAST;
        }
        return row == blockFirstRow[b] ? b * SUMMARY_FIELDS + FIRST : -1;
    }

    /** The column file format version (docs/storage-format.md): 2 has block summaries in the index. */
    public int version() {
        return version;
    }

    /**
     * Block {@code block}'s first, last, smallest or largest value ({@code field} 0..3) as its bits
     * sign-extended to a long (a double's raw bits, a float's as an int); version 2 files only.
     */
    long blockSummary(final int block, final int field) {
        if (summary == null) {
            throw new IllegalStateException("no block summary in a version 1 file [file=" + path + "]");
        }
        return summary[block * SUMMARY_FIELDS + field];
    }

    private int plainIndex(final int row) {
        checkOpen();
        checkRow(row);
        checks.plain(blockOf(row));
        return HEADER_LENGTH + row * width;
    }

    private void checkRow(final int row) {
        if (row < 0 || row >= rowCount) {
            throw new IndexOutOfBoundsException("row outside column [file=" + path + ", row=" + row + ", rows=" + rowCount + "]");
        }
    }

    private DecodedBlockCache.Entry cachedRow(final int row) {
        checkOpen();
        checkRow(row);
        return encoded.cached(blockOf(row));
    }

    /**
     * Empties the process's {@link DecodedBlockCache} and this thread's last part block (benchmarks and
     * the compression study: every run decodes what it reads).
     */
    public static void clearDecodedCache() {
        DecodedBlockCache.shared().clear();
        EncodedBlocks.clearThreadBlock();
    }

    /** Checks every block's checksum (and that encoded blocks decode); throws on the first bad one. */
    public void verify() throws CorruptPartitionException {
        checkOpen();
        checks.verifyAll();
    }

    /**
     * Reads every stored block once ahead of queries (the HDB's preload of the newest days): each block
     * is checksummed, so a mapped file's bytes are in this process's page tables and its blocks marked
     * verified, and a first read pays for neither. An encoded column that the shared {@link DecodedBlockCache}
     * keeps whole ({@link DecodedBlockCache#keepsWhole}) is decoded into it when the cache has room for all
     * of it beside what it holds, as a repeated query would leave it; else it is only checksummed (a
     * version 2 encoded file, which has no sub-blocks, is checksummed again at each read: for it this only
     * touches the pages). A file past 2 GiB (read positionally, checksummed at each read) is left alone.
     *
     * @return stored bytes read
     * @throws CorruptPartitionException on the first block whose checksum is wrong or that does not decode
     */
    public long preload() throws CorruptPartitionException {
        checkOpen();
        return checks.preload();
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("column file closed [file=" + path + "]");
        }
    }

    int width() {
        return width;
    }

    /** File offset of a block's stored bytes. */
    long blockOffset(final int block) {
        return blockOffsets[block];
    }

    long id() {
        return id;
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        encoded.close();
        if (mapped != null) {
            IoUtil.unmap(mapped);
        }
        channel.close();
    }

}
