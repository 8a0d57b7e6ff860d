package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static io.jtick.core.hdb.format.ColumnFileDescriptor.HEADER_LENGTH;

/**
 * A column file's header and block index, read and checked when the file is opened (layout in
 * {@link ColumnFileDescriptor}): magic, header checksum, version, type, transform, codec and level,
 * the counts against the file's length and the table metadata, then the block index (its
 * checksum, and each entry in place: rows and offsets contiguous, lengths possible for the
 * encoding). Anything wrong raises {@link CorruptPartitionException} naming the file and, for an
 * index entry, the block. {@link ColumnFile} reads the values with what this holds.
 */
final class ColumnFileHeader {
    /** Longs a block's summary takes in the version 2 index: first, last, min, max. */
    static final int SUMMARY_FIELDS = 4;

    final int version;
    final ColumnType type;
    final ColumnEncoding encoding;
    final int blockRows;
    final int blockCount;
    final int rows;
    /** Bytes of the values as stored, without header and index. */
    final long storedBytes;
    /** Bytes of the whole file. */
    final long fileBytes;
    /** Where the block index starts: the end of the values region (header + blocks). */
    final long indexOffset;
    final long[] offsets;
    final int[] lengths;
    final int[] crcs;
    /** First row of each block, plus the row count at the end. */
    final int[] firstRows;
    /** {@link #SUMMARY_FIELDS} per block for version 2 files, null for version 1. */
    final long[] summary;
    /** Rows per sub-block of each encoded block (version 3), 0 when blocks are not cut into sub-blocks. */
    final int subRows;
    /** True when block b starts at row b × {@link #blockRows}, so a row's block is a division. */
    final boolean uniform;

    private ColumnFileHeader(final int version, final ColumnType type, final ColumnEncoding encoding, final int blockRows,
                             final int blockCount, final int rows, final long storedBytes, final long fileBytes, final long indexOffset,
                             final long[] offsets, final int[] lengths, final int[] crcs, final int[] firstRows, final long[] summary,
                             final int subRows) {
        this.version = version;
        this.subRows = subRows;
        this.type = type;
        this.encoding = encoding;
        this.blockRows = blockRows;
        this.blockCount = blockCount;
        this.rows = rows;
        this.storedBytes = storedBytes;
        this.fileBytes = fileBytes;
        this.indexOffset = indexOffset;
        this.offsets = offsets;
        this.lengths = lengths;
        this.crcs = crcs;
        this.firstRows = firstRows;
        this.summary = summary;
        boolean u = true;
        for (int b = 0; b < blockCount && u; b++) {
            u = firstRows[b] == b * blockRows;
        }
        this.uniform = u;
    }

