package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;

import java.nio.charset.StandardCharsets;

/**
 * Layout of a column file (little-endian; docs/storage-format.md):
 * <pre>
 *  0  magic        8  "JTICKCOL"
 *  8  version      4  {@link #VERSION}
 * 12  type         1  column type code
 * 13  transform    1  {@link Transform#code()}
 * 14  codec        1  {@link Codec#code()}
 * 15  level        1  codec level (signed)
 * 16  blockRows    4  most rows a block holds (blocks may hold fewer: they are cut at sym boundaries)
 * 20  blockCount   4
 * 24  rowCount     8
 * 32  indexOffset  8  where the block index starts
 * 40  storedBytes  8  sum of stored block lengths
 * 48  subRows      4  version 3: rows per sub-block of an encoded block (see below); 0 before
 * 52  reserved     8
 * 60  headerCrc    4  CRC32C of bytes 0..59
 * 64  blocks          stored blocks, back to back (plain files: the values themselves, row r at 64 + r * width)
 *     index           per block: offset 8, storedLength 4, crc32c 4 (of the stored bytes), firstRow 4, rows 4,
 *                     and from version 2 the block summary: first 8, last 8, min 8, max 8 (each the value's
 *                     bits sign-extended to 8 bytes; min/max by the type's order, NaN ignored); then CRC32C
 *                     of the index 4
 * </pre>
 * Version 3 (written for lz4 and snappy columns; plain and zstd files stay version 2) has the version 2 index, and
 * each stored block is cut into sub-blocks of {@code subRows} rows (the last may hold fewer), each
 * transformed and compressed on its own so that a read of a few rows decodes only their sub-blocks:
 * <pre>
 *  0      k x 4  end of each sub-block's compressed bytes, counted from the end of this table
 *  4k     k x 8  timestamp and int64 columns only: the first value of each sub-block
 *  T             the sub-blocks' compressed bytes, back to back (T = 4k, or 12k with first values)
 * </pre>
 * A block of one sub-block (k = 1) has no table. The block's CRC covers all of it. Version 1 files
 * (index entries of 24 bytes, no summary) and version 2 files read unchanged.
 */
final class ColumnFileDescriptor {
    static final byte[] MAGIC = "JTICKCOL".getBytes(StandardCharsets.US_ASCII);
    /** The newest version: encoded files are written in it, plain ones in {@link #VERSION_PLAIN}. */
    static final int VERSION = 3;
    /** The version of plain files (and of encoded files written without sub-blocks). */
    static final int VERSION_PLAIN = 2;
    /** The oldest version readers accept: version 1 has no block summaries. */
    static final int MIN_VERSION = 1;
    static final int HEADER_LENGTH = 64;
    static final int VERSION_OFFSET = 8;
    static final int TYPE_OFFSET = 12;
    static final int TRANSFORM_OFFSET = 13;
    static final int CODEC_OFFSET = 14;
    static final int LEVEL_OFFSET = 15;
    static final int BLOCK_ROWS_OFFSET = 16;
    static final int BLOCK_COUNT_OFFSET = 20;
    static final int ROW_COUNT_OFFSET = 24;
    static final int INDEX_OFFSET_OFFSET = 32;
    static final int STORED_BYTES_OFFSET = 40;
    static final int SUB_ROWS_OFFSET = 48;
    /**
     * Raw bytes of a sub-block in version 3, for lz4 and snappy (the warm tier): 2 KiB (256 rows of
     * 8-byte values) took a 200-row window a quarter less CPU than 4 KiB, scans no more, for files 1-3
     * points of raw larger (files written with 4 KiB read as before: the header says). zstd files keep
     * whole blocks (version 2): its frames of 8 KiB made scans ~30 % slower and windows no faster.
     */
    static final int SUB_BYTES = 2048;
    static final int HEADER_CRC_OFFSET = 60;
    /** Index entry of a version 1 file. */
    static final int INDEX_ENTRY_LENGTH_V1 = 24;
    /** Index entry of a version 2 file: the version 1 entry, then first, last, min, max. */
    static final int INDEX_ENTRY_LENGTH = 56;
    static final int SUMMARY_OFFSET = 24;

    /** Bytes of one block index entry in a file of {@code version}. */
    static int indexEntryLength(final int version) {
        return version == 1 ? INDEX_ENTRY_LENGTH_V1 : INDEX_ENTRY_LENGTH;
    }

    /** Sub-blocks of a version 3 block of {@code rows} rows. */
    static int subBlocks(final int rows, final int subRows) {
        return (rows + subRows - 1) / subRows;
    }

    /** Bytes of the table before a version 3 block's {@code k} sub-blocks (see the class comment). */
    static int subTableBytes(final int k, final ColumnType type) {
        if (k == 1) {
            return 0;
        }
        return type == ColumnType.TIMESTAMP || type == ColumnType.INT64 ? 12 * k : 4 * k;
    }

    /** Rows per sub-block the writer uses for {@code encoding} and {@code width}-byte values; 0 for none (plain files). */
    static int subRows(final ColumnEncoding encoding, final int width) {
        if (encoding.codec() == Codec.NONE || encoding.codec() == Codec.ZSTD) {
            return 0;
        }
        return SUB_BYTES / width;
    }

    private ColumnFileDescriptor() {
    }
}
