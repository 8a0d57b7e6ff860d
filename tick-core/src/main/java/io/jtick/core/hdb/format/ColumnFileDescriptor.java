package io.jtick.core.hdb.format;

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
 * 48  reserved    12
 * 60  headerCrc    4  CRC32C of bytes 0..59
 * 64  blocks          stored blocks, back to back (plain files: the values themselves, row r at 64 + r * width)
 *     index           per block: offset 8, storedLength 4, crc32c 4 (of the stored bytes), firstRow 4, rows 4,
 *                     and from version 2 the block summary: first 8, last 8, min 8, max 8 (each the value's
 *                     bits sign-extended to 8 bytes; min/max by the type's order, NaN ignored); then CRC32C
 *                     of the index 4
 * </pre>
 * Version 1 files (index entries of 24 bytes, no summary) read unchanged.
 */
final class ColumnFileDescriptor {
    static final byte[] MAGIC = "JTICKCOL".getBytes(StandardCharsets.US_ASCII);
    /** The version the writer writes. */
    static final int VERSION = 2;
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

    private ColumnFileDescriptor() {
    }
}
