package io.jtick.core.hdb.format;

import io.jtick.core.schema.ColumnType;

/**
 * One reader's decoded block of one column file, reused from read to read: a sequential reader
 * decodes each block once, and a read within one block is served from it without a copy
 * ({@link PartitionTable} keeps one per column chunk, as the chunk's attachment). It also counts
 * the distinct blocks its reader touched: a reader past {@link #SCAN_BLOCKS} is a scan and stops
 * going through the shared {@link DecodedBlockCache} (unless the column is small enough for the
 * cache to keep it whole: {@link DecodedBlockCache#keepsWhole}). Not thread-safe.
 */
final class DecodedBlock {
    /** Blocks a reader reads through the shared cache before it counts as a scan. */
    static final int SCAN_BLOCKS = 8;

    /** File the values belong to ({@link ColumnFile} id), -1 when empty. */
    long fileId = -1;
    int block;
    /** Row of {@code values[0]}. */
    int firstRow;
    /** Rows held. */
    int rows;
    /** Typed array ({@link ColumnType#newArray}) of at least {@link #rows} values. */
    Object values;
    ColumnType type;
    int capacity;
    /** Row of element 0 of the array {@link ColumnFile#view} returned last. */
    int viewFirstRow;
    private int touched;
    private int lastTouched = -1;

    /** True once the reader has touched {@link #SCAN_BLOCKS} blocks. */
    boolean scanning() {
        return touched >= SCAN_BLOCKS;
    }

    /** Counts a block the reader read (again in a row counts once). */
    void touched(final int b) {
        if (b != lastTouched) {
            lastTouched = b;
            touched++;
        }
    }
}