    /** The block holding {@code row}. */
    int blockOf(final int row) {
        if (uniform) {
            return row / blockRows;
        }
        int lo = 0;
        int hi = blockCount - 1;
        while (lo < hi) {
            final int mid = (lo + hi + 1) >>> 1;
            if (firstRows[mid] <= row) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    /**
     * Of blocks {@code [from, to)} of a version 2+ file whose values are non-decreasing from block to
     * block, the first whose last value (its summary) is at least {@code t}, or {@code to}.
     */
    int firstBlockReaching(final int from, final int to, final long t) {
        int a = from;
        int z = to;
        while (a < z) {
            final int mid = (a + z) >>> 1;
            if (summary[mid * SUMMARY_FIELDS + 1] < t) {
                a = mid + 1;
            } else {
                z = mid;
            }
        }
        return a;
    }

    /**
     * Reads and checks the header and block index of the file open as {@code channel}; {@code expectedType}
     * (or null) and {@code expectedRows} (or -1) are what the table metadata says.
     *
     * @throws CorruptPartitionException when the header, index or file length is wrong
     */
    static ColumnFileHeader read(final Path path, final FileChannel channel, final ColumnType expectedType, final int expectedRows)
        throws IOException {
        final long size = channel.size();
        if (size < HEADER_LENGTH + 4) {
            throw new CorruptPartitionException(path, -1, "column file too short [bytes=" + size + "]");
        }
        final ByteBuffer header = ByteBuffer.allocate(HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        readFully(channel, header, 0);
        final byte[] magic = Arrays.copyOf(header.array(), 8);
        if (!Arrays.equals(magic, ColumnFileDescriptor.MAGIC)) {
            throw new CorruptPartitionException(path, -1, "not a jtick column file (bad magic)");
        }
        final CRC32C crc = new CRC32C();
        crc.update(header.array(), 0, ColumnFileDescriptor.HEADER_CRC_OFFSET);
        if ((int) crc.getValue() != header.getInt(ColumnFileDescriptor.HEADER_CRC_OFFSET)) {
            throw new CorruptPartitionException(path, -1, "header checksum mismatch");
        }
        final int version = header.getInt(ColumnFileDescriptor.VERSION_OFFSET);
        if (version < ColumnFileDescriptor.MIN_VERSION || version > ColumnFileDescriptor.VERSION) {
            throw new CorruptPartitionException(path, -1, "unsupported column file version [version=" + version
                + ", supported=" + ColumnFileDescriptor.MIN_VERSION + ".." + ColumnFileDescriptor.VERSION + "]");
        }
        final int entryLength = ColumnFileDescriptor.indexEntryLength(version);
        final ColumnType type = ColumnType.fromCode(header.get(ColumnFileDescriptor.TYPE_OFFSET));
        final Transform transform = Transform.fromCode(header.get(ColumnFileDescriptor.TRANSFORM_OFFSET));
        final Codec codec = Codec.fromCode(header.get(ColumnFileDescriptor.CODEC_OFFSET));
        if (type == null || transform == null || codec == null) {
            throw new CorruptPartitionException(path, -1, "unknown type, transform or codec code in header");
        }
        if (expectedType != null && type != expectedType) {
            throw new CorruptPartitionException(path, -1, "column type differs from the table metadata [file=" + type.typeName()
                + ", meta=" + expectedType.typeName() + "]");
        }
        final ColumnEncoding encoding;
        try {
            encoding = new ColumnEncoding(transform, codec, header.get(ColumnFileDescriptor.LEVEL_OFFSET));
        } catch (final IllegalArgumentException e) {
            throw new CorruptPartitionException(path, -1, "bad encoding in header: " + e.getMessage());
        }
        final int blockRows = header.getInt(ColumnFileDescriptor.BLOCK_ROWS_OFFSET);
        final int blockCount = header.getInt(ColumnFileDescriptor.BLOCK_COUNT_OFFSET);
        final long rows = header.getLong(ColumnFileDescriptor.ROW_COUNT_OFFSET);
        final long indexOffset = header.getLong(ColumnFileDescriptor.INDEX_OFFSET_OFFSET);
        final long stored = header.getLong(ColumnFileDescriptor.STORED_BYTES_OFFSET);
        final int subRows = version >= 3 ? header.getInt(ColumnFileDescriptor.SUB_ROWS_OFFSET) : 0;
        if (subRows < 0 || subRows > 0 && codec == Codec.NONE || subRows > (1 << 24) / type.width()) {
            throw new CorruptPartitionException(path, -1, "bad sub-block rows in header [subRows=" + subRows + ", codec="
                + codec.codecName() + "]");
        }
        if (blockRows <= 0 || blockRows > Integer.MAX_VALUE / type.width() || rows < 0 || rows > Integer.MAX_VALUE
            || blockCount < (rows + blockRows - 1) / blockRows || blockCount > Math.max(rows, 0)
            || indexOffset != HEADER_LENGTH + stored
            || indexOffset + (long) blockCount * entryLength + 4 != size) {
            throw new CorruptPartitionException(path, -1, "header does not match the file [rows=" + rows + ", blocks=" + blockCount
                + ", indexOffset=" + indexOffset + ", bytes=" + size + "]");
        }
        final long maxStored = subRows > 0 ? ColumnFileWriter.maxStoredLength(encoding, type.width(), blockRows, subRows)
            : codec.maxCompressedLength(blockRows * type.width() + transform.overhead());
        if (expectedRows >= 0 && rows != expectedRows) {
            throw new CorruptPartitionException(path, -1, "row count differs from the table metadata [file=" + rows
                + ", meta=" + expectedRows + "]");
        }
        final ByteBuffer index = ByteBuffer.allocate(blockCount * entryLength + 4).order(ByteOrder.LITTLE_ENDIAN);
        readFully(channel, index, indexOffset);
        crc.reset();
        crc.update(index.array(), 0, blockCount * entryLength);
        if ((int) crc.getValue() != index.getInt(blockCount * entryLength)) {
            throw new CorruptPartitionException(path, -1, "block index checksum mismatch");
        }
        final long[] offsets = new long[blockCount];
        final int[] lengths = new int[blockCount];
        final int[] crcs = new int[blockCount];
        final int[] firstRows = new int[blockCount + 1];
        final long[] summary = version >= 2 ? new long[blockCount * SUMMARY_FIELDS] : null;
        long expectedOffset = HEADER_LENGTH;
        int expectedRow = 0;
        for (int b = 0; b < blockCount; b++) {
            offsets[b] = index.getLong(b * entryLength);
            lengths[b] = index.getInt(b * entryLength + 8);
            crcs[b] = index.getInt(b * entryLength + 12);
            firstRows[b] = index.getInt(b * entryLength + 16);
            final int blockRowCount = index.getInt(b * entryLength + 20);
            for (int k = 0; summary != null && k < SUMMARY_FIELDS; k++) {
                summary[b * SUMMARY_FIELDS + k] = index.getLong(b * entryLength + ColumnFileDescriptor.SUMMARY_OFFSET + 8 * k);
            }
            final int rawLength = blockRowCount * type.width();
            if (firstRows[b] != expectedRow || blockRowCount <= 0 || blockRowCount > blockRows) {
                throw new CorruptPartitionException(path, b, "block index rows out of place [firstRow=" + firstRows[b]
                    + ", rows=" + blockRowCount + "]");
            }
            expectedRow += blockRowCount;
            if (offsets[b] != expectedOffset || lengths[b] < 0 || encoding.isPlain() && lengths[b] != rawLength
                || lengths[b] > maxStored || subRows > 0
                && lengths[b] < ColumnFileDescriptor.subTableBytes(ColumnFileDescriptor.subBlocks(blockRowCount, subRows), type)) {
                throw new CorruptPartitionException(path, b, "block index entry out of place [offset=" + offsets[b]
                    + ", length=" + lengths[b] + "]");
            }
            expectedOffset += lengths[b];
        }
        if (expectedRow != rows) {
            throw new CorruptPartitionException(path, -1, "blocks do not cover the rows [rows=" + rows + ", covered="
                + expectedRow + "]");
        }
        firstRows[blockCount] = (int) rows;
        return new ColumnFileHeader(version, type, encoding, blockRows, blockCount, (int) rows, stored, size, indexOffset, offsets,
            lengths, crcs, firstRows, summary, subRows);
    }

    static void readFully(final FileChannel channel, final ByteBuffer dst, final long at) throws IOException {
        long p = at;
        while (dst.hasRemaining()) {
            final int n = channel.read(dst, p);
            if (n < 0) {
                throw new IOException("unexpected end of file");
            }
            p += n;
        }
    }
}
