package io.jtick.core.hdb;

import io.jtick.core.schema.ColumnType;

/**
 * One reader's decoded block of one column file, reused from read to read: a sequential reader
 * decodes each block once, and a read within one block is served from it without a copy
 * ({@link PartitionTable} keeps one per column chunk, as the chunk's attachment). Not thread-safe.
 */
final class DecodedBlock {
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
}
